package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
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
 * A tuned schedule of {@link Conv}: a 2-D convolution with constant weights as a matrix product with a
 * register-blocked inner kernel, as ONNX Runtime's packed GEMM computes it. The output of a group is a matrix of
 * output maps by positions on the padded planes' wide grid ({@link PaddedPlanes}); a tile of it, a few positions
 * by one or two vectors' worth of maps, is held in locals (registers) while it takes every term of its sums:
 * for each term (input channel, ky, kx) the tile's positions read one plane value each (the tap's offset is the
 * same for every position) and the tile's maps read one contiguous row of the weights, packed at compile time
 * into panels [maps of a tile][term][map in the tile] ({@link PackedWeights#panels}), so the term is a
 * broadcast per position and one multiply-add per position and vector of maps. Each output still sums its
 * terms in the reference order from +0 and rounds once (the padding's terms are the w*0 ONNX defines padding
 * by); maps beyond the last whole tile compute with zero weights and are not stored, as positions beyond the
 * grid and the grid's junk columns are not.
 *
 * <p>Threads divide the tiles of maps, so each thread reads only its own panels of weights.
 */
final class RegisterTiledConv {
    /** Positions a tile holds: with two vectors of maps, 24 accumulators, which x86-64's 32 vector registers keep. */
    private static final long POSITIONS = 12;
    /** Vectors of maps a tile holds at most. */
    private static final long MAP_VECTORS = 2;
    /** Fewer lanes than this and the tile would not be held in vectors: the padded planes' schedule is kept. */
    private static final long LEAST_LANES = 8;

    private RegisterTiledConv() {}

    /** Whether this schedule applies: two spatial axes, constant weights, at least a vector of maps a group. */
    static boolean fits(Conv.Shape s, boolean constantWeights, long lanes) {
        return constantWeights && lanes >= LEAST_LANES && s.window().rank() == 2 && s.mapsPerGroup() >= lanes;
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer x = kb.input(0);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long maps = s.mapsPerGroup();
        long channelsPerGroup = s.channelsPerGroup();
        long kernelHeight = window.kernelSize(0), kernelWidth = window.kernelSize(1);
        long terms = channelsPerGroup * kernelHeight * kernelWidth;
        long tileMaps = lanes * Math.min(MAP_VECTORS, (maps + lanes - 1) / lanes);
        long mapTiles = (maps + tileMaps - 1) / tileMaps;
        Buffer panels = kb.constant("panels", ScalarType.REAL, PackedWeights.panels(weights, s.groups(), maps, terms, tileMaps));
        PaddedPlanes planes = PaddedPlanes.of(kb, x, window, POSITIONS);
        long[] out = window.outputShape();
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {POSITIONS, tileMaps});
        kb.loop(s.batch(), n -> {
            planes.fill(kb, n, idx(0), s.channels());
            kb.loop(s.groups() * mapTiles, true, groupTile -> {
                Expr group = div(groupTile, mapTiles);
                Expr firstMap = mul(rem(groupTile, mapTiles), tileMaps);
                Expr panel = mul(groupTile, terms * tileMaps);
                kb.loop(planes.blocks(), block -> {
                    Expr start = mul(block, POSITIONS);
                    kb.loop(POSITIONS * tileMaps, i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
                    // One loop over the terms, not a nest over channels and taps: LLVM keeps the tile in registers
                    // across the iterations of the innermost loop only, and stores and reloads it around the others.
                    kb.loop(terms, term -> {
                        Expr channel = add(mul(group, channelsPerGroup), div(term, kernelHeight * kernelWidth));
                        Expr tapStart = add(planes.tap(channel, rem(div(term, kernelWidth), kernelHeight), rem(term, kernelWidth)), start);
                        Expr termAt = add(panel, mul(term, tileMaps));
                        for (int p = 0; p < POSITIONS; p++) {
                            Expr input = kb.load(planes.buffer(), add(tapStart, p));
                            long row = p * tileMaps;
                            kb.loop(tileMaps, m -> kb.store(acc, add(m, row), mac(kb.load(acc, add(m, row)), input, kb.load(panels, add(termAt, m)))));
                        }
                    });
                    kb.loops(new long[] {tileMaps, POSITIONS}, at -> {
                        Expr mapInGroup = add(firstMap, at[0]);
                        Expr map = add(mul(group, maps), mapInGroup);
                        Expr position = add(start, at[1]);
                        Expr row = div(position, planes.width()), column = rem(position, planes.width());
                        Expr stored = and(lt(row, out[0]), lt(column, out[1]));
                        kb.when(maps % tileMaps == 0 ? stored : and(lt(mapInGroup, maps), stored), () -> {
                            Expr result = cast(ScalarType.REAL, kb.load(acc, add(mul(at[1], tileMaps), at[0])));
                            if (bias != null) result = add(result, kb.load(bias, map));
                            kb.store(y, flatIndex(y.shape(), n, map, row, column), result);
                        });
                    });
                });
            });
        });
    }
}
