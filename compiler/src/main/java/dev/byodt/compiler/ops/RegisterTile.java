package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;

/**
 * The inner kernel of a matrix product with constant weights, as ONNX Runtime's packed GEMM has it: a tile of
 * the output, a few rows by one to three vectors' worth of columns, takes every term of its sums before the next
 * tile starts. For each term, each of the tile's rows reads one input value and the tile's columns read one
 * contiguous row of weights, packed at compile time into panels [column tile][term][column in the tile]
 * ({@link PackedWeights#panels}): a broadcast per row and one multiply-add per row and vector of columns. The
 * tile's accumulators are a small scratch buffer whose addresses do not change from term to term, so LLVM
 * keeps them in registers across the loop over the terms (24 of x86-64's 32 vector registers with AVX-512).
 * Each output sums its terms from +0 in their order and is rounded once, as the reference nests do.
 * Convolutions ({@link RegisterTiledConv}, and with the weights broadcast and the input in vectors, {@link PointwiseConv})
 * and matrix products ({@link MatMul}, {@link Gemm}) use it.
 */
final class RegisterTile {
    /** Rows a tile holds: with two vectors of columns, 24 accumulators. */
    static final long MOST_ROWS = 12;
    /** Vectors of columns a tile holds at most. */
    private static final long MOST_COLUMN_VECTORS = 2;
    /** Bytes of a panel's block of terms: half of the first-level cache's 48 KB, the other half the inputs'. */
    private static final long BLOCK_BYTES = 24 * 1024;
    /** Tiles of columns a product in blocks of terms has at least, which threads divide (in chunks, 8 per thread). */
    private static final long LEAST_COLUMN_TILES_IN_BLOCKS = 8;
    /**
     * How far ahead of its reads a panel taken in blocks of terms is prefetched, in bytes: a page, since the
     * hardware's prefetchers stop at page boundaries.
     */
    private static final long PREFETCH_BYTES = 4096;
    /** Bytes of a cache line, the unit a prefetch brings in. */
    private static final long LINE_BYTES = 64;
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
     * tiles, each a run of them, tile of columns by tile of columns. Where several tiles of rows share a long panel
     * of weights, they take its terms a block at a time ({@link #inBlocksOfTerms}).
     */
    static void matrixProduct(KernelBuilder kb, long lanes, long rows, long terms, long columns, Tensor weights,
                              BiFunction<Expr, Expr, Expr> input, Result result) {
        RegisterTile tile = of(kb, lanes, evenRows(rows), columns);
        Buffer panels = tile.panels(kb, weights, 1, columns, terms);
        long columnTiles = tile.columnTiles(columns);
        long rowTiles = (rows + tile.rows - 1) / tile.rows;
        long blockTerms = termsInBlock(terms, tile.columns);
        if (rowTiles > 1 && blockTerms < terms && columnTiles >= LEAST_COLUMN_TILES_IN_BLOCKS) {
            tile.inBlocksOfTerms(kb, rows, terms, columns, blockTerms, panels, input, result);
            return;
        }
        kb.loop(columnTiles * rowTiles, true, tileIndex -> {
            Expr columnTile = div(tileIndex, rowTiles);
            Expr firstRow = mul(rem(tileIndex, rowTiles), tile.rows);
            tile.sum(kb, terms, panels, tile.panelStart(columnTile, terms), (term, r) -> input.apply(min(add(firstRow, r), rows - 1), term));
            tile.store(kb, rows, columns, firstRow, columnTile, (row, column) -> tile.result(kb, row, column), result);
        });
    }

    /**
     * The matrix product of {@link #matrixProduct} with the terms in blocks of {@code blockTerms}: each tile of
     * columns takes a block of its panel's terms into every tile of rows in turn, then the next block, so that the
     * block's weights (24 KB) are read from memory once and from the first-level cache by the other tiles of rows,
     * where a whole panel (96 KB for a ViT's 768 terms) left it and came from the second-level cache for each tile
     * of rows (a profile put a quarter of the ViT's products' time on those loads; in blocks they take a ninth less
     * CPU). Between blocks a tile's sums wait in a scratch row of their own, stored and loaded as they are, so each
     * output still sums its terms from +0 in their order and is rounded once. Threads divide the tiles of columns.
     * The first tile of rows, which reads each block from memory, prefetches the weights {@link #PREFETCH_BYTES}
     * further on at every term ({@link #prefetchTerm}; into the next block at the end of one): otherwise it waited on
     * memory while the other tiles, reading the block from the first-level cache, left memory idle (a ViT's 50 rows
     * use each weight 50 times, so its 336 MB of weights stream from memory for each image).
     */
    private void inBlocksOfTerms(KernelBuilder kb, long rows, long terms, long columns, long blockTerms, Buffer panels,
                                 BiFunction<Expr, Expr, Expr> input, Result result) {
        long rowTiles = (rows + this.rows - 1) / this.rows;
        long tileSums = this.rows * this.columns;
        Buffer sums = kb.scratch("sums", ScalarType.ACC, new long[] {rowTiles * tileSums});
        kb.loop(columnTiles(columns), true, columnTile -> {
            Expr panelStart = panelStart(columnTile, terms);
            BiConsumer<Expr, Boolean> block = (first, fromZero) -> kb.loop(rowTiles, rowTile -> {
                Expr firstRow = mul(rowTile, this.rows);
                Expr slot = mul(rowTile, tileSums);
                addTerms(kb, first, blockTerms, panelTerm(kb, panels, panelStart, (k, r) -> input.apply(min(add(firstRow, r), rows - 1), k)),
                    fromZero ? null : sums, sums, slot, k -> kb.when(eq(rowTile, idx(0)), () -> prefetchTerm(kb, panels, panelStart, k)));
            });
            block.accept(idx(0), true);
            kb.loop(terms / blockTerms - 1, b -> block.accept(mul(add(b, 1), blockTerms), false));
            kb.loop(rowTiles, rowTile -> store(kb, rows, columns, mul(rowTile, this.rows), columnTile,
                (row, column) -> cast(ScalarType.REAL, kb.load(sums, add(mul(rowTile, tileSums), add(mul(row, this.columns), column)))), result));
        });
    }

    /** Prefetches the lines of term {@code k}'s weights in the panel at {@code panelStart}, {@link #PREFETCH_BYTES} ahead (within the panels). */
    void prefetchTerm(KernelBuilder kb, Buffer panels, Expr panelStart, Expr k) {
        prefetchLines(kb, panels, add(add(panelStart, mul(k, columns)), PREFETCH_BYTES / Float.BYTES), columns);
    }

    /** Prefetches the cache lines of the {@code count} float32 values from {@code at} in {@code buffer}, a line at a time (within the buffer). */
    static void prefetchLines(KernelBuilder kb, Buffer buffer, Expr at, long count) {
        long lineElements = LINE_BYTES / Float.BYTES;
        for (long line = 0; line * lineElements < count; line++) {
            kb.prefetch(buffer, min(add(at, line * lineElements), buffer.size() - 1));
        }
    }

    /**
     * Hands {@code result} the rounded sums {@code sum(row, column)} of the tile of rows from {@code firstRow} and of
     * columns {@code columnTile}, those inside the product's {@code rows x columns}.
     */
    private void store(KernelBuilder kb, long rows, long columns, Expr firstRow, Expr columnTile, BiFunction<Expr, Expr, Expr> sum, Result result) {
        kb.loop(this.rows, inTileRow -> kb.vectorLoop(this.columns, inTileColumn -> {
            Expr row = add(firstRow, inTileRow);
            Expr column = add(mul(columnTile, this.columns), inTileColumn);
            Expr inside = rows % this.rows == 0 ? null : lt(row, rows);
            if (columns % this.columns != 0) inside = inside == null ? lt(column, columns) : and(inside, lt(column, columns));
            Runnable store = () -> result.store(row, column, sum.apply(inTileRow, inTileColumn));
            if (inside == null) store.run();
            else kb.when(inside, store);
        }));
    }

    /**
     * The terms of a block for panels of {@code columns} columns: the most whose weights take at most
     * {@link #BLOCK_BYTES} in float32 and divide {@code terms}, or {@code terms} (no blocks) where that would be
     * fewer than half as many.
     */
    private static long termsInBlock(long terms, long columns) {
        long most = BLOCK_BYTES / (Float.BYTES * columns);
        for (long block = Math.min(terms, most); block * 2 >= most; block--) {
            if (terms % block == 0) return block;
        }
        return terms;
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
        return ofWidth(kb, rows, columnsFor(lanes, columns));
    }

    /** A tile of {@code rows} rows by {@code tileColumns} columns, whole vectors, for a schedule that chose its width. */
    static RegisterTile ofWidth(KernelBuilder kb, long rows, long tileColumns) {
        return new RegisterTile(rows, tileColumns, kb.scratch("acc", ScalarType.ACC, new long[] {rows, tileColumns}));
    }

    /** Rows a tile takes of {@code rows} rows: as even as whole rows make the fewest tiles of at most {@link #MOST_ROWS}. */
    static long evenRows(long rows) {
        return evenRows(rows, MOST_ROWS);
    }

    /** Rows a tile takes of {@code rows} rows: as even as whole rows make the fewest tiles of at most {@code most}. */
    static long evenRows(long rows, long most) {
        long fewestTiles = (rows + most - 1) / most;
        return (rows + fewestTiles - 1) / fewestTiles;
    }

    /** The columns of a tile for outputs of {@code columns} columns: the vectors that cover them, at most {@link #MOST_COLUMN_VECTORS}. */
    static long columnsFor(long lanes, long columns) {
        return lanes * Math.min(MOST_COLUMN_VECTORS, (columns + lanes - 1) / lanes);
    }

    /** The columns of the widest tile within {@code columns} columns (at least a vector of them). */
    static long columnsWithin(long lanes, long columns) {
        return lanes * Math.min(MOST_COLUMN_VECTORS, columns / lanes);
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
        sum(kb, terms, panels, panelStart, term -> { }, input);
    }

    /** {@link #sum(KernelBuilder, long, Buffer, Expr, BiFunction)}, with {@code beforeTerm(term)}'s statements before each term's multiply-adds. */
    void sum(KernelBuilder kb, long terms, Buffer panels, Expr panelStart, Consumer<Expr> beforeTerm, BiFunction<Expr, Integer, Expr> input) {
        Term term = panelTerm(kb, panels, panelStart, input);
        if (terms == 0) sum(kb, terms, term);
        else addTerms(kb, idx(0), terms, term, null, acc, idx(0), beforeTerm);
    }

    /**
     * {@link #sum(KernelBuilder, long, Buffer, Expr, Consumer, BiFunction)} over at least one term, the sums stored into a
     * tile's worth of {@code into} from {@code at} (row after row of {@link #columns} sums), not into the tile's own
     * accumulators: for a schedule that keeps several tiles' sums, as Winograd's sixteen products.
     */
    void sumInto(KernelBuilder kb, long terms, Buffer panels, Expr panelStart, Consumer<Expr> beforeTerm, BiFunction<Expr, Integer, Expr> input,
                 Buffer into, Expr at) {
        addTerms(kb, idx(0), terms, panelTerm(kb, panels, panelStart, input), null, into, at, beforeTerm);
    }

    /** A term's multiply-add with the weights of the panel at {@code panelStart}, {@code input(term, row)} the input of the tile's row. */
    private Term panelTerm(KernelBuilder kb, Buffer panels, Expr panelStart, BiFunction<Expr, Integer, Expr> input) {
        return (sum, k, r, c) -> mac(sum, input.apply(k, r), kb.load(panels, add(add(panelStart, mul(k, columns)), c)));
    }

    /**
     * Sets the tile's sums to +0: the start of sums taken by {@link #accumulate} in the body of a loop nest over the
     * terms, across which LLVM keeps the sums in registers as it does across {@link #sum}'s one loop. LLVM makes the
     * zeroing a memset of the tile that the nest loads back, a few dozen instructions against a convolution tile's
     * thousands of multiply-adds (where a tile has few terms, {@link #sum} starts them from +0 at the first).
     */
    void zeroSums(KernelBuilder kb) {
        for (int r = 0; r < rows; r++) {
            int row = r;
            kb.vectorLoop(columns, c -> kb.store(acc, inTile(row, c), constant(ScalarType.ACC, 0)));
        }
    }

    /**
     * Emits term {@code k}'s multiply-adds into the tile's sums, the weights from the panel at {@code panelStart} and
     * {@code input(k, row)} the input of the tile's row {@code row}: where a loop nest takes the terms in order, from
     * {@link #zeroSums}, each output's sum is {@link #sum}'s.
     */
    void accumulate(KernelBuilder kb, Expr k, Buffer panels, Expr panelStart, BiFunction<Expr, Integer, Expr> input) {
        addTerm(kb, k, panelTerm(kb, panels, panelStart, input), tileSums(kb), acc, idx(0));
    }

    /** One term's multiply-add into the sum of a tile's row {@code row} and column {@code column}. */
    interface Term {
        Expr multiplyAdd(Expr sum, Expr term, int row, Expr column);
    }

    /**
     * Emits the tile's sums over {@code terms} terms, from +0, term after term, each term of each row and column
     * {@code term}'s multiply-add. Its factors are a value per row (broadcast across the row's vectors) and a
     * contiguous run along the columns (one vector load per vector of columns), or the loop over the columns would
     * not vectorize.
     */
    void sum(KernelBuilder kb, long terms, Term term) {
        sum(kb, terms, term, k -> { });
    }

    /** {@link #sum(KernelBuilder, long, Term)}, with {@code alongside(k)}'s statements (prefetches) before each term k's multiply-adds. */
    void sum(KernelBuilder kb, long terms, Term term, Consumer<Expr> alongside) {
        if (terms == 0) kb.loop(rows * columns, i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
        else addTerms(kb, idx(0), terms, term, null, acc, idx(0), alongside);
    }

    /**
     * Emits the terms {@code first} to {@code first + count - 1} into the tile's sums: the first term adds to the
     * sums in {@code from} (a tile's worth from {@code at}), or to +0 where it is null; the last term's sums go to
     * {@code into} at {@code at}. The terms between add in the tile's accumulators, which LLVM keeps in registers,
     * and the sums pass from and to memory in the first and last term's own loads and stores: copies before and
     * after were calls to memcpy and memset, and zeroing the sums first cost a tenth of mobilenet_v2's time. A
     * first term added to +0 is the reference's first multiply-add.
     */
    private void addTerms(KernelBuilder kb, Expr first, long count, Term term, Buffer from, Buffer into, Expr at) {
        addTerms(kb, first, count, term, from, into, at, k -> { });
    }

    /** {@link #addTerms(KernelBuilder, Expr, long, Term, Buffer, Buffer, Expr)}, with {@code alongside(k)}'s statements before each term k's multiply-adds. */
    private void addTerms(KernelBuilder kb, Expr first, long count, Term term, Buffer from, Buffer into, Expr at, Consumer<Expr> alongside) {
        BiFunction<Integer, Expr, Expr> start = from == null
            ? (row, column) -> constant(ScalarType.ACC, 0)
            : (row, column) -> kb.load(from, add(at, inTile(row, column)));
        BiFunction<Integer, Expr, Expr> accumulated = tileSums(kb);
        if (count == 1) {
            alongside.accept(first);
            addTerm(kb, first, term, start, into, at);
            return;
        }
        alongside.accept(first);
        addTerm(kb, first, term, start, acc, idx(0));
        kb.loop(count - 2, k -> {
            Expr next = add(add(first, k), 1);
            alongside.accept(next);
            addTerm(kb, next, term, accumulated, acc, idx(0));
        });
        alongside.accept(add(first, count - 1));
        addTerm(kb, add(first, count - 1), term, accumulated, into, at);
    }

    /** Emits term {@code k}'s multiply-adds to the sums {@code sum(row, column)}, stored into a tile's worth of {@code into} at {@code at}. */
    private void addTerm(KernelBuilder kb, Expr k, Term term, BiFunction<Integer, Expr, Expr> sum, Buffer into, Expr at) {
        for (int r = 0; r < rows; r++) {
            int row = r;
            kb.vectorLoop(columns, c -> kb.store(into, add(at, inTile(row, c)), term.multiplyAdd(sum.apply(row, c), k, row, c)));
        }
    }

    /** The tile's sums so far, by row and column, as the terms between the first and the last add to them. */
    private BiFunction<Integer, Expr, Expr> tileSums(KernelBuilder kb) { return (row, column) -> kb.load(acc, inTile(row, column)); }

    /** Where the sum of the tile's row {@code row} and column {@code column} is in a tile's worth of sums. */
    private Expr inTile(int row, Expr column) { return add(column, row * columns); }

    /**
     * Emits the stores of the tile's row {@code row}, its rounded sums plus {@code bias[biasIndex]} where there is a
     * bias, as a loop over the row's columns into {@code y} from {@code outputStart}, which LLVM makes vector stores:
     * tiles whose columns run along an output row ({@link PointwiseConv}, {@link OutputRowConv}). The columns before
     * {@code recomputed} (null: none) were stored by the tile before (a last tile that starts early), and the row is
     * stored only where {@code stored} holds (null: always; false for a map past the last): such stores are
     * conditional, which LLVM makes masked vector stores.
     */
    void storeRow(KernelBuilder kb, Expr row, Buffer y, Expr outputStart, Expr recomputed, Expr stored, Buffer bias, Expr biasIndex) {
        Runnable storeRow = () -> {
            // The bias is read once, before the loop: read in it under the stores' condition, its one address
            // became a masked gather per vector, a tenth of a 1x1 layer's time at 28x28.
            Expr biasValue = bias == null ? null : kb.get(kb.local("bias", kb.load(bias, biasIndex)));
            kb.vectorLoop(columns, column -> {
                Runnable store = () -> {
                    Expr result = result(kb, row, column);
                    kb.store(y, add(outputStart, column), biasValue == null ? result : add(result, biasValue));
                };
                if (recomputed == null) store.run();
                else kb.when(ge(column, recomputed), store);
            });
        };
        if (stored == null) storeRow.run();
        else kb.when(stored, storeRow);
    }

    /** The rounded sum of the tile's row {@code row} and column {@code column}, once {@link #sum} has run. */
    Expr result(KernelBuilder kb, Expr row, Expr column) {
        return cast(ScalarType.REAL, kb.load(acc, add(mul(row, columns), column)));
    }
}
