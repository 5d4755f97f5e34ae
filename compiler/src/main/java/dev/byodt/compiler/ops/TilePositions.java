package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.function.BiConsumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * The output positions of each register tile of a convolution ({@link RegisterTiledConv}) on the grid of its padded
 * planes ({@link PaddedPlanes}, {@code width} columns a row, the last {@code width - OW} of them junk): every position
 * of a tile a constant offset from the tile's first, so a tile's loads of one term take one address register.
 * Either runs along the grid, which wrap from row to row and compute the junk columns (strided convolutions), or
 * blocks of the output's rows and columns, which compute only outputs: at 7x7, runs of 12 on the grid of 9 columns
 * computed 72 positions for 49 outputs, blocks of 1 x 7 compute 49; at 14x14, 228 for 196 against 196.
 */
sealed interface TilePositions {
    /** What a tile costs beyond its positions' multiply-adds, in positions: the loads of weights and the loop. */
    long OVERHEAD = 2;

    /**
     * The positions of tiles of at most {@code mostPositions} for a convolution of output {@code out} (rows x
     * columns) on planes of {@code width} columns: blocks where the stride is 1, runs of {@link RegisterTile#MOST_ROWS}
     * where it is more (blocks of strided convolutions were slower in every shape tried on ResNet-18's, up to 1.7 times
     * at 28x28: LLVM spilled the tile's sums).
     */
    static TilePositions of(WindowGeometry window, long width, long mostPositions) {
        long[] out = window.outputShape();
        if (window.stride(0) > 1 || window.stride(1) > 1) return new RunsOnGrid(out, width, Math.min(RegisterTile.MOST_ROWS, mostPositions));
        return OutputBlocks.cheapest(out, width, mostPositions);
    }

    /** Positions a tile takes. */
    long positions();

    /** Tiles that cover the output. */
    long tiles();

    /** The length of the blocks of the grid whose taps the planes must hold ({@link PaddedPlanes#of}). */
    long planeBlock();

    /** Emits where tile {@code tile}'s first position is on the grid. */
    Expr firstOnGrid(KernelBuilder kb, Expr tile);

    /** Where position {@code position} of a tile is on the grid, from the tile's first. */
    long offsetOnGrid(int position);

    /**
     * Emits {@code store(row, column)} for position {@code position} of tile {@code tile} where that tile stores it:
     * where it is an output, and no tile before it stores it.
     */
    void whereStored(KernelBuilder kb, Expr tile, Expr position, BiConsumer<Expr, Expr> store);

    /** Runs of {@code positions} along the grid, from row to row. */
    record RunsOnGrid(long[] out, long width, long positions) implements TilePositions {
        @Override
        public long tiles() { return (out[0] * width + positions - 1) / positions; }

        @Override
        public long planeBlock() { return positions; }

        @Override
        public Expr firstOnGrid(KernelBuilder kb, Expr tile) { return mul(tile, positions); }

        @Override
        public long offsetOnGrid(int position) { return position; }

        @Override
        public void whereStored(KernelBuilder kb, Expr tile, Expr position, BiConsumer<Expr, Expr> store) {
            Expr onGrid = add(firstOnGrid(kb, tile), position);
            Expr row = kb.get(kb.local("row", div(onGrid, width)));
            Expr column = kb.get(kb.local("column", rem(onGrid, width)));
            kb.when(and(lt(row, out[0]), lt(column, out[1])), () -> store.accept(row, column));
        }
    }

    /**
     * Blocks of {@code rows} x {@code columns} outputs, position p at (p div columns, p mod columns) in its block; the
     * last block of a row or column starts early where the block does not divide it, and stores only its own outputs.
     */
    record OutputBlocks(long[] out, long width, long rows, long columns) implements TilePositions {
        /**
         * The blocks of at most {@code mostPositions} that cover {@code out} at the least cost, blocks x (positions +
         * {@link #OVERHEAD}); of equal costs, the one with the most positions, then the widest.
         */
        static OutputBlocks cheapest(long[] out, long width, long mostPositions) {
            OutputBlocks best = null;
            long bestCost = Long.MAX_VALUE;
            for (long rows = 1; rows <= Math.min(out[0], mostPositions); rows++) {
                for (long columns = Math.min(out[1], mostPositions / rows); columns >= 1; columns--) {
                    OutputBlocks blocks = new OutputBlocks(out, width, rows, columns);
                    long cost = blocks.tiles() * (blocks.positions() + OVERHEAD);
                    if (cost < bestCost || cost == bestCost && (blocks.positions() > best.positions()
                        || blocks.positions() == best.positions() && columns > best.columns())) {
                        best = blocks;
                        bestCost = cost;
                    }
                }
            }
            return best;
        }

        @Override
        public long positions() { return rows * columns; }

        @Override
        public long tiles() { return ceilDiv(out[0], rows) * across(); }

        /** Blocks of one position: the planes hold the taps of every output and no more. */
        @Override
        public long planeBlock() { return 1; }

        @Override
        public Expr firstOnGrid(KernelBuilder kb, Expr tile) {
            return add(mul(firstRow(kb, tile), width), firstColumn(kb, tile));
        }

        @Override
        public long offsetOnGrid(int position) { return position / columns * width + position % columns; }

        @Override
        public void whereStored(KernelBuilder kb, Expr tile, Expr position, BiConsumer<Expr, Expr> store) {
            Expr row = kb.get(kb.local("row", add(firstRow(kb, tile), div(position, columns))));
            Expr column = kb.get(kb.local("column", add(firstColumn(kb, tile), rem(position, columns))));
            Expr own = out[0] % rows == 0 ? null : ge(row, blockRow(tile));
            if (out[1] % columns != 0) own = own == null ? ge(column, blockColumn(tile)) : and(own, ge(column, blockColumn(tile)));
            if (own == null) store.accept(row, column);
            else kb.when(own, () -> store.accept(row, column));
        }

        private long across() { return ceilDiv(out[1], columns); }

        private Expr blockRow(Expr tile) { return mul(div(tile, across()), rows); }

        private Expr blockColumn(Expr tile) { return mul(rem(tile, across()), columns); }

        private Expr firstRow(KernelBuilder kb, Expr tile) {
            return out[0] % rows == 0 ? blockRow(tile) : kb.get(kb.local("firstRow", min(blockRow(tile), out[0] - rows)));
        }

        private Expr firstColumn(KernelBuilder kb, Expr tile) {
            return out[1] % columns == 0 ? blockColumn(tile) : kb.get(kb.local("firstColumn", min(blockColumn(tile), out[1] - columns)));
        }

        private static long ceilDiv(long a, long b) { return (a + b - 1) / b; }
    }
}
