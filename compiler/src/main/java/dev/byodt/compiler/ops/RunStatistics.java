package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The mean and population variance of a contiguous run of a buffer, as the normalizations compute them: the
 * sum and the sum of squared deviations accumulate in ACC and are rounded once, then divided by the count.
 */
record RunStatistics(Local mean, Expr variance) {
    /** The normalizations' stash_type attribute, the type of their statistics: float32 (1), the only one supported. */
    static void requireFloat32Stash(Node node) {
        long stash = node.intAttr("stash_type", ElementType.FLOAT32.onnxCode());
        if (stash != ElementType.FLOAT32.onnxCode()) throw node.badAttribute("stash_type", stash, "1 (float32)");
    }

    static RunStatistics of(KernelBuilder kb, Buffer x, Expr start, long size) {
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        kb.loop(size, i -> kb.assign(sum, accumulate(kb.get(sum), kb.load(x, add(start, i)))));
        Local mean = kb.local("mean", divideByCount(cast(ScalarType.REAL, kb.get(sum)), size));
        Local squares = kb.local("squares", constant(ScalarType.ACC, 0));
        kb.loop(size, i -> {
            Expr deviation = sub(kb.load(x, add(start, i)), kb.get(mean));
            kb.assign(squares, mac(kb.get(squares), deviation, deviation));
        });
        return new RunStatistics(mean, divideByCount(cast(ScalarType.REAL, kb.get(squares)), size));
    }
}
