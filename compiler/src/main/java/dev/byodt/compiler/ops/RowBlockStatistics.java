package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.BiFunction;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The means and population variances of a block of rows, each row's as {@link RunStatistics} computes it (its sum
 * and its sum of squared deviations accumulate in ACC in the row's order and are rounded once, then divided by the
 * count), with the loop over the block's rows innermost: the rows' sums are independent, so that loop vectorizes,
 * a lane a row, where a row's own sum is a serial chain of adds, one add's latency a term (a ViT's rows of 768 took
 * two such chains, sum and squares, of 768 adds each).
 */
record RowBlockStatistics(Buffer means, Buffer variances) {
    /**
     * The statistics of {@code rows} rows of {@code size} elements, {@code element(row, i)} element i of the block's
     * row {@code row}; {@code rows} is the lanes of a vector.
     */
    static RowBlockStatistics of(KernelBuilder kb, long rows, long size, BiFunction<Expr, Expr, Expr> element) {
        Buffer sums = kb.scratch("sums", ScalarType.ACC, new long[] {rows});
        Buffer means = kb.scratch("means", ScalarType.REAL, new long[] {rows});
        Buffer variances = kb.scratch("variances", ScalarType.REAL, new long[] {rows});
        kb.vectorLoop(rows, r -> kb.store(sums, r, constant(ScalarType.ACC, 0)));
        kb.loop(size, i -> kb.vectorLoop(rows, r -> kb.store(sums, r, accumulate(kb.load(sums, r), element.apply(r, i)))));
        kb.vectorLoop(rows, r -> {
            kb.store(means, r, divideByCount(cast(ScalarType.REAL, kb.load(sums, r)), size));
            kb.store(sums, r, constant(ScalarType.ACC, 0));
        });
        kb.loop(size, i -> kb.vectorLoop(rows, r -> {
            Expr deviation = sub(element.apply(r, i), kb.load(means, r));
            kb.store(sums, r, mac(kb.load(sums, r), deviation, deviation));
        }));
        kb.vectorLoop(rows, r -> kb.store(variances, r, divideByCount(cast(ScalarType.REAL, kb.load(sums, r)), size)));
        return new RowBlockStatistics(means, variances);
    }
}
