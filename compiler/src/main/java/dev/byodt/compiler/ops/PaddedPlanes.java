package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * The input channels of a 2-D convolution copied into a scratch buffer of planes with their zero padding written
 * out, so that one tap of a run of outputs is one contiguous run of a plane. With stride 1, a channel's plane is
 * its padded image, {@code width = padLeft + W + padRight} elements a row, and the tap (ky, kx) of output
 * (oy, ox) is at {@code (oy*width + ox) + (ky*width + kx)*dilation}: the same offset for every output, p =
 * oy*width + ox running over the "wide grid" of OH rows of {@code width} columns. With strides (sy, sx), a
 * channel has sy*sx planes, one per phase: the phase (a, b) holds the padded image's elements (i*sy + a,
 * j*sx + b) at (i, j), rows of {@code width = ceil(padded width / sx)}; the tap (ky, kx) of output (oy, ox), at
 * (oy*sy + ky*dy, ox*sx + kx*dx) in the padded image, is then on the plane of phase (ky*dy mod sy, kx*dx mod sx)
 * at (oy + ky*dy div sy, ox + kx*dx div sx): again the same offset for every output, on a grid of OH rows of
 * {@code width}. The last width - OW columns of each grid row are junk (windows that wrap into the next row);
 * schedules compute them and never store them. The grid is cut into {@link #blocks()} blocks of a given
 * length, the last of which may run past it: each plane is long enough for that block's last taps.
 */
record PaddedPlanes(Buffer buffer, WindowGeometry window, Buffer x, long width, long planeLength, long blocks, boolean oneChannel) {
    /** Planes for the input {@code x} (N x C x H x W) of a convolution in {@code window}, its grid in blocks of {@code blockLength}. */
    static PaddedPlanes of(KernelBuilder kb, Buffer x, WindowGeometry window, long blockLength) {
        return of(kb, x, window, blockLength, "planes", false);
    }

    /**
     * As {@link #of(KernelBuilder, Buffer, WindowGeometry, long)}, the scratch buffer named by {@code hint}, holding the
     * planes of one channel at a time where {@code oneChannel} (of the channel filled last, for a schedule that is done
     * with a channel's planes before it fills the next): a depthwise convolution's planes of every channel took
     * mobilenet_v2's 112x112 layers 5 MB of scratch each, written and read once, where one channel's stay in cache.
     */
    static PaddedPlanes of(KernelBuilder kb, Buffer x, WindowGeometry window, long blockLength, String hint, boolean oneChannel) {
        long paddedHeight = window.padBefore(0) + x.dim(2) + window.padAfter(0);
        long width = width(x, window);
        long grid = window.outputShape()[0] * width;
        long blocks = Math.ceilDiv(grid, blockLength);
        long reach = (window.kernelSize(0) - 1) * window.dilation(0) / window.stride(0) * width
            + (window.kernelSize(1) - 1) * window.dilation(1) / window.stride(1);
        long planeLength = Math.max(blocks * blockLength + reach, Math.ceilDiv(paddedHeight, window.stride(0)) * width);
        long planes = (oneChannel ? 1 : x.dim(1)) * window.stride(0) * window.stride(1);
        Buffer buffer = kb.scratch(hint, ScalarType.REAL, new long[] {planes, planeLength});
        return new PaddedPlanes(buffer, window, x, width, planeLength, blocks, oneChannel);
    }

    /**
     * Whether the planes of a convolution in {@code window} would be a copy of its input: 1x1, stride 1, no padding
     * (a pointwise convolution), each plane a channel as it is.
     */
    static boolean areTheInput(WindowGeometry window) {
        for (int axis = 0; axis < 2; axis++) {
            if (window.kernelSize(axis) != 1 || window.stride(axis) != 1 || window.padBefore(axis) != 0 || window.padAfter(axis) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The input {@code x} itself as the planes of a convolution whose planes {@link #areTheInput}: image n's channel
     * c is the plane n*C + c, so a schedule counts its channels from n*C and fills nothing. The grid is the image, no
     * longer: only schedules whose tiles compute outputs alone read it ({@link TilePositions}' blocks). The copy was
     * 3.4% of a profile of ResNet-50's pair of 1x1 layers at 14x14 (256 to 1024 channels and back), whose second
     * layer takes register tiles.
     */
    static PaddedPlanes input(Buffer x, WindowGeometry window) {
        return new PaddedPlanes(x, window, x, x.dim(3), x.dim(2) * x.dim(3), 1, false);
    }

    /** The length of a row of the planes of the input {@code x} of a convolution in {@code window}: the grid's width. */
    static long width(Buffer x, WindowGeometry window) { return width(x.dim(3), window); }

    /** The length of a row of the planes of an input {@code inputWidth} columns wide. */
    static long width(long inputWidth, WindowGeometry window) {
        return Math.ceilDiv(window.padBefore(1) + inputWidth + window.padAfter(1), window.stride(1));
    }

    /**
     * Emits the copy of image {@code n}'s channels [first, first + count) (one channel where the planes hold one) into
     * their planes, padding included: for each input row, the columns b, b + sx, ... of each column phase b that lie
     * in the input, one contiguous run of the phase's plane. Where every phase's column is in the input, one loop
     * takes the sx columns j*sx + b of each j together, and with strides LLVM vectorizes it before it may unroll it
     * ({@link KernelBuilder#vectorLoop}), as whole vectors of the row deinterleaved into the phases by permutes. A
     * loop a phase, which loads at a stride, or the one loop unrolled whole first, as O3 does rows of 56 or fewer
     * columns, became gathers: mobilenet_v2's stride-2 depthwise layers of 28x28 took 1.5 times as long. The few
     * columns at either end where some phase's column is in the padding are copied phase by phase.
     */
    void fill(KernelBuilder kb, Expr n, Expr first, long count) {
        long channelLength = phases() * planeLength;
        long sy = window.stride(0), sx = window.stride(1);
        long left = window.padBefore(1);
        if (oneChannel && count != 1) throw new IllegalArgumentException("planes of one channel filled with " + count);
        zeroPadding(kb, first, count);
        // The columns j of every phase b whose padded column j*sx + b is in the input: from the first j of phase 0 to
        // the last of phase sx - 1.
        long firstWhole = firstColumn(0), endWhole = Math.max(firstWhole, endColumn(sx - 1));
        kb.loops(new long[] {count, x.dim(2)}, at -> {
            Expr channel = add(first, at[0]);
            Expr row = add(at[1], window.padBefore(0));
            Expr rowOnPlanes = add(mul(add(mul(held(channel), phases()), mul(rem(row, sy), sx)), planeLength), mul(div(row, sy), width));
            BiConsumer<Long, Expr> copy = (phase, j) -> kb.store(buffer, add(add(rowOnPlanes, phase * planeLength), j),
                kb.load(x, flatIndex(x.shape(), n, channel, at[1], add(mul(j, sx), phase - left))));
            Consumer<Expr> wholeColumn = j -> {
                for (long b = 0; b < sx; b++) copy.accept(b, j);
            };
            // With one phase, a plain copy, which LLVM makes a memcpy.
            if (sx == 1) kb.loop(endWhole - firstWhole, k -> wholeColumn.accept(add(k, firstWhole)));
            else kb.vectorLoop(endWhole - firstWhole, k -> wholeColumn.accept(add(k, firstWhole)));
            for (long b = 0; b < sx; b++) {
                long phase = b;
                long before = Math.min(firstWhole, endColumn(b)), after = Math.max(endWhole, firstColumn(b));
                kb.loop(before - firstColumn(b), k -> copy.accept(phase, add(k, firstColumn(phase))));
                kb.loop(endColumn(b) - after, k -> copy.accept(phase, add(k, after)));
            }
        });
    }

    /**
     * Emits the zeroing of what {@link #fill} does not copy into the planes of channels [first, first + count): in each
     * phase's plane the rows above and below the input's, the plane's tail, and in the input's rows the columns left
     * and right of it. Zeroing the whole planes before the copy, a memset as long as the planes, took 1.4 to 3.1% of
     * resnet18's, mobilenet_v2's and regnet_x_400mf's time.
     */
    private void zeroPadding(KernelBuilder kb, Expr first, long count) {
        long sy = window.stride(0), sx = window.stride(1);
        kb.loop(count, c -> {
            for (long a = 0; a < sy; a++) {
                for (long b = 0; b < sx; b++) {
                    Expr plane = mul(add(mul(held(add(first, c)), phases()), a * sx + b), planeLength);
                    long top = firstRow(a), bottom = Math.max(top, endRow(a));
                    zero(kb, plane, 0, top * width);
                    zero(kb, plane, bottom * width, planeLength);
                    long left = firstColumn(b), right = endColumn(b);
                    if (left > 0 || right < width) {
                        kb.loop(bottom - top, i -> {
                            Expr row = add(plane, mul(add(i, top), width));
                            zero(kb, row, 0, left);
                            zero(kb, row, right, width);
                        });
                    }
                }
            }
        });
    }

    /** Emits the zeroing of the buffer's elements [at + from, at + to). */
    private void zero(KernelBuilder kb, Expr at, long from, long to) {
        kb.loop(to - from, k -> kb.store(buffer, add(at, add(k, from)), constant(ScalarType.REAL, 0)));
    }

    /** The first row i of phase a's planes whose padded row i*sy + a is in the input. */
    private long firstRow(long a) {
        return Math.ceilDiv(Math.max(0, window.padBefore(0) - a), window.stride(0));
    }

    /** One past the last row i of phase a's planes whose padded row i*sy + a is in the input. */
    private long endRow(long a) {
        long last = window.padBefore(0) + x.dim(2) - 1;
        return last < a ? 0 : (last - a) / window.stride(0) + 1;
    }

    /** The first column j of phase b's planes whose padded column j*sx + b is in the input. */
    private long firstColumn(long b) {
        return Math.ceilDiv(Math.max(0, window.padBefore(1) - b), window.stride(1));
    }

    /** One past the last column j of phase b's planes whose padded column j*sx + b is in the input. */
    private long endColumn(long b) {
        long last = window.padBefore(1) + x.dim(3) - 1;
        return last < b ? 0 : (last - b) / window.stride(1) + 1;
    }

    /** Where the tap (ky, kx) of grid position 0 is in the buffer, on the planes of {@code channel}. */
    Expr tap(Expr channel, Expr ky, Expr kx) {
        long sy = window.stride(0), sx = window.stride(1);
        Expr y = mul(ky, window.dilation(0)), x = mul(kx, window.dilation(1));
        Expr plane = add(mul(held(channel), phases()), add(mul(rem(y, sy), sx), rem(x, sx)));
        return add(mul(plane, planeLength), add(mul(div(y, sy), width), div(x, sx)));
    }

    /**
     * Where each term's tap is in the buffer for grid position 0, the terms of {@code channels} channels in the
     * reference's order (channel, ky, kx): {@link #tap} of constants.
     */
    long[] tapOffsets(long channels) {
        long kh = window.kernelSize(0), kw = window.kernelSize(1);
        long[] offsets = new long[Math.toIntExact(channels * kh * kw)];
        for (int term = 0; term < offsets.length; term++) {
            offsets[term] = ((Expr.IntConst) tap(idx(term / (kh * kw)), idx(term / kw % kh), idx(term % kw))).value();
        }
        return offsets;
    }

    /** Where the planes of {@code channel} are among the channels the buffer holds. */
    private Expr held(Expr channel) { return oneChannel ? idx(0) : channel; }

    private long phases() { return window.stride(0) * window.stride(1); }
}
