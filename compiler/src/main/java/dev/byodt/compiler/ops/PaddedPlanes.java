package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * The input channels of a stride-1 2-D convolution copied into a scratch buffer of planes with their zero padding
 * written out, {@code width = padLeft + W + padRight} elements a row. On such a plane the tap (ky, kx) of output
 * (oy, ox) is at {@code (oy*width + ox) + (ky*width + kx)*dilation}: the same offset for every output, so one
 * tap of a run of outputs is one contiguous run of the plane, p = oy*width + ox over the "wide grid" of OH rows
 * of {@code width} columns. The last width - OW columns of each grid row are junk (windows that wrap into the
 * next row); schedules compute them and never store them. The grid is cut into {@link #blocks()} blocks of a
 * given length, the last of which may run past it: each plane is long enough for that block's last taps.
 */
record PaddedPlanes(Buffer buffer, WindowGeometry window, Buffer x, long width, long length, long blocks) {
    /** Planes for the input {@code x} (N x C x H x W) of a convolution in {@code window}, its grid in blocks of {@code blockLength}. */
    static PaddedPlanes of(KernelBuilder kb, Buffer x, WindowGeometry window, long blockLength) {
        long width = window.padBefore(1) + x.dim(3) + window.padAfter(1);
        long grid = window.outputShape()[0] * width;
        long blocks = (grid + blockLength - 1) / blockLength;
        long reach = (window.kernelSize(0) - 1) * window.dilation(0) * width + (window.kernelSize(1) - 1) * window.dilation(1);
        long length = blocks * blockLength + reach;
        Buffer buffer = kb.scratch("planes", ScalarType.REAL, new long[] {x.dim(1), length});
        return new PaddedPlanes(buffer, window, x, width, length, blocks);
    }

    /** Emits the copy of image {@code n}'s channels [first, first + count) into their planes, padding included. */
    void fill(KernelBuilder kb, Expr n, Expr first, long count) {
        kb.loop(count * length, i -> kb.store(buffer, add(mul(first, length), i), constant(ScalarType.REAL, 0)));
        kb.loops(new long[] {count, x.dim(2), x.dim(3)}, at -> {
            Expr channel = add(first, at[0]);
            Expr onPlane = add(mul(add(at[1], window.padBefore(0)), width), add(at[2], window.padBefore(1)));
            kb.store(buffer, add(mul(channel, length), onPlane), kb.load(x, flatIndex(x.shape(), n, channel, at[1], at[2])));
        });
    }

    /** Where the tap (ky, kx) of grid position 0 is in the buffer, on the plane of {@code channel}. */
    Expr tap(Expr channel, Expr ky, Expr kx) {
        return add(mul(channel, length), add(mul(ky, window.dilation(0) * width), mul(kx, window.dilation(1))));
    }
}
