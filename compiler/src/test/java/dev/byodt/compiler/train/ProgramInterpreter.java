package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs a program's kernels one after the other in the interpreter: the second executor of the backward kernels. */
final class ProgramInterpreter {
    private ProgramInterpreter() {}

    static List<Tensor> run(Program program, List<Tensor> inputs) {
        Map<Buffer, Tensor> tensors = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) tensors.put(program.inputs().get(i), inputs.get(i));
        program.constants().forEach((b, data) -> tensors.put(b, new Tensor(
            b.elementType() == ScalarType.I64 ? ElementType.INT64 : ElementType.FLOAT32, b.shape(), data)));
        for (Kernel k : program.kernels()) {
            List<Tensor> in = new ArrayList<>();
            for (Buffer b : k.inputs()) in.add(b == null ? null : tensors.get(b));
            List<Tensor> out = Interpreter.run(k, in);
            for (int i = 0; i < out.size(); i++) tensors.put(k.outputs().get(i), out.get(i));
        }
        return program.outputs().stream().map(tensors::get).toList();
    }
}
