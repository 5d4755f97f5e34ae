package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * A 2-D convolution with stride 1 computed on padded planes. Each input channel is copied into a scratch
 * plane with its zero padding written out, {@code Wp = padLeft + W + padRight} elements a row. On that plane
 * the tap (ky, kx) of output (oy, ox) is at {@code (oy*Wp + ox) + (ky*Wp + kx)*dilation}: for every output
 * the same offset, so one tap of a whole block of outputs is one contiguous run, p = oy*Wp + ox over the
 * "wide grid" of OH rows of Wp columns. The last Wp - OW columns of each grid row are junk (windows that
 * wrap into the next row); they are computed and never stored.
 *
 * <p>The grid is cut into blocks of a few vectors' worth of outputs; a block's accumulators take every
 * term (input channel, ky, kx, in that order) before the next block starts, so they stay in registers
 * across the whole reduction instead of going through memory once per term. Each output still sums its
 * terms one after the other and rounds once; the padding's terms are the w*0 ONNX defines padding by
 * (adding them to an accumulator that starts at +0 changes nothing).
 */
final class PaddedPlaneConv {
    /** Outputs per block: enough independent accumulations to hide the adder's latency, few enough for registers. */
    private static final long BLOCK = 128;
    private static final long LANES = 16;

    private PaddedPlaneConv() {}

    /** Whether this strategy applies: two spatial axes, stride 1 on both. */
    static boolean fits(WindowGeometry window) {
        return window.rank() == 2 && window.stride(0) == 1 && window.stride(1) == 1;
    }

    static void lower(KernelBuilder kb, long batch, long channels, long groups, long mapsPerGroup, WindowGeometry window) {
        Buffer x = kb.input(0);
        Buffer w = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        long height = x.dim(2), width = x.dim(3);
        long kernelHeight = w.dim(2), kernelWidth = w.dim(3);
        long[] out = window.outputShape();
        long planeWidth = window.padBefore(1) + width + window.padAfter(1);
        long grid = out[0] * planeWidth;
        long blocks = (grid + BLOCK - 1) / BLOCK;
        long block = ((grid + blocks - 1) / blocks + LANES - 1) / LANES * LANES;
        // The last block may run past the grid, and its last taps read that far beyond the grid's rows.
        long reach = (kernelHeight - 1) * window.dilation(0) * planeWidth + (kernelWidth - 1) * window.dilation(1);
        long planeLength = blocks * block + reach;
        long channelsPerGroup = channels / groups;
        Buffer planes = kb.scratch("planes", ScalarType.REAL, new long[] {channels, planeLength});
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {blocks * block});
        kb.loop(batch, n -> {
            kb.loop(channels * planeLength, i -> kb.store(planes, i, constant(ScalarType.REAL, 0)));
            kb.loops(new long[] {channels, height, width}, at -> {
                Expr onPlane = add(mul(add(at[1], window.padBefore(0)), planeWidth), add(at[2], window.padBefore(1)));
                kb.store(planes, add(mul(at[0], planeLength), onPlane), kb.load(x, flatIndex(x.shape(), n, at[0], at[1], at[2])));
            });
            kb.loop(groups, group -> kb.loop(mapsPerGroup, mapInGroup -> {
                Expr map = add(mul(group, mapsPerGroup), mapInGroup);
                kb.loop(blocks, b -> {
                    Expr start = mul(b, block);
                    kb.loop(block, p -> kb.store(acc, add(start, p), constant(ScalarType.ACC, 0)));
                    kb.loops(new long[] {channelsPerGroup, kernelHeight, kernelWidth}, term -> {
                        Expr channel = add(mul(group, channelsPerGroup), term[0]);
                        Expr offset = add(mul(term[1], window.dilation(0) * planeWidth), mul(term[2], window.dilation(1)));
                        Expr tapStart = add(add(mul(channel, planeLength), start), offset);
                        Expr wAt = kb.load(w, flatIndex(w.shape(), map, term[0], term[1], term[2]));
                        kb.loop(block, p -> {
                            Expr at = add(start, p);
                            kb.store(acc, at, mac(kb.load(acc, at), kb.load(planes, add(tapStart, p)), wAt));
                        });
                    });
                });
                kb.loops(new long[] {out[0], planeWidth}, o -> kb.when(lt(o[1], out[1]), () -> {
                    Expr result = cast(ScalarType.REAL, kb.load(acc, add(mul(o[0], planeWidth), o[1])));
                    if (bias != null) result = add(result, kb.load(bias, map));
                    kb.store(y, flatIndex(y.shape(), n, map, o[0], o[1]), result);
                }));
            }));
        });
    }
}
