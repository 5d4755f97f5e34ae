package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * A tuned schedule of {@link Conv}: a 2-D convolution with constant weights and few terms a sum (a net's first layer:
 * 3 channels by 3x3 or 7x7 taps) as register tiles of up to 12 maps by a vector of one output row: the pointwise
 * tiles of {@link PointwiseConv}, on the grid of the input's padded planes ({@link PaddedPlanes}). On the planes,
 * whose phases undo the stride, a term's inputs for a run of an output row are contiguous, so each term is one vector
 * load and a broadcast weight per map, and each tile stores its results as vectors along the output's row.
 * {@link RegisterTiledConv} tiles positions by maps instead and stores each result on its own: with 27 terms a sum,
 * MobileNetV2's first layer spent more on those stores than on its multiply-adds. Which of the two a convolution
 * takes is by their count of multiply-adds, each store counted as {@link PointwiseConv}'s cost model counts it.
 * Runs of two vectors, as the pointwise tiles take, left a quarter of a 112-wide row's last pair empty: on
 * ResNet's 7x7 first layer they took 1.14 times as long as runs of one (each 12 multiply-adds, one load and 12
 * broadcasts a term), and MobileNetV2's 3x3 one 1.34 times.
 *
 * <p>A run past a row's last whole vector starts early, so that it ends on the row's last position: it recomputes
 * positions of the run before, with the same bits, and stores only its own (conditional stores, which LLVM makes
 * masked vector stores). Maps beyond the last whole tile of maps compute with zero weights and are not stored. Each
 * output sums its terms (channel, then the taps' rows and columns) from +0 in their order and is rounded once, then
 * the bias is added, as in the reference nest. Threads divide the tiles, each a run of them, the tiles of maps
 * innermost, so that a run's inputs are read from the first-level cache by every tile of maps.
 */
final class OutputRowConv {
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
        long rows = RegisterTile.evenRows(s.featureMaps());
        long own = out[0] * Math.ceilDiv(out[1], lanes) * lanes * Math.ceilDiv(s.featureMaps(), rows) * rows * terms(s);
        return own <= RegisterTiledConv.multiplyAddsWithStores(s, lanes);
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long[] out = window.outputShape();
        long maps = s.featureMaps();
        long terms = terms(s);
        RegisterTile tile = RegisterTile.of(kb, lanes, RegisterTile.evenRows(maps), lanes);
        long rows = tile.rows();
        long columns = tile.columns();
        long mapTiles = Math.ceilDiv(maps, rows);
        long runs = Math.ceilDiv(out[1], columns);
        Buffer panels = kb.constant("rowPanels", ScalarType.REAL, PackedWeights.panels(weights, 1, maps, terms, rows));
        // A run of an output row reads its taps on the grid, whose rows are the planes' width apart: blocks of one
        // position make the planes hold every tap of the grid's positions, and no further.
        PaddedPlanes planes = PaddedPlanes.of(kb, kb.input(0), window, 1);
        long[] offsets = planes.tapOffsets(s.channels());
        Buffer tapOffsets = kb.constant("tapOffsets", ScalarType.I64, Tensor.ofLongs(new long[] {offsets.length}, offsets));
        kb.loop(s.batch(), n -> {
            planes.fill(kb, n, idx(0), s.channels());
            kb.loop(out[0] * runs * mapTiles, true, index -> {
                Expr row = div(index, runs * mapTiles);
                Expr run = rem(div(index, mapTiles), runs);
                Expr mapTile = rem(index, mapTiles);
                Expr first = min(mul(run, columns), out[1] - columns);
                Expr recomputed = sub(mul(run, columns), first);
                Expr panelStart = mul(mapTile, terms * rows);
                Expr gridStart = add(mul(row, planes.width()), first);
                tile.sum(kb, terms, (sum, term, mapInTile, column) -> mac(sum,
                    kb.load(planes.buffer(), add(add(kb.load(tapOffsets, term), gridStart), column)),
                    kb.load(panels, add(add(panelStart, mul(term, rows)), mapInTile))), term -> { });
                kb.loop(rows, mapInTile -> {
                    Expr map = add(mul(mapTile, rows), mapInTile);
                    Expr outputStart = add(mul(add(mul(add(mul(n, maps), map), out[0]), row), out[1]), first);
                    tile.storeRow(kb, mapInTile, y, outputStart, out[1] % columns == 0 ? null : recomputed, map, maps, bias, map);
                });
            });
        });
    }

    private static long terms(Conv.Shape s) { return s.channels() * s.window().kernelSize(0) * s.window().kernelSize(1); }
}
