package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.KernelBuilder;

import static dev.byodt.compiler.kernel.Exprs.real;

/**
 * An element-wise activation computed by the kernel of the convolution whose output it takes, as that kernel stores
 * each output element ({@link KernelBuilder#transformStores}), as ONNX Runtime fuses Conv with Relu and Clip: the
 * activation's own kernel read the whole output back and wrote it again (a seventh of mobilenet_v2's time went to
 * its Clips, each pass bound by memory). The activation's formula is its operator's, so each element is what the
 * two kernels computed, bit for bit.
 */
public final class FusedActivations {
    private FusedActivations() {}

    /**
     * Whether {@code producer}'s kernel can compute {@code activation} of its output: the producer a Conv, whose
     * schedules store each output once, its final value; the activation a one-input element-wise operator (Relu,
     * HardSwish, ...) or a Clip whose bounds are constants or absent.
     */
    public static boolean fits(Node producer, Node activation) {
        if (!producer.opType().equals("Conv")) return false;
        if (activation.opType().equals("Clip")) {
            for (int i = 1; i < activation.inputs().size(); i++) {
                Value bound = activation.input(i);
                if (bound != null && !bound.isConstant()) return false;
            }
            return true;
        }
        return Operators.lookup(activation.opType()) instanceof ElementwiseUnary && activation.inputs().size() == 1;
    }

    /**
     * Emits {@code producer}'s computation in the schedule tuned for {@code arithmetic} with {@code activation} applied
     * to each element it stores into output 0, which is the activation's output.
     */
    public static void lower(Node producer, Node activation, KernelBuilder kb, NodeArithmetic arithmetic) {
        if (activation.opType().equals("Clip")) {
            kb.transformStores(kb.output(0), x -> Clip.clipped(activation, x, i -> real(activation.input(i).constant().getFloat(0))));
        } else {
            ElementwiseUnary op = (ElementwiseUnary) Operators.lookup(activation.opType());
            kb.transformStores(kb.output(0), x -> op.formula(activation, kb, x));
        }
        Operators.lookup(producer.opType()).lowerScheduled(producer, kb, arithmetic);
    }
}
