package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * A tuned schedule of {@link Conv}: a 2-D convolution with constant weights and few terms a sum (a net's first layer:
 * 3 channels by 3x3 or 7x7 taps) as register tiles of a few maps by a vector of each of a few output rows: the
 * pointwise tiles of {@link PointwiseConv}, on the grid of the input's padded planes ({@link PaddedPlanes}). On the
 * planes, whose phases undo the stride, a term's inputs for a run of an output row are contiguous, so each term is
 * one vector load a row and a broadcast weight a map, and each tile stores its results as vectors along the output's
 * rows. {@link RegisterTiledConv} tiles positions by maps instead and stores each result on its own: with 27 terms a
 * sum, MobileNetV2's first layer spent more on those stores than on its multiply-adds. Which of the two a
 * convolution takes is by their count of multiply-adds, each store counted as {@link PointwiseConv}'s cost model
 * counts it.
 *
 * <p>With AVX-512's 32 registers a tile is 8 maps by 3 output rows, 24 accumulators: each term 3 loads and 8
 * broadcasts for 24 multiply-adds. A tile of 12 maps by one vector took 12 broadcasts and a load for 12, and ran
 * ResNet's 7x7 first layer at 62% of the machine's multiply-adds; two vectors along one row instead left a quarter
 * of a 112-wide row's last pair empty (1.14 times as long on that layer, 1.34 on MobileNetV2's 3x3). With fewer
 * lanes (AVX2's 16 registers) a tile is up to 12 maps by one row.
 *
 * <p>A run past a row's last whole vector starts early, so that it ends on the row's last position, and so does a
 * last tile of rows past the last row: they recompute outputs of the tile before, with the same bits, and store only
 * their own (conditional stores, which LLVM makes masked vector stores). Maps beyond the last whole tile of maps
 * compute with zero weights and are not stored. Each output sums its terms (channel, then the taps' rows and
 * columns) from +0 in their order and is rounded once, then the bias is added, as in the reference nest. Threads
 * divide the tiles, each a run of them, the tiles of maps innermost, so that a run's inputs are read from the
 * first-level cache by every tile of maps.
 */
final class OutputRowConv {
    /** The lanes from which a tile holds several output rows: AVX-512's, whose 32 registers hold 24 accumulators. */
    private static final long LANES_FOR_ROWS = 16;
    /** The accumulators of a tile of several output rows. */
    private static final long MOST_ACCUMULATORS = 24;
    /** The maps of a tile of several output rows at most: 8, so that 24 accumulators are 3 rows. */
    private static final long MOST_MAPS_WITH_ROWS = 8;

    private OutputRowConv() {}

    /**
     * Whether this schedule applies: one group, constant weights, output rows of at least a vector, and no more
     * multiply-adds, with what its tiles recompute, than {@link RegisterTiledConv} takes with its stores.
     */
    static boolean fits(Conv.Shape s, boolean constantWeights, NodeArithmetic arithmetic) {
        WindowGeometry window = s.window();
        if (!constantWeights || window.rank() != 2 || s.groups() != 1) return false;
        long[] out = window.outputShape();
        if (!RegisterTile.fits(arithmetic, out[1]) || !RegisterTiledConv.fits(s, true, arithmetic)) return false;
        long lanes = arithmetic.tileLanes();
        long tileMaps = tileMaps(s.featureMaps(), lanes);
        long tileRows = tileRows(tileMaps, out[0], lanes);
        long own = Math.ceilDiv(out[0], tileRows) * tileRows * Math.ceilDiv(out[1], lanes) * lanes
            * Math.ceilDiv(s.featureMaps(), tileMaps) * tileMaps * terms(s);
        return own <= RegisterTiledConv.multiplyAddsWithStores(s, lanes);
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long[] out = window.outputShape();
        long maps = s.featureMaps();
        long terms = terms(s);
        long tileMaps = tileMaps(maps, lanes);
        long tileRows = tileRows(tileMaps, out[0], lanes);
        RegisterTile tile = RegisterTile.ofWidth(kb, tileMaps * tileRows, lanes);
        long mapTiles = Math.ceilDiv(maps, tileMaps);
        long rowTiles = Math.ceilDiv(out[0], tileRows);
        long runs = Math.ceilDiv(out[1], lanes);
        Buffer panels = kb.constant("rowPanels", ScalarType.REAL, PackedWeights.panels(weights, 1, maps, terms, tileMaps));
        // A run of an output row reads its taps on the grid, whose rows are the planes' width apart: blocks of one
        // position make the planes hold every tap of the grid's positions, and no further.
        PaddedPlanes planes = PaddedPlanes.of(kb, kb.input(0), window, 1);
        long[] offsets = planes.tapOffsets(s.channels());
        Buffer tapOffsets = kb.constant("tapOffsets", ScalarType.I64, Tensor.ofLongs(new long[] {offsets.length}, offsets));
        kb.loop(s.batch(), n -> {
            planes.fill(kb, n, idx(0), s.channels());
            kb.loop(rowTiles * runs * mapTiles, true, index -> {
                Expr ownFirstRow = mul(div(index, runs * mapTiles), tileRows);
                Expr firstRow = min(ownFirstRow, out[0] - tileRows);
                Expr run = rem(div(index, mapTiles), runs);
                Expr mapTile = rem(index, mapTiles);
                Expr first = min(mul(run, lanes), out[1] - lanes);
                Expr recomputed = sub(mul(run, lanes), first);
                Expr panelStart = mul(mapTile, terms * tileMaps);
                Expr gridStart = add(mul(firstRow, planes.width()), first);
                // The tile's rows are its maps' output rows, map by map: each map's broadcast weight serves its rows
                // one after the other, so that one register holds it (map by map across the rows, the 8 of them and
                // the 24 sums did not fit the 32 registers).
                tile.sum(kb, terms, (sum, term, inTile, column) -> mac(sum,
                    kb.load(planes.buffer(), add(add(kb.load(tapOffsets, term), add(gridStart, inTile % tileRows * planes.width())), column)),
                    kb.load(panels, add(add(panelStart, mul(term, tileMaps)), inTile / tileRows))), term -> { });
                for (int inTile = 0; inTile < tileMaps * tileRows; inTile++) {
                    Expr map = add(mul(mapTile, tileMaps), inTile / tileRows);
                    Expr row = add(firstRow, inTile % tileRows);
                    Expr outputStart = add(mul(add(mul(add(mul(n, maps), map), out[0]), row), out[1]), first);
                    Expr mapStored = maps % tileMaps == 0 ? null : lt(map, maps);
                    Expr rowStored = out[0] % tileRows == 0 ? null : ge(row, ownFirstRow);
                    Expr stored = mapStored == null ? rowStored : rowStored == null ? mapStored : and(mapStored, rowStored);
                    tile.storeRow(kb, idx(inTile), y, outputStart, out[1] % lanes == 0 ? null : recomputed, stored, bias, map);
                }
            });
        });
    }

    /** The maps of a tile, as even as whole maps make the fewest tiles. */
    private static long tileMaps(long maps, long lanes) {
        return lanes >= LANES_FOR_ROWS ? RegisterTile.evenRows(maps, MOST_MAPS_WITH_ROWS) : RegisterTile.evenRows(maps);
    }

    /** The output rows of a tile of {@code tileMaps} maps, of {@code rows} output rows. */
    private static long tileRows(long tileMaps, long rows, long lanes) {
        return lanes >= LANES_FOR_ROWS ? Math.max(1, Math.min(rows, MOST_ACCUMULATORS / tileMaps)) : 1;
    }

    private static long terms(Conv.Shape s) { return s.channels() * s.window().kernelSize(0) * s.window().kernelSize(1); }
}
