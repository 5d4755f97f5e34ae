package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.compiler.ops.PaddedPlaneConv;
import dev.byodt.compiler.ops.WindowGeometry;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * {@link ConvGradient}'s tuned schedules, which vectorize: each gradient element takes the terms the reference
 * nest gives it in the same order, but the loop innermost runs across elements, over accumulators in scratch rows.
 * Every factor of a product is a load of a tensor (dY's too, the same element across the innermost loop, which LLVM
 * reads once), so that the operands are decoded once per tensor and the sums checked for float32 rounding within the
 * posit's scales ({@link dev.byodt.compiler.lower.DecodedOperands}).
 */
final class ConvGradientSchedules {
    private ConvGradientSchedules() {}

    /** The shapes of one Conv node's tensors: X (N x C x D1..Dn), W (M x C/group x K1..Kn), dY (N x M x O1..On). */
    record Shape(Buffer x, Buffer w, Buffer dy, long groups, WindowGeometry window) {
        long maps() { return w.dim(0); }

        long mapsPerGroup() { return maps() / groups; }

        long channelsPerGroup() { return w.dim(1); }

        long[] taps() { return Arrays.copyOfRange(w.shape(), 2, w.rank()); }

        long positions() { return Shapes.elementCount(window.outputShape(), dy.name()); }
    }

    /**
     * dB[m] sums dY over the batch and the positions of map m, in that order: one accumulator per map, the loop
     * over maps innermost.
     */
    static void bias(KernelBuilder kb, Shape s, Buffer grad) {
        Buffer acc = Accumulators.zeroed(kb, new long[] {s.maps()});
        kb.loop(s.x().dim(0), batch -> kb.loop(s.positions(), position -> kb.loop(s.maps(), map -> kb.store(acc, map,
            accumulate(kb.load(acc, map), kb.load(s.dy(), add(mul(add(mul(batch, s.maps()), map), s.positions()), position)))))));
        Accumulators.round(kb, acc, grad);
    }

    /**
     * dW[m, c, taps] sums dY[b, m, o] * X[b, c, o's tap position] over the batch and then the output positions o, as the
     * reference nest does. For each batch item and group the input's windows are copied out as rows of patches, one
     * per output position, in W's layout (channel, then taps); each output position then adds dY times its row to
     * every map's row of accumulators. Rows are padded to whole vectors of {@code lanes}, and a tap in the padding,
     * which the reference leaves out, leaves its accumulator unchanged (a mask of the taps inside the input selects).
     */
    static void weights(KernelBuilder kb, Shape s, Buffer grad, long lanes) {
        long[] taps = s.taps();
        long tapCount = Shapes.elementCount(taps, s.w().name());
        long terms = s.channelsPerGroup() * tapCount;
        long row = (terms + lanes - 1) / lanes * lanes;
        long positions = s.positions();
        Buffer patches = kb.scratch("patches", ScalarType.REAL, new long[] {positions, row});
        Buffer acc = Accumulators.zeroed(kb, new long[] {s.maps(), row});
        Buffer inside = null;
        if (s.window().reachesPadding()) {
            Buffer mask = kb.scratch("inside", ScalarType.I32, new long[] {positions, row});
            kb.loop(mask.size(), i -> kb.store(mask, i, constant(ScalarType.I32, 0)));
            forEachTapInside(kb, s, (position, channelInGroup, inputPosition, column) ->
                kb.store(mask, add(mul(position, row), column), constant(ScalarType.I32, 1)));
            inside = mask;
        }
        Buffer mask = inside;
        kb.loop(s.x().dim(0), batch -> kb.loop(s.groups(), group -> {
            kb.loop(patches.size(), i -> kb.store(patches, i, constant(ScalarType.REAL, 0)));
            forEachTapInside(kb, s, (position, channelInGroup, inputPosition, column) -> {
                Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                kb.store(patches, add(mul(position, row), column),
                    kb.load(s.x(), flatIndex(s.x().shape(), WindowGeometry.indices(batch, channel, inputPosition))));
            });
            kb.loop(positions, position -> kb.loop(s.mapsPerGroup(), mapInGroup -> {
                Expr map = add(mul(group, s.mapsPerGroup()), mapInGroup);
                Expr dyIndex = add(mul(add(mul(batch, s.maps()), map), positions), position);
                kb.loop(row, column -> {
                    Expr dyAt = kb.load(s.dy(), dyIndex);
                    Expr at = add(mul(map, row), column);
                    Expr sum = kb.load(acc, at);
                    Expr next = mac(sum, dyAt, kb.load(patches, add(mul(position, row), column)));
                    kb.store(acc, at, mask == null ? next : select(ne(kb.load(mask, add(mul(position, row), column)),
                        constant(ScalarType.I32, 0)), next, sum));
                });
            }));
        }));
        kb.loop(s.maps(), map -> kb.loop(terms, term ->
            kb.store(grad, add(mul(map, terms), term), cast(ScalarType.REAL, kb.load(acc, add(mul(map, row), term))))));
    }

