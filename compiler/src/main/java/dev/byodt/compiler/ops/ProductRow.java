package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.mac;

/**
 * One row of a matrix product, as MatMul and Gemm emit it row by row: for every column j, the sum over k of
 * {@code a(k) * b(k, j)} from +0, its terms in the order of k, rounded once.
 */
interface ProductRow {
    /**
     * Emits one row: the sums over {@code terms} values of k of {@code a(k) * b(k, j)}, each handed as a REAL
     * value to {@code result(j, sum)}. {@code a} gives the row's term k, {@code b} the term k of column j.
     */
    void emit(long terms, Function<Expr, Expr> a, BiFunction<Expr, Expr, Expr> b, BiConsumer<Expr, Expr> result);

    /** The reference nest for rows of {@code columns}: column after column, each sum in one accumulator. */
    static ProductRow reference(KernelBuilder kb, long columns) {
        return (terms, a, b, result) -> kb.loop(columns, j -> {
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loop(terms, k -> kb.assign(sum, mac(kb.get(sum), a.apply(k), b.apply(k, j))));
            result.accept(j, cast(ScalarType.REAL, kb.get(sum)));
        });
    }
}
