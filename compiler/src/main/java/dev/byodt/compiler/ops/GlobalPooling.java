package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * ONNX GlobalAveragePool and GlobalMaxPool: the mean or maximum of all spatial elements of each channel of
 * X (N x C x D1..Dn), giving N x C x 1..1. A channel's elements are contiguous, so the reduction is one loop.
 */
final class GlobalPooling implements Operator {
    private final boolean average;

    private GlobalPooling(boolean average) {
        this.average = average;
    }

    static void registerAll() {
        Operators.register("GlobalAveragePool", new GlobalPooling(true));
        Operators.register("GlobalMaxPool", new GlobalPooling(false));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 2);
        long[] shape = x.shape();
        Arrays.fill(shape, 2, shape.length, 1);
        return List.of(Operands.floatTensor(shape));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long size = Operands.product(x.shape(), 2, x.rank());
        kb.loop(x.dim(0) * x.dim(1), channel -> {
            Expr start = mul(channel, size);
            Local pooled = kb.local(average ? "sum" : "max", first());
            kb.loop(size, i -> kb.assign(pooled, next(kb.get(pooled), kb.load(x, add(start, i)))));
            kb.store(y, channel, result(kb.get(pooled), size));
        });
    }

    /**
     * The float32 schedule: a vector of channels at a time, each lane one channel's sum or maximum taken along the
     * channel in the reference's order, so the same bits; the channels' elements are read a vector a step, one from
     * each channel (a gather). The reference's loop along one channel was a chain of dependent additions, each
     * waiting for the one before: 4 cycles an element, a third of the time of a 144-channel 56x56 depthwise layer
     * pair it ended, and EfficientNet's and MobileNetV3's squeeze-and-excitation blocks each pool a whole layer.
     * The last vector of a batch item's channels starts early where the lanes do not divide them, recomputing
     * channels of the vector before it, and stores only its own. Threads divide the vectors of channels.
     */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        long channels = x.dim(1);
        long lanes = arithmetic.lanes();
        if (!arithmetic.machineFloat32() || channels < lanes) {
            lower(node, kb);
            return;
        }
        long size = Operands.product(x.shape(), 2, x.rank());
        long vectors = (channels + lanes - 1) / lanes;
        Buffer pooled = kb.scratch("pooledChannels", average ? ScalarType.ACC : ScalarType.REAL, new long[] {lanes});
        kb.splitLoop(x.dim(0) * vectors, index -> {
            Expr item = div(index, vectors);
            Expr vector = rem(index, vectors);
            Expr firstChannel = min(mul(vector, lanes), channels - lanes);
            Expr start = mul(add(mul(item, channels), firstChannel), size);
            kb.vectorLoop(lanes, lane -> kb.store(pooled, lane, first()));
            kb.loop(size, i -> kb.vectorLoop(lanes, lane ->
                kb.store(pooled, lane, next(kb.load(pooled, lane), kb.load(x, add(start, add(mul(lane, size), i)))))));
            kb.vectorLoop(lanes, lane -> {
                Runnable store = () -> kb.store(y, add(mul(item, channels), add(firstChannel, lane)), result(kb.load(pooled, lane), size));
                if (channels % lanes == 0) store.run();
                else kb.when(ge(add(firstChannel, lane), mul(vector, lanes)), store);
            });
        });
    }

    /** Where a channel's reduction starts: a sum at +0, a maximum at -infinity. */
    private Expr first() { return average ? constant(ScalarType.ACC, 0) : real(Double.NEGATIVE_INFINITY); }

    /** The reduction so far, {@code pooled}, taking the next element. */
    private Expr next(Expr pooled, Expr element) { return average ? accumulate(pooled, element) : max(pooled, element); }

    /** A channel's output from its whole reduction over {@code size} elements. */
    private Expr result(Expr pooled, long size) { return average ? divideByCount(cast(ScalarType.REAL, pooled), size) : pooled; }
}
