package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * A tuned schedule of {@link Conv}: a 2-D depthwise convolution (one input channel and one output map a group, as
 * MobileNet's and EfficientNet's 3x3 and 5x5 layers), the way XNNPACK's depthwise kernels compute it: each output's
 * whole sum in one iteration of a loop along the output, its taps unrolled, so that the loop vectorizes with the sums
 * in registers and the kernel's few weights in registers too (broadcast once a channel), each tap one load of a run
 * of the channel's padded plane, or with strides of the plane of the tap's phase ({@link PaddedPlanes}, which hold
 * one channel at a time), and one multiply-add. The
 * schedule on padded planes for any group ({@link PaddedPlaneConv}) kept a row of accumulators in memory instead,
 * each tap a load, a multiply-add and a store of every accumulator, and copied them to the output in a pass of
 * their own. Each output sums its taps from +0 in the reference's order, the padding's as w*0, and the bias is added
 * to the rounded sum, as {@link Conv}'s reference does: the same bits. Threads divide the channels.
 */
final class DepthwiseConv {
    private DepthwiseConv() {}

    /**
     * Whether this schedule applies: two spatial axes, one input channel and one output map a group, any stride. With
     * stride 2, mobilenet_v2's layers of 28x28 and 14x14 outputs take a third and three quarters of the time they took
     * along rows ({@link ConvAlongRows}), its 56x56 one as long, its 7x7 one (a tenth of a percent of the net) a
     * quarter longer; before the phases' planes were copied in whole vectors ({@link PaddedPlanes#fill}) and held one
     * channel at a time, they took 1.7 to 2.5 times as long as along rows.
     */
    static boolean fits(Conv.Shape s) {
        return s.window().rank() == 2 && s.channelsPerGroup() == 1 && s.mapsPerGroup() == 1;
    }

    /**
     * Emits the node's convolution, a channel at a time: its padded planes filled, then its outputs. Where an output row
     * holds a vector of {@code lanes} and the stores are machine arithmetic, each row is computed in whole vectors
     * straight into the output ({@link #intoRows}); else along the planes' grid into a scratch row, then copied
     * ({@link #alongTheGrid}).
     */
    static void lower(Conv.Shape s, KernelBuilder kb, long lanes) {
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long[] out = window.outputShape();
        long length = roundUp(out[0] * PaddedPlanes.width(x, window), lanes);
        PaddedPlanes planes = PaddedPlanes.of(kb, x, window, length, "channelPlanes", true);
        boolean intoRows = out[1] >= lanes && !kb.storesThroughLibrary(y);
        kb.loop(s.batch(), n -> kb.splitLoop(s.channels(), channel -> {
            planes.fill(kb, n, channel, 1);
            Expr channelBias = kb.input(2) == null ? null : kb.get(kb.local("bias", kb.load(kb.input(2), channel)));
            if (intoRows) intoRows(kb, planes, n, channel, channelBias, lanes);
            else alongTheGrid(kb, planes, n, channel, channelBias, length, lanes);
        }));
    }

    /**
     * The channel's output rows, each in whole vectors stored straight into the output, the last vector of a row
     * starting early so that it ends on the row's last column (it recomputes and stores again columns of the vector
     * before it, the same values). The copy from a scratch grid took a quarter of the kernel's time in a profile of
     * two layers of 144 channels at 56x56 with Relu, which run 1.23 times as fast so; two of 96 channels at 112x112
     * 1.28, two 5x5 layers of 240 channels at 28x28 1.39.
     * Not where the stores compute one of float32's library functions (EfficientNet's SiLU): LLVM vectorized the
     * whole row, window sums included, at the double library's 8 lanes, and the 5x5 pair with SiLU took 1.25 times
     * as long as on the grid, where the sums take their own loop of 16 lanes. (Rows of fewer than a vector, masked
     * off at the row's end, took mobilenet_v2's 14x14 layers about 1.7 times as long as the grid, in a profile at a
     * load average of 24.)
     */
    private static void intoRows(KernelBuilder kb, PaddedPlanes planes, Expr n, Expr channel, Expr channelBias, long lanes) {
        Buffer y = kb.output(0);
        long[] out = planes.window().outputShape();
        kb.loop(out[0], row -> kb.loop(roundUp(out[1], lanes) / lanes, vector -> {
            Expr first = min(mul(vector, lanes), out[1] - lanes);
            kb.vectorLoop(lanes, lane -> {
                Expr column = add(first, lane);
                kb.store(y, flatIndex(y.shape(), n, channel, row, column),
                    windowSum(kb, planes, channel, add(mul(row, planes.width()), column), channelBias));
            });
        }));
    }

    /**
     * The channel's outputs along the plane's whole grid, in whole vectors of {@code lanes} elements, into a scratch
     * row from which the output rows are copied, less the grid's junk columns. Each row is copied as whole vectors too,
     * running on into the rows after it, which are copied later and overwrite what it wrote there; only the last
     * rows, which would run past the channel into another thread's, are copied element by element. (Rows copied with
     * their junk columns masked off, as a loop along the row, took a loop LLVM unrolled whole and vectorized the loop
     * over rows instead, with a gather and a scatter a vector.)
     */
    private static void alongTheGrid(KernelBuilder kb, PaddedPlanes planes, Expr n, Expr channel, Expr channelBias, long length,
                                     long lanes) {
        Buffer y = kb.output(0);
        long[] out = planes.window().outputShape();
        long width = planes.width();
        long rowRun = roundUp(out[1], lanes);
        long channelLength = out[0] * out[1];
        long runningRows = channelLength < rowRun ? 0 : Math.min(out[0], (channelLength - rowRun) / out[1] + 1);
        Buffer sums = kb.scratch("sums", ScalarType.REAL, new long[] {length});
        kb.loop(length, p -> kb.store(sums, p, windowSum(kb, planes, channel, p, channelBias)));
        Expr channelStart = flatIndex(y.shape(), n, channel, idx(0), idx(0));
        kb.loop(runningRows, row -> kb.loop(rowRun, column ->
            kb.store(y, add(channelStart, add(mul(row, out[1]), column)), kb.load(sums, add(mul(row, width), column)))));
        kb.loops(new long[] {out[0] - runningRows, out[1]}, at -> {
            Expr row = add(at[0], runningRows);
            kb.store(y, flatIndex(y.shape(), n, channel, row, at[1]), kb.load(sums, add(mul(row, width), at[1])));
        });
    }

    private static long roundUp(long n, long multiple) { return (n + multiple - 1) / multiple * multiple; }

    /** The rounded sum of the window at grid position {@code p} of {@code channel}, its taps in order, plus the bias. */
    private static Expr windowSum(KernelBuilder kb, PaddedPlanes planes, Expr channel, Expr p, Expr channelBias) {
        Buffer w = kb.input(1);
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        for (long ky = 0; ky < w.dim(2); ky++) {
            for (long kx = 0; kx < w.dim(3); kx++) {
                Expr xAt = kb.load(planes.buffer(), add(planes.tap(channel, idx(ky), idx(kx)), p));
                Expr wAt = kb.load(w, flatIndex(w.shape(), channel, idx(0), idx(ky), idx(kx)));
                kb.assign(sum, mac(kb.get(sum), xAt, wAt));
            }
        }
        Expr result = cast(ScalarType.REAL, kb.get(sum));
        return channelBias == null ? result : add(result, channelBias);
    }
}
