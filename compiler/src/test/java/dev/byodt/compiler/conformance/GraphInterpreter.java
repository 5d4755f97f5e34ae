package dev.byodt.compiler.conformance;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a typed graph (as OnnxLoader returns it) in the kernel interpreter: lowered by GraphLowering into the
 * kernels the compiler would turn into LLVM IR, each kernel then run in program order on the tensors its
 * buffers hold. Hand-built programs run the same way. A second executor of the same kernels that shares nothing with code generation; a tree
 * walker, so slow on big tensors.
 */
public final class GraphInterpreter {
    private GraphInterpreter() {}

    /** A {@link GraphExecutor}: the graph's outputs for its run-time inputs, in order. */
    public static List<Tensor> run(Graph graph, List<Tensor> inputs) {
        return run(GraphLowering.lower(graph), inputs);
    }

    /** The program's outputs for its run-time inputs, in order, with ONNX's separate roundings of multiply-adds. */
    public static List<Tensor> run(Program program, List<Tensor> inputs) { return run(program, inputs, MultiplyAdd.SEPARATE); }

    /** The program's outputs for its run-time inputs, in order, each multiply-add rounded as {@code multiplyAdd} says. */
    public static List<Tensor> run(Program program, List<Tensor> inputs, MultiplyAdd multiplyAdd) {
        checkInputs(program.inputSpecs(), inputs);
        Map<Buffer, Tensor> tensors = new HashMap<>();
        program.constants().forEach((b, bytes) -> tensors.put(b, new Tensor(elementType(b), b.shape(), bytes)));
        for (int i = 0; i < inputs.size(); i++) tensors.put(program.inputs().get(i), inputs.get(i));
        for (Kernel kernel : program.kernels()) {
            // A buffer no kernel wrote and no constant holds is one the kernel does not load (a shape input).
            List<Tensor> kernelInputs = new ArrayList<>();
            for (Buffer b : kernel.inputs()) kernelInputs.add(b == null ? null : tensors.get(b));
            List<Tensor> results = Interpreter.run(kernel, kernelInputs, multiplyAdd);
            for (int k = 0; k < results.size(); k++) tensors.put(kernel.outputs().get(k), results.get(k));
        }
        return program.outputs().stream().map(tensors::get).toList();
    }

    private static ElementType elementType(Buffer b) {
        return switch (b.elementType()) {
            case I32 -> ElementType.INT32;
            case I64 -> ElementType.INT64;
            case BOOL -> ElementType.BOOL;
            default -> ElementType.FLOAT32;
        };
    }

    /** The compiled model's entry refuses inputs that do not fit its signature; so does this executor. */
    private static void checkInputs(List<TensorSpec> specs, List<Tensor> inputs) {
        if (inputs.size() != specs.size()) {
            throw new ByodtException("the graph has " + specs.size() + " run-time inputs, but " + inputs.size() + " were given");
        }
        for (int i = 0; i < specs.size(); i++) {
            TensorSpec spec = specs.get(i);
            Tensor t = inputs.get(i);
            if (spec.type() != t.type() || !Arrays.equals(spec.shape(), t.shape())) {
                throw new ByodtException("input '" + spec.name() + "' is " + spec.type() + " " + Shapes.format(spec.shape())
                    + ", but the value given is " + t.type() + " " + Shapes.format(t.shape()));
            }
        }
    }
}
