package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
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
                Expr dyAt = kb.get(kb.local("dy", kb.load(s.dy(), add(mul(add(mul(batch, s.maps()), map), positions), position))));
                kb.loop(row, column -> {
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
                Expr dyAt = kb.get(kb.local("dy", kb.load(s.dy(), add(mul(batch, s.maps()), map))));
                kb.loop(row, j -> kb.store(acc, j, mac(kb.load(acc, j), dyAt, kb.load(s.w(), add(mul(map, row), j)))));
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
     * dX in one of two schedules, or false where neither applies. Where the window covers the whole input (one output
     * position, no padding) dX[b, c, taps] sums dY[b, m] * W[m, c, taps] over the maps m, a row of a matrix product:
     * a row of accumulators per batch item and group, the loop over channels and taps innermost. Else, for a 2-D
     * stride-1 convolution, dX is the convolution of dY by the flipped kernel with input channels and output maps
     * swapped ({@link WindowGeometry#transposed}), on padded planes ({@link PaddedPlaneConv}): each input position
     * takes its terms map by map, and within a map from the first output position to the last, as in the reference
     * nest, and the planes' padding adds terms dY = 0.
     */
    static boolean input(KernelBuilder kb, Shape s, Buffer grad, long lanes) {
        if (Arrays.equals(s.taps(), Arrays.copyOfRange(s.x().shape(), 2, s.x().rank())) && s.positions() == 1
            && !s.window().reachesPadding()) {
            wholeInput(kb, s, grad);
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
