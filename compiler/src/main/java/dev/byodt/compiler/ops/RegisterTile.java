package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import java.util.function.BiFunction;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * The inner kernel of a matrix product with constant weights, as ONNX Runtime's packed GEMM has it: a tile of
 * the output, a few rows by one or two vectors' worth of columns, takes every term of its sums before the next
 * tile starts. For each term, each of the tile's rows reads one input value and the tile's columns read one
 * contiguous row of weights, packed at compile time into panels [column tile][term][column in the tile]
 * ({@link PackedWeights#panels}): a broadcast per row and one multiply-add per row and vector of columns. The
 * tile's accumulators are a small scratch buffer whose addresses do not change from term to term, so LLVM
 * keeps them in registers across the loop over the terms (24 of x86-64's 32 vector registers with AVX-512).
 * Each output sums its terms from +0 in their order and is rounded once, as the reference nests do.
 * Convolutions ({@link RegisterTiledConv}) and matrix products ({@link MatMul}, {@link Gemm}) use it.
 */
final class RegisterTile {
    /** Rows a tile holds: with two vectors of columns, 24 accumulators. */
    static final long MOST_ROWS = 12;
    /** Vectors of columns a tile holds at most. */
    private static final long MOST_COLUMN_VECTORS = 2;
    /** Fewer lanes than this and the tile would not be held in vectors: the other schedules are kept. */
    private static final long LEAST_LANES = 8;

    private final long rows;
    private final long columns;
    private final Buffer acc;

    private RegisterTile(long rows, long columns, Buffer acc) {
        this.rows = rows;
        this.columns = columns;
        this.acc = acc;
    }

    /** Where a matrix product in tiles puts each rounded sum. */
    interface Result {
        void store(Expr row, Expr column, Expr sum);
    }

    /**
     * Emits the matrix product of {@code rows x terms} inputs ({@code input(row, term)} the element) and constant
     * weights of one row of {@code terms} per output column ({@code columns x terms}), each rounded sum handed to
     * {@code result}. The tiles of rows are as even as whole rows make them (a ViT's 50 rows are five tiles of 10,
     * not four of 12 and one of 12 holding 2 rows: a sixth of the multiply-adds were on rows stored nowhere); the
     * last tile reads the last row again where it runs past the rows, and stores nothing there. Threads divide the
     * tiles, each a run of them, tile of columns by tile of columns.
     */
    static void matrixProduct(KernelBuilder kb, long lanes, long rows, long terms, long columns, Tensor weights,
                              BiFunction<Expr, Expr, Expr> input, Result result) {
        long fewestTiles = (rows + MOST_ROWS - 1) / MOST_ROWS;
        RegisterTile tile = of(kb, lanes, (rows + fewestTiles - 1) / fewestTiles, columns);
        Buffer panels = tile.panels(kb, weights, 1, columns, terms);
        long columnTiles = tile.columnTiles(columns);
        long rowTiles = (rows + tile.rows - 1) / tile.rows;
        kb.loop(columnTiles * rowTiles, true, tileIndex -> {
            Expr columnTile = div(tileIndex, rowTiles);
            Expr firstRow = mul(rem(tileIndex, rowTiles), tile.rows);
            tile.sum(kb, terms, panels, tile.panelStart(columnTile, terms), (term, r) -> input.apply(min(add(firstRow, r), rows - 1), term));
            kb.loops(new long[] {tile.rows, tile.columns}, at -> {
                Expr row = add(firstRow, at[0]);
                Expr column = add(mul(columnTile, tile.columns), at[1]);
                Expr inside = rows % tile.rows == 0 ? null : lt(row, rows);
                if (columns % tile.columns != 0) inside = inside == null ? lt(column, columns) : and(inside, lt(column, columns));
                Runnable store = () -> result.store(row, column, tile.result(kb, at[0], at[1]));
                if (inside == null) store.run();
                else kb.when(inside, store);
            });
        });
    }

    /**
     * Whether tiles fit outputs of {@code columns} columns in {@code arithmetic}: at least a whole vector of them,
     * and sums that are machine multiply-adds, which leave the registers to the tile's accumulators
     * ({@link NodeArithmetic#tileLanes}; an emulated datatype's temporaries would push them out: posit8's
     * convolution ran 3 times slower in tiles).
     */
    static boolean fits(NodeArithmetic arithmetic, long columns) {
        return arithmetic.tileLanes() >= LEAST_LANES && columns >= arithmetic.tileLanes();
    }

    /** A tile of {@code rows} rows (at most {@link #MOST_ROWS}) for outputs of {@code columns} columns. */
    static RegisterTile of(KernelBuilder kb, long lanes, long rows, long columns) {
        long tileColumns = lanes * Math.min(MOST_COLUMN_VECTORS, (columns + lanes - 1) / lanes);
        return new RegisterTile(rows, tileColumns, kb.scratch("acc", ScalarType.ACC, new long[] {rows, tileColumns}));
    }

    long rows() { return rows; }

    long columns() { return columns; }

    /** Tiles of columns that cover {@code columns} columns, the last maybe in part. */
    long columnTiles(long columns) { return (columns + this.columns - 1) / this.columns; }

    /**
     * The constant panels of {@code weights}, seen as {@code groups} matrices of one row of {@code terms} per output
     * column, as a constant buffer of the kernel.
     */
    Buffer panels(KernelBuilder kb, Tensor weights, long groups, long outputColumns, long terms) {
        return kb.constant("panels", ScalarType.REAL, PackedWeights.panels(weights, groups, outputColumns, terms, columns));
    }

    /** Where the panel of column tile {@code tile} (counted over all groups) starts in a buffer of {@code terms} terms. */
    Expr panelStart(Expr tile, long terms) { return mul(tile, terms * columns); }

    /**
     * Emits the tile's sums over {@code terms} terms: {@code input(term, row)} is the input value of term
     * {@code term} for the tile's row {@code row} (0 to rows - 1), the weights are the panel at {@code panelStart}.
     */
    void sum(KernelBuilder kb, long terms, Buffer panels, Expr panelStart, BiFunction<Expr, Integer, Expr> input) {
        kb.loop(rows * columns, i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
        kb.loop(terms, term -> {
            Expr termAt = add(panelStart, mul(term, columns));
            for (int r = 0; r < rows; r++) {
                Expr value = input.apply(term, r);
                long row = r * columns;
                kb.loop(columns, c -> kb.store(acc, add(c, row), mac(kb.load(acc, add(c, row)), value, kb.load(panels, add(termAt, c)))));
            }
        });
    }

    /** The rounded sum of the tile's row {@code row} and column {@code column}, once {@link #sum} has run. */
    Expr result(KernelBuilder kb, Expr row, Expr column) {
        return cast(ScalarType.REAL, kb.load(acc, add(mul(row, columns), column)));
    }
}