    private static void wholeInput(KernelBuilder kb, Shape s, Buffer grad) {
        long row = s.channelsPerGroup() * Shapes.elementCount(s.taps(), s.w().name());
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {row});
        kb.loop(s.x().dim(0), batch -> kb.loop(s.groups(), group -> {
            kb.loop(row, j -> kb.store(acc, j, constant(ScalarType.ACC, 0)));
            kb.loop(s.mapsPerGroup(), mapInGroup -> {
                Expr map = add(mul(group, s.mapsPerGroup()), mapInGroup);
                Expr dyIndex = add(mul(batch, s.maps()), map);
                kb.loop(row, j -> kb.store(acc, j, mac(kb.load(acc, j), kb.load(s.dy(), dyIndex), kb.load(s.w(), add(mul(map, row), j)))));
            });
            kb.loop(row, j -> kb.store(grad, add(mul(add(mul(batch, s.groups()), group), row), j),
                cast(ScalarType.REAL, kb.load(acc, j))));
        }));
    }

    /**
     * Receives each tap inside the input of each window, for each channel of a group: the window's output position
     * (flat), the channel, the tap's input position and its column in a patch row.
     */
    private interface TapInside {
        void visit(Expr position, Expr channelInGroup, Expr[] inputPosition, Expr column);
    }

    private static void forEachTapInside(KernelBuilder kb, Shape s, TapInside visitor) {
        long[] out = s.window().outputShape();
        long[] taps = s.taps();
        long tapCount = Shapes.elementCount(taps, s.w().name());
        kb.loops(out, at -> kb.loop(s.channelsPerGroup(), channelInGroup -> s.window().forEachTap(kb, at, (position, tap) ->
            visitor.visit(flatIndex(out, at), channelInGroup, position, add(mul(channelInGroup, tapCount), flatIndex(taps, tap))))));
    }

    /**
     * dX of a 2-D stride-1 convolution that pads no row (its vertical padding may be any), dY's terms scattered: for
     * each batch item and map, each tap (ky, kx), from the last to the first, adds, for each channel of the map's
     * group, dY's map times W[m, c, ky, kx] to the run of the channel's accumulators the tap reaches. An element then takes its terms map
     * by map, and within a map from the first output position to the last (a later tap is an earlier position), as in
     * the reference nest, and no term of the padding: where the padded planes of {@link #input} took dY's maps by
     * whole padded windows, LeNet-5's second convolution summed 400 terms an element, 150 of them nonzero. dY's rows
     * are copied out at dX's width, their columns past dY's own left zero, so that a tap's terms are one run over
     * the plane of accumulators; those zeros add +0 after the ends of rows (a posit plus 0 is itself; a NaR weight,
     * which has already made the step's gradients NaR, reaches a few more elements of its channel, as on padded
     * planes). A run is whole vectors of {@code lanes}, reading zeros past dY's map: each map's rows are followed by
     * {@code lanes} zeros, and each channel's plane by (kw - 1) dilation + {@code lanes} spare accumulators.
     */
    private static void scatteredRows(KernelBuilder kb, Shape s, Buffer grad, long lanes) {
        WindowGeometry window = s.window();
        long channels = s.x().dim(1), height = s.x().dim(2), width = s.x().dim(3);
        long rows = window.outputShape()[0], columns = window.outputShape()[1];
        long mapRows = rows * width + lanes;
        long plane = height * width + (window.kernelSize(1) - 1) * window.dilation(1) + lanes;
        Buffer wide = kb.scratch("rows", ScalarType.REAL, new long[] {s.maps(), mapRows});
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {channels, plane});
        kb.loop(wide.size(), i -> kb.store(wide, i, constant(ScalarType.REAL, 0)));
        kb.loop(s.x().dim(0), batch -> {
            kb.loops(new long[] {s.maps(), rows, columns}, at -> kb.store(wide, add(add(mul(at[0], mapRows), mul(at[1], width)), at[2]),
                kb.load(s.dy(), flatIndex(s.dy().shape(), batch, at[0], at[1], at[2]))));
            kb.loop(acc.size(), i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
            kb.loop(s.groups(), group -> kb.loop(s.mapsPerGroup(), mapInGroup -> {
                Expr map = add(mul(group, s.mapsPerGroup()), mapInGroup);
                for (long ky = window.kernelSize(0) - 1; ky >= 0; ky--) {
                    long rowOffset = ky * window.dilation(0) - window.padBefore(0);
                    long firstRow = Math.max(0, -rowOffset), endRow = Math.min(rows, height - rowOffset);
                    if (firstRow >= endRow) continue;
                    for (long kx = window.kernelSize(1) - 1; kx >= 0; kx--) {
                        long first = firstRow * width, offset = rowOffset * width + kx * window.dilation(1), tap = ky, column = kx;
                        // Channels between a tap and the next: the next tap's run, one element over, re-reads what this
                        // one stored, and a load straddling a recent store waits for it.
                        kb.loop(s.channelsPerGroup(), channelInGroup -> {
                            Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                            Expr weight = kb.load(s.w(), flatIndex(s.w().shape(), map, channelInGroup, idx(tap), idx(column)));
                            kb.loop(((endRow - firstRow) * width + lanes - 1) / lanes * lanes, t -> {
                                Expr at = add(mul(channel, plane), add(t, first + offset));
                                kb.store(acc, at, mac(kb.load(acc, at), kb.load(wide, add(mul(map, mapRows), add(t, first))), weight));
                            });
                        });
                    }
                }
            }));
            kb.loops(new long[] {channels, height * width}, at -> kb.store(grad,
                add(mul(add(mul(batch, channels), at[0]), height * width), at[1]), cast(ScalarType.REAL, kb.load(acc, add(mul(at[0], plane), at[1])))));
        });
    }

    /**
     * dX in one of three schedules, or false where none applies. Where the window covers the whole input (one output
     * position, no padding) dX[b, c, taps] sums dY[b, m] * W[m, c, taps] over the maps m, a row of a matrix product:
     * a row of accumulators per batch item and group, the loop over channels and taps innermost. Else, for a 2-D
     * stride-1 convolution whose columns are not padded, in an emulated datatype, on scattered rows ({@link
     * #scatteredRows}). Else, for a 2-D stride-1 convolution, dX is the convolution of dY by the flipped kernel with
     * input channels and output maps swapped ({@link WindowGeometry#transposed}), on padded planes ({@link
     * PaddedPlaneConv}): each input position takes its terms map by map, and within a map from the first output
     * position to the last, as in the reference nest, and the planes' padding adds terms dY = 0. The machine's
     * float32 keeps the padded planes: their blocks of sums stay in registers across the terms, which costs it less
     * than the padding's terms do (LeNet-5's step took 8% longer on scattered rows), where an emulated datatype's
     * long roundings leave no registers for them.
     */
    static boolean input(KernelBuilder kb, Shape s, Buffer grad, NodeArithmetic arithmetic) {
        long lanes = arithmetic.lanes();
        if (Arrays.equals(s.taps(), Arrays.copyOfRange(s.x().shape(), 2, s.x().rank())) && s.positions() == 1
            && !s.window().reachesPadding()) {
            wholeInput(kb, s, grad);
            return true;
        }
        if (!arithmetic.machineFloat32() && PaddedPlaneConv.fits(s.window()) && s.window().padBefore(1) == 0
            && s.window().padAfter(1) == 0) {
            scatteredRows(kb, s, grad, lanes);
            return true;
        }
        if (!PaddedPlaneConv.fits(s.window()) || s.window().transposed().isEmpty()) return false;
        WindowGeometry back = s.window().transposed().get();
        long[] taps = s.taps();
        long channelsPerGroup = s.channelsPerGroup(), mapsPerGroup = s.mapsPerGroup();
        PaddedPlaneConv.Weights flipped = (channel, mapInGroup, ky, kx) -> kb.load(s.w(), flatIndex(s.w().shape(),
            add(mul(div(channel, channelsPerGroup), mapsPerGroup), mapInGroup), rem(channel, channelsPerGroup),
            sub(idx(taps[0] - 1), ky), sub(idx(taps[1] - 1), kx)));
        PaddedPlaneConv.lower(kb, s.dy(), flipped, null, grad, s.groups(), channelsPerGroup, back, lanes);
        return true;
    }
}
