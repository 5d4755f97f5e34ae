package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * A tuned schedule of {@link Conv}: a 2-D convolution over non-overlapping patches (the stride is the kernel, no
 * padding, no dilation, one group; a vision transformer's patch embedding, 32x32 of stride 32 in ViT-B/32) as the
 * matrix product of its patches by its maps that MatMul with constant weights computes ({@link RegisterTile#matrixProduct}):
 * a row per output position (batch by position), a term per (input channel, ky, kx) in the reference's order, the
 * input read where it is. Each patch is its own window, so nothing is copied first (the padded planes of
 * {@link RegisterTiledConv} are a copy of the whole input), and tiles of rows sharing a long panel of weights take it
 * in blocks of terms from the first-level cache, where {@link RegisterTiledConv}'s tiles of positions each read the
 * whole panel (ViT-B/32's 3,072 terms by 32 maps, 384 KB) again. Each output sums its terms from +0 in the
 * reference's order and is rounded once, then the bias is added: the reference nest's bits.
 */
final class PatchConv {
    private PatchConv() {}

    /** Whether this schedule applies: constant weights, two spatial axes, one group, windows that tile the input apart. */
    static boolean fits(Conv.Shape s, boolean constantWeights, NodeArithmetic arithmetic) {
        WindowGeometry window = s.window();
        if (!constantWeights || window.rank() != 2 || s.groups() != 1) return false;
        for (int axis = 0; axis < 2; axis++) {
            if (window.stride(axis) != window.kernelSize(axis) || window.dilation(axis) != 1 || window.padBefore(axis) != 0
                || window.padAfter(axis) != 0) {
                return false;
            }
        }
        return window.kernelSize(0) * window.kernelSize(1) > 1 && RegisterTile.fits(arithmetic, s.featureMaps());
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer x = kb.input(0);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        long[] out = s.window().outputShape();
        long[] in = s.inputSpatial();
        long kernelRows = s.window().kernelSize(0);
        long kernelColumns = s.window().kernelSize(1);
        long positions = out[0] * out[1];
        long taps = kernelRows * kernelColumns;
        // Where a row's patch starts plus where a term is in a patch: the first depends on the tile's row alone, the
        // second on the term alone, so LLVM computes each once a tile and once a term.
        RegisterTile.matrixProduct(kb, lanes, s.batch() * positions, s.channels() * taps, s.featureMaps(), weights, (row, term) -> {
            Expr position = rem(row, positions);
            Expr patch = add(mul(div(row, positions), s.channels() * in[0] * in[1]),
                add(mul(div(position, out[1]), kernelRows * in[1]), mul(rem(position, out[1]), kernelColumns)));
            Expr tap = rem(term, taps);
            Expr inPatch = add(mul(div(term, taps), in[0] * in[1]), add(mul(div(tap, kernelColumns), in[1]), rem(tap, kernelColumns)));
            return kb.load(x, add(patch, inPatch));
        }, (row, map, sum) -> {
            Expr result = bias == null ? sum : add(sum, kb.load(bias, map));
            kb.store(y, add(mul(add(mul(div(row, positions), s.featureMaps()), map), positions), rem(row, positions)), result);
        });
    }
}
