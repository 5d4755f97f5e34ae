package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.util.ArrayList;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * A few rows of sums in double taken as register tiles ({@link DoubleSums}' fast branch): a loop over terms k around
 * a loop over R rows around a loop over C columns that adds term k to acc[r, c] (MatMul's rows taken together) runs
 * as a loop over tiles of T columns around the loop over k, each of the R rows a loop over the tile's T columns of
 * its own, into a small buffer of the tile's R x T sums loaded from acc before the terms and stored back after. Its
 * addresses do not change with the tile, and LLVM keeps the sums in registers across k, as it does a {@code
 * RegisterTile}'s: the nest as it was went through memory at every term (about 3 times float32's time per
 * product), and so did the tiles summing in acc itself. A sum's terms keep the order of k where its address names its row and column, as MatMul's does; in
 * double, exact here, any order gives the same sum.
 */
final class RowTiles extends KernelRewriter {
    /** The tiles' sums, scratch buffers the kernel gains. */
    final List<Buffer> tiles = new ArrayList<>();
    /** Rows a tile holds at most, as RegisterTile's. */
    private static final long MOST_ROWS = 12;
    /** Sums a tile holds at most: 24 of x86-64's 32 vector registers of 8 doubles with AVX-512. */
    private static final long MOST_SUMS = 24 * 8;
    /** Columns a tile takes at least: two vectors of AVX-512's doubles. */
    private static final long LEAST_COLUMNS = 16;

    @Override
    public List<Stmt> stmt(Stmt s) {
        if (!(s instanceof Stmt.For terms) || terms.body().size() != 1 || !(terms.body().getFirst() instanceof Stmt.For rows)
            || rows.body().size() != 1 || !(rows.body().getFirst() instanceof Stmt.For columns)
            || !(rows.extent() instanceof Expr.IntConst r) || r.value() > MOST_ROWS
            || !(columns.extent() instanceof Expr.IntConst c) || !updatesOwnSum(columns, rows.var(), c.value())) {
            return super.stmt(s);
        }
        long width = tileWidth(r.value(), c.value());
        if (width == 0) return super.stmt(s);
        Buffer acc = ((Stmt.Store) columns.body().getFirst()).buffer();
        Buffer sums = new Buffer(acc.name() + ".tile", ScalarType.F64, new long[] {r.value() * width});
        tiles.add(sums);
        LoopVar tile = new LoopVar(columns.var().name() + ".tile");
        Expr column = add(mul(new Expr.Var(tile), width), new Expr.Var(columns.var()));
        List<Stmt> load = new ArrayList<>(), sum = new ArrayList<>(), store = new ArrayList<>();
        for (long row = 0; row < r.value(); row++) {
            Expr rowAt = idx(row);
            KernelRewriter at = new KernelRewriter() {
                @Override
                public Expr expr(Expr e) {
                    if (e instanceof Expr.Var v && v.var() == rows.var()) return rowAt;
                    if (e instanceof Expr.Var v && v.var() == columns.var()) return column;
                    return rebuilt(e);
                }
            };
            Stmt.Store update = (Stmt.Store) at.stmt(columns.body().getFirst()).getFirst();
            Expr inTile = add(mul(rowAt, width), new Expr.Var(columns.var()));
            KernelRewriter intoTile = new KernelRewriter() {
                @Override
                public Expr expr(Expr e) {
                    return e instanceof Expr.Load l && l.buffer() == acc ? new Expr.Load(sums, inTile) : rebuilt(e);
                }
            };
            load.add(new Stmt.For(columns.var(), idx(width), List.of(new Stmt.Store(sums, inTile, new Expr.Load(acc, update.index())))));
            sum.add(new Stmt.For(columns.var(), idx(width), List.of(new Stmt.Store(sums, inTile, intoTile.expr(update.value())))));
            store.add(new Stmt.For(columns.var(), idx(width), List.of(new Stmt.Store(acc, update.index(), new Expr.Load(sums, inTile)))));
        }
        List<Stmt> body = new ArrayList<>(load);
        body.add(new Stmt.For(terms.var(), terms.extent(), sum));
        body.addAll(store);
        return List.of(new Stmt.For(tile, idx(c.value() / width), body));
    }

    /**
     * The widest tile of columns, a multiple of {@link #LEAST_COLUMNS} dividing {@code columns}, whose {@code rows}
     * rows of sums fit {@link #MOST_SUMS}; 0 where none does.
     */
    private static long tileWidth(long rows, long columns) {
        for (long width = MOST_SUMS / rows / LEAST_COLUMNS * LEAST_COLUMNS; width >= LEAST_COLUMNS; width -= LEAST_COLUMNS) {
            if (columns % width == 0) return width;
        }
        return 0;
    }

    /**
     * Whether {@code columns}' body is one store to an F64 buffer at row r and column c, r * C + c with C at least the
     * {@code width} columns, of a value that loads that buffer only where it stores: each (row, column) updates a sum
     * of its own, so tiles may take them in any order. (A loop over a convolution's taps around one over positions
     * updates the same sums at every tap: it is a loop over terms, not rows.)
     */
    private static boolean updatesOwnSum(Stmt.For columns, LoopVar row, long width) {
        if (columns.body().size() != 1 || !(columns.body().getFirst() instanceof Stmt.Store store)
            || store.buffer().elementType() != ScalarType.F64 || !rowMajor(store.index(), row, columns.var(), width)) {
            return false;
        }
        Buffer acc = store.buffer();
        boolean[] own = {true};
        KernelWalker.visit(store.value(), e -> {
            if (e instanceof Expr.Load l && l.buffer() == acc) own[0] &= l.index().equals(store.index());
        });
        return own[0];
    }

    /** Whether {@code index} is r * C + c (either way round), C a constant of at least {@code width}. */
    private static boolean rowMajor(Expr index, LoopVar row, LoopVar column, long width) {
        if (!(index instanceof Expr.Op sum) || sum.op() != ScalarOp.ADD) return false;
        for (int i = 0; i < 2; i++) {
            if (sum.arg(1 - i) instanceof Expr.Var c && c.var() == column && sum.arg(i) instanceof Expr.Op product
                && product.op() == ScalarOp.MUL && product.arg(0) instanceof Expr.Var r && r.var() == row
                && product.arg(1) instanceof Expr.IntConst stride && stride.value() >= width) {
                return true;
            }
        }
        return false;
    }
}
