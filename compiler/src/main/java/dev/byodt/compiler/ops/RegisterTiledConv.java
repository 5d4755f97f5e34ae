package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import java.util.function.BiFunction;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * A tuned schedule of {@link Conv}: a 2-D convolution with constant weights as a matrix product in register
 * tiles ({@link RegisterTile}), the way ONNX Runtime's im2col and packed GEMM compute it, without the im2col
 * copy: the output of a group is a matrix of output positions by output maps, the positions read on the grid of
 * the group's padded planes ({@link PaddedPlanes}), where the term (input channel, ky, kx) of every position is
 * at the same offset from the position, so a tile's positions, constant offsets from its first
 * ({@link TilePositions}: blocks of output rows and columns, or runs along the grid where the stride is more than
 * 1), take one address a term. Maps beyond the last whole tile compute with zero weights and are not stored, as
 * positions beyond the output are not. Threads divide the tiles, each thread a run of them, map tile by map tile
 * (each map tile's positions tile after tile), so that each thread reads few panels of weights and a layer of
 * few maps still divides.
 */
final class RegisterTiledConv {
    /**
     * Vectors of sums a tile holds: 28 of AVX-512's 32 registers, the others for a term's weights and inputs; tiles of
     * 14 positions by two vectors of maps took ResNet-18's 14x14 layers in a tenth less time than 12 did.
     */
    private static final long MOST_SUMS = 28;
    /**
     * Sums a tile may hold and still find its inputs at a running address ({@link #tapSteps}): the other registers
     * hold the term's weights and the inputs LLVM then loads ahead. Tiles of 28 sums, so addressed, spilled them
     * (ResNet-18's stride-1 layers of 28x28 and 14x14 took twice as long); found by divisions, each input's address
     * comes late enough that they do not.
     */
    private static final long SUMS_BESIDE_EARLY_LOADS = 24;

    private RegisterTiledConv() {}

    /** Whether this schedule applies: two spatial axes, constant weights, tiles of the maps of a group. */
    static boolean fits(Conv.Shape s, boolean constantWeights, NodeArithmetic arithmetic) {
        return constantWeights && s.window().rank() == 2 && RegisterTile.fits(arithmetic, s.mapsPerGroup());
    }

    /**
     * How far each term's input is on a group's planes from the term before it's (the first term's from the tap (0, 0) of
     * the group's first channel): a constant the tile loop adds to the address of its inputs at each term, in place of
     * the divisions that find a term's channel, tap and stride phase (with stride 2 they were 28 of the 66
     * instructions a term of ResNet-18's layer2.0.conv1 took). A running address, not a table of offsets from the
     * tile's first position: from those LLVM made an address register for each position, and spilled the sums.
     */
    private static Buffer tapSteps(KernelBuilder kb, PaddedPlanes planes, long channels, long[] taps) {
        long[] steps = new long[Math.toIntExact(channels * taps[0] * taps[1])];
        long previous = 0;
        for (int term = 0; term < steps.length; term++) {
            long offset = planes.tapAt(term / (taps[0] * taps[1]), term / taps[1] % taps[0], term % taps[1]);
            steps[term] = offset - previous;
            previous = offset;
        }
        return kb.constant("tapSteps", ScalarType.I64, Tensor.ofLongs(new long[] {steps.length}, steps));
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long maps = s.mapsPerGroup();
        long channelsPerGroup = s.channelsPerGroup();
        long[] taps = {window.kernelSize(0), window.kernelSize(1)};
        long terms = channelsPerGroup * taps[0] * taps[1];
        long mapVectors = RegisterTile.columnsFor(lanes, maps) / lanes;
        TilePositions positions = TilePositions.of(window, PaddedPlanes.width(kb.input(0), window), MOST_SUMS / mapVectors);
        RegisterTile tile = RegisterTile.of(kb, lanes, positions.positions(), maps);
        long mapTiles = tile.columnTiles(maps);
        Buffer panels = tile.panels(kb, weights, s.groups(), maps, terms);
        PaddedPlanes planes = PaddedPlanes.of(kb, kb.input(0), window, positions.planeBlock());
        Buffer tapSteps = tile.rows() * mapVectors <= SUMS_BESIDE_EARLY_LOADS ? tapSteps(kb, planes, channelsPerGroup, taps) : null;
        kb.loop(s.batch(), n -> {
            // One group's tiles read only its channels' planes, so a convolution of several groups fills a group's
            // planes as its first tile comes: each thread fills those of the groups it computes, not all of them.
            Local filledGroup = s.groups() > 1 ? kb.local("filledGroup", idx(-1)) : null;
            if (filledGroup == null) planes.fill(kb, n, idx(0), s.channels());
            kb.loop(s.groups() * mapTiles * positions.tiles(), true, tileIndex -> {
                Expr groupTile = div(tileIndex, positions.tiles());
                Expr positionTile = rem(tileIndex, positions.tiles());
                Expr group = div(groupTile, mapTiles);
                if (filledGroup != null) {
                    kb.when(ne(group, kb.get(filledGroup)), () -> {
                        planes.fill(kb, n, mul(group, channelsPerGroup), channelsPerGroup);
                        kb.assign(filledGroup, group);
                    });
                }
                Expr firstMap = mul(rem(groupTile, mapTiles), tile.columns());
                Expr start = positions.firstOnGrid(kb, positionTile);
                Expr panelStart = tile.panelStart(groupTile, terms);
                // The input of a term for a position of the tile, given where the term's tap is for the tile's first.
                BiFunction<Expr, Integer, Expr> input = (tap, position) -> kb.load(planes.buffer(), add(tap, positions.offsetOnGrid(position)));
                // One loop over the terms, not a nest over channels and taps: LLVM keeps the tile in registers
                // across the iterations of the innermost loop only, and stores and reloads it around the others.
                if (tapSteps != null) {
                    Local tap = kb.local("tap", add(planes.tap(mul(group, channelsPerGroup), idx(0), idx(0)), start));
                    tile.sum(kb, terms, panels, panelStart, term -> kb.assign(tap, add(kb.get(tap), kb.load(tapSteps, term))),
                        (term, position) -> input.apply(kb.get(tap), position));
                } else {
                    tile.sum(kb, terms, panels, panelStart, (term, position) -> {
                        Expr channel = add(mul(group, channelsPerGroup), div(term, taps[0] * taps[1]));
                        return input.apply(add(planes.tap(channel, rem(div(term, taps[1]), taps[0]), rem(term, taps[1])), start), position);
                    });
                }
                // Positions outside, maps inside: where a position is, and whether it is stored, once.
                kb.loop(tile.rows(), p -> positions.whereStored(kb, positionTile, p, (row, column) -> kb.loop(tile.columns(), m -> {
                    Expr mapInGroup = add(firstMap, m);
                    Expr map = add(mul(group, maps), mapInGroup);
                    Runnable store = () -> {
                        Expr result = tile.result(kb, p, m);
                        if (bias != null) result = add(result, kb.load(bias, map));
                        kb.store(y, flatIndex(y.shape(), n, map, row, column), result);
                    };
                    if (maps % tile.columns() == 0) store.run();
                    else kb.when(lt(mapInGroup, maps), store);
                })));
            });
        });
    }
}
