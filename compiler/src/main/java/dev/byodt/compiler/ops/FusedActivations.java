package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.runtime.ElementType;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntFunction;

import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * Element-wise activations computed by the kernel of the node whose output they take, as that kernel stores each
 * output element ({@link KernelBuilder#transformStores}), as ONNX Runtime fuses Conv with Relu and Clip: each
 * activation's own kernel read the tensor back and wrote it again, passes bound by memory (a seventh of mobilenet_v2's
 * time went to its Clips, an eighth of efficientnet_b0's to the Mul of its SiLUs). A chain ({@link ActivationChain})
 * takes several in a row: SiLU's Sigmoid then the Mul of the output by it, a residual Add then Relu, a
 * BatchNormalization's Relu. Each activation is its operator's formula on the values its unfused kernel would have
 * loaded (the elements the chain computed, its other operands read at the element's index), in the graph's order,
 * so each element is what the separate kernels computed, bit for bit.
 */
public final class FusedActivations {
    private FusedActivations() {}

    /**
     * Whether {@code producer}'s kernel can compute activations of its one float32 output: it must store each
     * output element once, its final value, at the element's own index, and never read it back, as Conv's schedules,
     * BatchNormalization's inference nest and the element-wise operators' nests do.
     */
    public static boolean canProduce(Node producer) {
        if (producer.outputs().size() != 1 || !isFloat32(producer.output(0))) return false;
        return switch (producer.opType()) {
            case "Conv" -> true;
            case "BatchNormalization" -> !BatchNormalization.training(producer);
            default -> isElementwise(producer);
        };
    }

    /**
     * Whether {@code activation} can follow in a chain that has computed the values {@code computed}, each of
     * {@code shape}: a one-input element-wise operator, a Clip, or a two-input one (Add, Mul, ...) with
     * multidirectional broadcasting, whose output has the chain's shape; its inputs float32 values the chain
     * computed or operands that broadcast to that shape (read at each element's broadcast index).
     */
    public static boolean canFollow(Node activation, Set<Value> computed, long[] shape) {
        if (activation.outputs().size() != 1 || !isFloat32(activation.output(0))
            || !Arrays.equals(activation.output(0).type().shape(), shape)) {
            return false;
        }
        for (Value v : activation.inputs()) {
            if (v != null && !computed.contains(v) && !(isFloat32(v) && Broadcasting.broadcastsTo(v.type().shape(), shape))) return false;
        }
        return isElementwise(activation);
    }

    private static boolean isElementwise(Node node) {
        Operator op = Operators.lookup(node.opType());
        return node.opType().equals("Clip") || op instanceof ElementwiseUnary && node.inputs().size() == 1
            || op instanceof ElementwiseBinary && node.opsetVersion() >= 7;
    }

    private static boolean isFloat32(Value v) { return v.type().elementType() == ElementType.FLOAT32; }

    /**
     * Emits the chain's producer in the schedule tuned for {@code arithmetic} with the activations applied to each
     * element it stores into output 0, the chain's output; {@code bufferOf} gives the buffers of the operands.
     */
    public static void lower(ActivationChain chain, KernelBuilder kb, NodeArithmetic arithmetic, Function<Value, Buffer> bufferOf) {
        long[] shape = chain.output().type().shape();
        Map<Value, Integer> uses = new HashMap<>();
        chain.activations().forEach(a -> a.inputs().forEach(v -> uses.merge(v, 1, Integer::sum)));
        boolean throughLibrary = chain.activations().stream().anyMatch(FusedActivations::throughLibrary);
        kb.transformStores(kb.output(0), (index, value) -> {
            Map<Value, Expr> computed = new HashMap<>();
            computed.put(chain.producer().output(0), once(kb, value, uses.get(chain.producer().output(0))));
            for (Node a : chain.activations()) {
                IntFunction<Expr> input = i -> {
                    Value v = a.input(i);
                    return computed.containsKey(v) ? computed.get(v) : operand(kb, v, bufferOf.apply(v), shape, index);
                };
                computed.put(a.output(0), once(kb, formula(a, kb, input), uses.getOrDefault(a.output(0), 1)));
            }
            return computed.get(chain.output());
        }, throughLibrary);
        Operators.lookup(chain.producer().opType()).lowerScheduled(chain.producer(), kb, arithmetic);
    }

    /** Whether the activation is one of float32's library functions (Sigmoid, Tanh, Exp, Erf, ...). */
    private static boolean throughLibrary(Node activation) {
        return Arrays.stream(ScalarOp.values()).anyMatch(op -> op.float32Lowering() == ScalarOp.Float32Lowering.LIBRARY
            && op.onnxOperator().filter(activation.opType()::equals).isPresent());
    }

    /** The activation's formula of its inputs' values. */
    private static Expr formula(Node activation, KernelBuilder kb, IntFunction<Expr> input) {
        Operator op = Operators.lookup(activation.opType());
        if (activation.opType().equals("Clip")) return Clip.clipped(activation, input.apply(0), input);
        if (op instanceof ElementwiseUnary unary) return unary.formula(activation, kb, input.apply(0));
        return ((ElementwiseBinary) op).formula(input.apply(0), input.apply(1));
    }

    /** A value the chain reads {@code uses} times, in a local where that is more than once, so it is computed once. */
    private static Expr once(KernelBuilder kb, Expr value, int uses) {
        return uses > 1 ? kb.get(kb.local("fused", value)) : value;
    }

    /** An operand of the chain at the element of the output's flat {@code index}: a constant scalar as itself. */
    private static Expr operand(KernelBuilder kb, Value v, Buffer buffer, long[] shape, Expr index) {
        if (v.isConstant() && v.type().elementCount() == 1) return real(v.constant().getFloat(0));
        return kb.load(buffer, Broadcasting.index(v.type().shape(), shape, index));
    }
}
