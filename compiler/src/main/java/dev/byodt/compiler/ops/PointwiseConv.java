package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * A tuned schedule of {@link Conv}: a pointwise convolution (1x1, no padding: MobileNet's, EfficientNet's,
 * ResNet-50's and DenseNet's bottlenecks, and at a stride ResNet's downsampling to 28x28) with constant weights, as
 * the matrix product of each group's maps x channels weights by its channels x positions input, positions being
 * NCHW's contiguous axis, the way ONNX Runtime computes it. At a stride, the output's positions are read from their
 * places in the input into the panel below, always (a 1x1 of stride 2 from 256 channels to 512 at 56x56 ran 1.23
 * times as fast as on the padded planes of {@link OutputRowConv}, which copied every phase of the input and
 * computed a fifth more positions than it kept). Register tiles ({@link RegisterTile}) of a few maps by one or two
 * vectors of positions take, for each term (an input channel), one weight per map, broadcast (the weights packed at
 * compile time so that a tile's are neighbours, {@link PackedWeights#panels}), and one vector of the input per
 * vector of positions, from a panel holding the tile's positions of every channel, side by side, where many channels
 * and tiles of maps read it (see {@link #LEAST_CHANNELS_TO_COPY}). Read where they were, a term's vectors lay a row
 * of the input beyond the last term's (a page every five terms at 14x14), and the tiles waited on those loads: with
 * the panel, ResNet-50's 14x14 bottleneck layers (256 channels to 1,024 and back) ran 1.04 to 1.06 times as fast,
 * resnet50, regnet_x_400mf and densenet121 1.02 to 1.06. Each tile's results are stored as whole vectors along the
 * output's rows.
 * {@link RegisterTiledConv} tiles positions by maps instead, which stores each result on its own and first copies
 * the input into padded planes; it is kept where so few positions would leave this schedule's vectors partly empty
 * that it computes less.
 *
 * <p>A tile of positions past the last whole one starts early, so that it ends on the last position: it
 * recomputes positions of the tile before it, with the same bits, and stores only its own: each row of the tile
 * is stored by a loop over the tile's whole width whose stores are conditional, which LLVM makes into masked
 * vector stores. (A loop over the tile's own positions alone has a trip count known only at run time, which the
 * vectorizer gave a vector loop, a vector remainder and a scalar remainder for each of the tile's rows: half of the
 * function's code, and a third of the O3 time of mobilenet_v2's 112x112 and 56x56 layers.) Maps beyond the last
 * whole tile of maps compute with zero weights and are not stored. Each output sums its channels from +0 in their
 * order and is rounded once, then the bias is added, as in the reference nest. Threads divide the tiles, each a run
 * of them, tile of positions by tile of positions, the maps innermost: a thread copies a tile of positions' panel
 * when its run comes to that tile (a local says which tile of which image and group its panel holds, so a run that
 * starts among a tile's maps copies it too), and reads the panel from cache for every tile of maps. Where a row of
 * the input takes a page or more (56x56 positions and more), the copy (or, where the tiles read the input in place,
 * the first tile of maps at each term) prefetches each channel's input for the next tile of positions: each
 * channel's row is a stream of its own, more streams than the hardware's prefetchers follow, and the loads waited on
 * the third-level cache (a quarter of the time of mobilenet_v2's projection of 144 channels at 56x56).
 */
final class PointwiseConv {
    /**
     * What an output stored on its own, by {@link RegisterTiledConv}, costs: about two cycles, four vectors'
     * multiply-adds, as a tile's stores each write a line of their own (one position's maps lie a plane apart). Set
     * by single 1x1 layers timed both ways: with 2, mobilenet_v2's 160 channels to 960 at 7x7 took tiles of
     * positions by maps and ran 0.9 times as fast as in pointwise tiles; with 4, nine of ten such layers of
     * mobilenet_v2, RegNet and ResNet-50 take the faster of the two (320 channels to 1,280 at 7x7 takes tiles of
     * positions by maps, 0.94 to 0.98 times as fast).
     */
    static final long STORE_IN_MULTIPLY_ADD_VECTORS = 4;

    /**
     * Bytes of a page: the hardware's prefetchers follow a stream within a page and a few dozen streams at once, so
     * input rows of a page or more, each a stream of its own, are prefetched by the kernel.
     */
    private static final long PAGE_BYTES = 4096;

    /**
     * Tiles of maps a tile of positions has at least for its input to be copied into a panel: the copy reads and
     * writes the input once more, repaid where several tiles of maps read the panel. With 2 (mobilenet_v2's
     * projection of 144 channels to 24 at 56x56) the copy made the layer pair 1.1 times as slow.
     */
    private static final long LEAST_MAP_TILES_TO_COPY = 4;

    /**
     * Channels a group has at least for its input to be copied into a panel: a tile's few rows of input, read where
     * they are, stay in the first-level cache (mobilenet_v2's expansion of 24 channels to 144 at 56x56 ran 0.97
     * times as fast with the copy; the layer pairs of 64 and 256 channels, 96 and 576, 128 and 512, 1.04 to 1.10
     * times as fast).
     */
    private static final long LEAST_CHANNELS_TO_COPY = 32;

    private PointwiseConv() {}

    /**
     * Whether this schedule applies: a pointwise 2-D convolution with constant weights, tiles at least a vector of
     * positions wide, and fewer multiply-adds and stores than {@link RegisterTiledConv}'s tiles would take.
     */
    static boolean fits(Conv.Shape s, boolean constantWeights, NodeArithmetic arithmetic) {
        WindowGeometry window = s.window();
        if (!constantWeights || window.rank() != 2 || !pointwise(window)) return false;
        long positions = positions(s);
        if (!RegisterTile.fits(arithmetic, positions)) return false;
        long lanes = arithmetic.tileLanes();
        // At a stride, only where the output's rows take a vector (those OutputRowConv would take): at 14x14,
        // ResNet-50's 512 channels to 1,024 of stride 2 ran 1.12 times as long as in tiles of positions by maps.
        if (!PaddedPlanes.areTheInput(window) && window.outputShape()[1] < lanes) return false;
        long maps = s.mapsPerGroup();
        long tileColumns = RegisterTile.columnsWithin(lanes, positions);
        long rows = RegisterTile.evenRows(maps);
        long own = Math.ceilDiv(positions, tileColumns) * tileColumns * Math.ceilDiv(maps, rows) * rows * s.channelsPerGroup() * s.groups();
        return !RegisterTiledConv.fits(s, true, arithmetic) || own <= RegisterTiledConv.multiplyAddsWithStores(s, lanes);
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer x = kb.input(0);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        long maps = s.mapsPerGroup();
        long channels = s.channelsPerGroup();
        long positions = positions(s);
        long inputPositions = s.inputSpatial()[0] * s.inputSpatial()[1];
        boolean strided = !PaddedPlanes.areTheInput(s.window());
        RegisterTile tile = RegisterTile.of(kb, lanes, RegisterTile.evenRows(maps), RegisterTile.columnsWithin(lanes, positions));
        long rows = tile.rows();
        long columns = tile.columns();
        long mapTiles = Math.ceilDiv(maps, rows);
        long positionTiles = Math.ceilDiv(positions, columns);
        boolean prefetches = !strided && positions * Float.BYTES >= PAGE_BYTES;
        Buffer panels = kb.constant("mapPanels", ScalarType.REAL, PackedWeights.panels(weights, s.groups(), maps, channels, rows));
        boolean copiesInput = strided || mapTiles >= LEAST_MAP_TILES_TO_COPY && channels >= LEAST_CHANNELS_TO_COPY;
        Buffer inputPanel = copiesInput ? kb.scratch("inputPanel", ScalarType.REAL, new long[] {channels * columns}) : null;
        Local copiedTile = copiesInput ? kb.local("copiedPositionTile", idx(-1)) : null;
        kb.loop(s.batch(), n -> kb.loop(s.groups() * positionTiles * mapTiles, true, index -> {
            Expr group = div(index, positionTiles * mapTiles);
            Expr positionTile = rem(div(index, mapTiles), positionTiles);
            Expr mapTile = rem(index, mapTiles);
            Expr first = min(mul(positionTile, columns), positions - columns);
            Expr recomputed = sub(mul(positionTile, columns), first);
            Expr panelStart = mul(add(mul(group, mapTiles), mapTile), channels * rows);
            Expr inputStart = mul(add(mul(n, s.channels()), mul(group, channels)), inputPositions);
            // Where channel c's run of the tile's positions starts in the input, and the next tile's prefetched.
            Function<Expr, Expr> inputRow = channel -> add(add(inputStart, mul(channel, inputPositions)), first);
            Consumer<Expr> prefetchNextTile = channel -> RegisterTile.prefetchLines(kb, x, add(inputRow.apply(channel), columns), columns);
            // Where the input of channel c at column p of the tile is: along the run, or at the window's stride.
            BiFunction<Expr, Expr, Expr> inputAt = strided
                ? (channel, column) -> add(add(inputStart, mul(channel, inputPositions)), inputOffset(s, add(first, column)))
                : (channel, column) -> add(inputRow.apply(channel), column);
            // Term (channel) t's input at column c of the tile, in the panel or where it is.
            BiFunction<Expr, Expr, Expr> input;
            Consumer<Expr> beforeTerm = term -> { };
            if (copiesInput) {
                Expr imagePositionTile = add(mul(n, s.groups() * positionTiles), div(index, mapTiles));
                kb.when(ne(kb.get(copiedTile), imagePositionTile), () -> {
                    kb.loop(channels, channel -> {
                        if (prefetches) prefetchNextTile.accept(channel);
                        kb.vectorLoop(columns, column ->
                            kb.store(inputPanel, add(mul(channel, columns), column), kb.load(x, inputAt.apply(channel, column))));
                    });
                    kb.assign(copiedTile, imagePositionTile);
                });
                input = (term, column) -> kb.load(inputPanel, add(mul(term, columns), column));
            } else {
                input = (term, column) -> kb.load(x, inputAt.apply(term, column));
                if (prefetches) beforeTerm = term -> kb.when(eq(mapTile, idx(0)), () -> prefetchNextTile.accept(term));
            }
            tile.sum(kb, channels, (sum, term, row, column) -> mac(sum, input.apply(term, column),
                kb.load(panels, add(add(panelStart, mul(term, rows)), row))), beforeTerm);
            kb.loop(rows, row -> {
                Expr mapInGroup = add(mul(mapTile, rows), row);
                Expr map = add(mul(group, maps), mapInGroup);
                Expr outputStart = add(mul(add(mul(n, s.featureMaps()), map), positions), first);
                tile.storeRow(kb, row, y, outputStart, positions % columns == 0 ? null : recomputed, maps % rows == 0 ? null : lt(mapInGroup, maps),
                    bias, map);
            });
        }));
    }

    /** The output's positions, a row of the matrix product. */
    private static long positions(Conv.Shape s) {
        long[] out = s.window().outputShape();
        return out[0] * out[1];
    }

    /** Whether the window is a pointwise one: 1x1, no padding, any stride. */
    private static boolean pointwise(WindowGeometry window) {
        for (int axis = 0; axis < 2; axis++) {
            if (window.kernelSize(axis) != 1 || window.padBefore(axis) != 0 || window.padAfter(axis) != 0) return false;
        }
        return true;
    }

    /** Where output position {@code position}'s input is in a channel's plane, at the window's strides. */
    private static Expr inputOffset(Conv.Shape s, Expr position) {
        long outputColumns = s.window().outputShape()[1];
        return add(mul(div(position, outputColumns), s.window().stride(0) * s.inputSpatial()[1]),
            mul(rem(position, outputColumns), s.window().stride(1)));
    }
}
