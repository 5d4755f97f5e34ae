package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.mac;

/**
 * The tuned schedule of a {@link ProductRow}, {@code sum over k of a(k) * b(k, j)} for every column j, lowered
 * so that it vectorizes: a scratch row of accumulators takes each term k for every column, the loop over columns
 * innermost. Its iterations are independent, so that loop vectorizes, where a scalar accumulator per column
 * would make the serial chain over k the inner loop. Each column still sums its terms in the order of k and
 * is rounded once at the end, so the result is the same, bit for bit, in every accumulation mode. The nest
 * (a loop over k around a loop over j around one update of acc[j]) is also the one
 * {@link dev.byodt.compiler.p.GroupedProducts} turns into two or four products a step on P targets.
 */
final class RowOfSums implements ProductRow {
    private final KernelBuilder kb;
    private final Buffer acc;
    private final long columns;

    /** A row of {@code columns} accumulators in the scratch memory of the kernel {@code kb} builds. */
    RowOfSums(KernelBuilder kb, long columns) {
        this.kb = kb;
        this.acc = kb.scratch("acc", ScalarType.ACC, new long[] {columns});
        this.columns = columns;
    }

    @Override
    public void emit(long terms, Function<Expr, Expr> a, BiFunction<Expr, Expr, Expr> b, BiConsumer<Expr, Expr> result) {
        kb.loop(columns, j -> kb.store(acc, j, constant(ScalarType.ACC, 0)));
        kb.loop(terms, k -> {
            Expr aAt = a.apply(k);
            kb.loop(columns, j -> kb.store(acc, j, mac(kb.load(acc, j), aAt, b.apply(k, j))));
        });
        kb.loop(columns, j -> result.accept(j, cast(ScalarType.REAL, kb.load(acc, j))));
    }
}
