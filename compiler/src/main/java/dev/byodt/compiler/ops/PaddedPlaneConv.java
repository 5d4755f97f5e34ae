package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * A tuned schedule of {@link Conv}: a 2-D convolution with stride 1 computed on padded planes. Each input
 * channel is copied into a scratch plane with its zero padding written out, {@code Wp = padLeft + W + padRight}
 * elements a row. On that plane the tap (ky, kx) of output (oy, ox) is at
 * {@code (oy*Wp + ox) + (ky*Wp + kx)*dilation}: for every output the same offset, so one tap of a whole block
 * of outputs is one contiguous run, p = oy*Wp + ox over the "wide grid" of OH rows of Wp columns. The last
 * Wp - OW columns of each grid row are junk (windows that wrap into the next row); they are computed and
 * never stored.
 *
 * <p>The grid is cut into blocks of a few vectors' worth of outputs (the target's vectors of the datatype); a
 * block's accumulators take every term (input channel, ky, kx, in that order) before the next block starts,
 * so they stay in registers across the whole reduction instead of going through memory once per term. A few output maps of a group
 * take their terms together, so that each run of the plane loaded serves all of them (the runs start
 * anywhere, so most loads straddle two cache lines: with one map, loads rather than arithmetic bound the
 * loop). Each output still sums its terms one after the other and rounds once; the padding's terms are the
 * w*0 ONNX defines padding by (adding them to an accumulator that starts at +0 changes nothing).
 *
 * <p>Training runs it also backwards: a stride-1 convolution's input gradient is the convolution of its output
 * gradient by the flipped kernel, input channels and output maps swapped ({@link WindowGeometry#transposed}).
 */
public final class PaddedPlaneConv {
    /** Vectors of accumulators a block keeps: enough independent sums to hide the adder's latency, few enough for registers. */
    private static final long ACCUMULATOR_VECTORS = 24;
    /** Vectors of one map's outputs a block covers at most. */
    private static final long VECTORS_PER_MAP = 8;
    /** Output maps whose terms are taken together, at most. */
    private static final long MAPS_TOGETHER = 6;

    private PaddedPlaneConv() {}

    /** The weight of output map {@code map} for its input channel {@code channelInGroup} at tap (ky, kx). */
    public interface Weights {
        Expr at(Expr map, Expr channelInGroup, Expr ky, Expr kx);
    }

    /** Whether this strategy applies: two spatial axes, stride 1 on both. */
    public static boolean fits(WindowGeometry window) {
        return window.rank() == 2 && window.stride(0) == 1 && window.stride(1) == 1;
    }

    /** Emits the node's convolution; blocks are whole vectors of {@code lanes} elements. */
    static void lower(KernelBuilder kb, long groups, long mapsPerGroup, WindowGeometry window, long lanes) {
        Buffer w = kb.input(1);
        lower(kb, kb.input(0), (map, channelInGroup, ky, kx) -> kb.load(w, flatIndex(w.shape(), map, channelInGroup, ky, kx)),
            kb.input(2), kb.output(0), groups, mapsPerGroup, window, lanes);
    }

    /**
     * Emits y = the convolution of x (N x C x H x W) by {@code w} in {@code window}, plus the bias (M values, or null),
     * into the kernel {@code kb} builds.
     */
    public static void lower(KernelBuilder kb, Buffer x, Weights w, Buffer bias, Buffer y, long groups, long mapsPerGroup,
                             WindowGeometry window, long lanes) {
        long batch = x.dim(0), channels = x.dim(1);
        long width = x.dim(3);
        long kernelHeight = window.kernelSize(0), kernelWidth = window.kernelSize(1);
        long[] out = window.outputShape();
        long planeWidth = window.padBefore(1) + width + window.padAfter(1);
        long grid = out[0] * planeWidth;
        long mapsTogether = largestDivisorUpTo(mapsPerGroup, MAPS_TOGETHER);
        long blockLength = lanes * Math.min(VECTORS_PER_MAP, Math.max(1, ACCUMULATOR_VECTORS / mapsTogether));
        long fewestBlocks = (grid + blockLength - 1) / blockLength;
        long block = ((grid + fewestBlocks - 1) / fewestBlocks + lanes - 1) / lanes * lanes;
        PaddedPlanes planes = PaddedPlanes.of(kb, x, window, block);
        long blocks = planes.blocks();
        long channelsPerGroup = channels / groups;
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {mapsTogether, blocks * block});
        long accLength = blocks * block;
        kb.loop(batch, n -> {
            // The planes of all channels at once, or, where each group is one block of maps (a depthwise
            // convolution), each group's as its turn comes: its planes are then used while they are in cache,
            // and each thread fills only the planes of its own groups.
            boolean fillsPerGroup = groups > 1 && mapsPerGroup == mapsTogether;
            if (!fillsPerGroup) planes.fill(kb, n, idx(0), channels);
            // Threads divide the groups among themselves, or the blocks of maps of the one group.
            kb.loop(groups, groups > 1, group -> kb.loop(mapsPerGroup / mapsTogether, groups == 1, mapBlock -> {
                if (fillsPerGroup) planes.fill(kb, n, mul(group, channelsPerGroup), channelsPerGroup);
                Expr firstMap = add(mul(group, mapsPerGroup), mul(mapBlock, mapsTogether));
                kb.loop(blocks, b -> {
                    Expr start = mul(b, block);
                    kb.loops(new long[] {mapsTogether, block}, i -> kb.store(acc, add(mul(i[0], accLength), add(start, i[1])),
                        constant(ScalarType.ACC, 0)));
                    kb.loops(new long[] {channelsPerGroup, kernelHeight, kernelWidth}, term -> {
                        Expr channel = add(mul(group, channelsPerGroup), term[0]);
                        Expr tapStart = add(planes.tap(channel, term[1], term[2]), start);
                        kb.loop(mapsTogether, j -> {
                            Expr wAt = w.at(add(firstMap, j), term[0], term[1], term[2]);
                            kb.loop(block, p -> {
                                Expr at = add(mul(j, accLength), add(start, p));
                                kb.store(acc, at, mac(kb.load(acc, at), kb.load(planes.buffer(), add(tapStart, p)), wAt));
                            });
                        });
                    });
                });
                // One loop over the maps' rows, not a loop over maps around one over rows: LLVM unrolled the
                // column loop of such a nest and vectorized the row loop, with gathers and scatters. The bias
                // is read before the column test, which would otherwise make its read a masked gather.
                kb.loop(mapsTogether * out[0], mapRow -> {
                    Expr j = div(mapRow, out[0]), row = rem(mapRow, out[0]);
                    Expr map = add(firstMap, j);
                    Expr mapBias = bias == null ? null : kb.get(kb.local("bias", kb.load(bias, map)));
                    kb.loop(planeWidth, column -> kb.when(lt(column, out[1]), () -> {
                        Expr result = cast(ScalarType.REAL, kb.load(acc, add(mul(j, accLength), add(mul(row, planeWidth), column))));
                        if (mapBias != null) result = add(result, mapBias);
                        kb.store(y, flatIndex(y.shape(), n, map, row, column), result);
                    }));
                });
            }));
        });
    }

    /** The largest divisor of {@code n} that is at most {@code limit}. */
    private static long largestDivisorUpTo(long n, long limit) {
        for (long d = Math.min(n, limit); d > 1; d--) if (n % d == 0) return d;
        return 1;
    }
}
