package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import java.util.function.BiFunction;
import java.util.function.Consumer;

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
     * Vectors of maps a tile takes at most: three (9 positions by 48 maps) where they leave no more zero maps than two
     * would. RegNet's 1x1 convolutions of 384 channels at 7x7 so take tiles of 7 positions, one output row, where
     * two vectors took 14 positions, 56 for 49, and pointwise tiles 64: 1.2 times as fast as pointwise tiles, 1.07
     * times as fast as two vectors of maps.
     */
    private static final long MOST_MAP_VECTORS = 3;

    /**
     * Bytes of the second-level cache of a core. Where a convolution's packed weights take more, every tile prefetches
     * each term's weights {@link RegisterTile#prefetchTerm a page ahead}: at a batch of 1, ResNet-18's 3x3 layers of
     * 512 channels at 7x7 (9.4 MB of weights) and of 256 at 14x14 (2.4 MB) and ResNet-50's 1x1 layers of 512 and 2048
     * channels at 7x7 ran 1.08 to 1.18 times as fast so, and a 3x3 of stride 2 from 256 channels to 512 1.05, while
     * layers whose weights the cache holds (64 channels at 56x56, 1 MB at 14x14, RegNet's groups) ran 2 to 6% slower
     * for the prefetches' instructions. Prefetching in the first tile of each tile of maps only, which reads the
     * weights from beyond the cache, kept the gain at 14x14 and lost it at 7x7.
     */
    static final long SECOND_LEVEL_CACHE_BYTES = 2 * 1024 * 1024;

    private RegisterTiledConv() {}

    /** Whether this schedule applies: two spatial axes, constant weights, tiles of the maps of a group. */
    static boolean fits(Conv.Shape s, boolean constantWeights, NodeArithmetic arithmetic) {
        return constantWeights && s.window().rank() == 2 && RegisterTile.fits(arithmetic, s.mapsPerGroup());
    }

    /**
     * How far each term's input is on a group's planes from the term before it's (the first term's from the tap (0, 0) of
     * the group's first channel), for a strided convolution: a constant the tile loop adds to the address of its
     * inputs at each term, in place of the divisions that find a term's channel, tap and stride phase (with stride 2
     * they were 28 of the 66 instructions a term of ResNet-18's layer2.0.conv1 took). A running address, not a table
     * of offsets from the tile's first position: from those LLVM made an address register for each position, and
     * spilled the sums. Not a nest over channels and taps, whose address changes phase plane from tap to tap:
     * layer2.0.conv1 so took 3 to 10% more time.
     */
    private static Buffer tapSteps(KernelBuilder kb, PaddedPlanes planes, long channels) {
        long[] steps = planes.tapOffsets(channels);
        for (int term = steps.length - 1; term > 0; term--) steps[term] -= steps[term - 1];
        return kb.constant("tapSteps", ScalarType.I64, Tensor.ofLongs(new long[] {steps.length}, steps));
    }

    /**
     * The multiply-adds of an image's tiles ({@link #lower}'s, with their zero maps and recomputed positions), each
     * result's store counted as {@link PointwiseConv#STORE_IN_MULTIPLY_ADD_VECTORS} vectors of them: what the
     * schedules of tiles of maps by positions weigh against.
     */
    static long multiplyAddsWithStores(Conv.Shape s, long lanes) {
        long mapColumns = mapColumns(lanes, s.mapsPerGroup());
        TilePositions positions = TilePositions.of(s.window(), PaddedPlanes.width(s.inputSpatial()[1], s.window()),
            MOST_SUMS / (mapColumns / lanes));
        long[] out = s.window().outputShape();
        long terms = s.channelsPerGroup() * s.window().kernelSize(0) * s.window().kernelSize(1);
        long tiles = s.groups() * positions.tiles() * ((s.mapsPerGroup() + mapColumns - 1) / mapColumns);
        return tiles * positions.positions() * mapColumns * terms
            + PointwiseConv.STORE_IN_MULTIPLY_ADD_VECTORS * lanes * out[0] * out[1] * s.featureMaps();
    }

    /**
     * The maps a tile takes: the whole vectors, at most {@link #MOST_MAP_VECTORS}, whose tiles leave the fewest zero
     * maps past a group's last; of those that leave as few, the widest (two vectors of 64 maps, not one).
     */
    private static long mapColumns(long lanes, long maps) {
        long best = lanes;
        long fewestComputed = Long.MAX_VALUE;
        for (long vectors = 1; vectors <= Math.min(MOST_MAP_VECTORS, Math.ceilDiv(maps, lanes)); vectors++) {
            long columns = vectors * lanes;
            long computed = Math.ceilDiv(maps, columns) * columns;
            if (computed <= fewestComputed) {
                best = columns;
                fewestComputed = computed;
            }
        }
        return best;
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long maps = s.mapsPerGroup();
        long channelsPerGroup = s.channelsPerGroup();
        long[] taps = {window.kernelSize(0), window.kernelSize(1)};
        long terms = channelsPerGroup * taps[0] * taps[1];
        long mapColumns = mapColumns(lanes, maps);
        TilePositions positions = TilePositions.of(window, PaddedPlanes.width(kb.input(0), window), MOST_SUMS / (mapColumns / lanes));
        RegisterTile tile = RegisterTile.ofWidth(kb, positions.positions(), mapColumns);
        long mapTiles = tile.columnTiles(maps);
        Buffer panels = tile.panels(kb, weights, s.groups(), maps, terms);
        boolean readsInput = PaddedPlanes.areTheInput(window);
        PaddedPlanes planes = readsInput ? PaddedPlanes.input(kb.input(0), window) : PaddedPlanes.of(kb, kb.input(0), window, positions.planeBlock());
        boolean strided = window.stride(0) > 1 || window.stride(1) > 1;
        Buffer tapSteps = strided ? tapSteps(kb, planes, channelsPerGroup) : null;
        boolean prefetches = panels.size() * Float.BYTES > SECOND_LEVEL_CACHE_BYTES;
        kb.loop(s.batch(), n -> {
            // One group's tiles read only its channels' planes, so a convolution of several groups fills a group's
            // planes as its first tile comes: each thread fills those of the groups it computes, not all of them.
            Local filledGroup = s.groups() > 1 && !readsInput ? kb.local("filledGroup", idx(-1)) : null;
            if (filledGroup == null && !readsInput) planes.fill(kb, n, idx(0), s.channels());
            // Image n's first channel on the planes: the input's n*C where the planes are the input.
            Expr imageChannels = readsInput ? mul(n, s.channels()) : idx(0);
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
                Consumer<Expr> prefetch = k -> {
                    if (prefetches) tile.prefetchTerm(kb, panels, panelStart, k);
                };
                // The input of a term for a position of the tile, given where the term's tap is for the tile's first.
                BiFunction<Expr, Integer, Expr> input = (tap, position) -> kb.load(planes.buffer(), add(tap, positions.offsetOnGrid(position)));
                if (strided) {
                    Local tap = kb.local("tap", add(planes.tap(add(imageChannels, mul(group, channelsPerGroup)), idx(0), idx(0)), start));
                    tile.sum(kb, terms, panels, panelStart, term -> {
                        kb.assign(tap, add(kb.get(tap), kb.load(tapSteps, term)));
                        prefetch.accept(term);
                    }, (term, position) -> input.apply(kb.get(tap), position));
                } else {
                    // A nest over channel, ky and kx, in the terms' order, whose inputs LLVM finds by running
                    // addresses (a term is two weight loads, a broadcast a position and its multiply-adds). One loop
                    // over the terms found each term's input by dividing the term, 8 instructions a term, 5 in a chain
                    // before its first broadcast: ResNet-18's 3x3 layers of 64 channels at 56x56 and of 256 at 14x14,
                    // RegNet's grouped ones and layer4's 7x7 ones run 1.06 to 1.22 times as fast so.
                    tile.zeroSums(kb);
                    kb.loop(channelsPerGroup, c -> kb.loop(taps[0], ky -> kb.loop(taps[1], kx -> {
                        Expr tap = add(planes.tap(add(imageChannels, add(mul(group, channelsPerGroup), c)), ky, kx), start);
                        Expr k = add(mul(add(mul(c, taps[0]), ky), taps[1]), kx);
                        prefetch.accept(k);
                        tile.accumulate(kb, k, panels, panelStart,
                            (term, position) -> input.apply(tap, position));
                    })));
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
