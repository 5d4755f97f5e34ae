package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;

import java.util.ArrayList;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.neg;
import static dev.byodt.compiler.kernel.Exprs.not;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * What a training step did to its numbers, counted where they were computed: weight gradients, as the backward
 * pass left them in the datatype (scaled, with loss scaling), that are zero or saturated, and updates that
 * vanished (a nonzero gradient left its weight unchanged: the update rounded away) or saturated the weight. A
 * value is saturated when it is not strictly between the datatype's lowest value L and -L: a float's infinity or
 * NaN, a posit's maxpos or NaR, a fixed-point format's extremes.
 */
public final class StepStatistics {
    private StepStatistics() {}

    /** The step program's output of gradient counts: zero, saturated (int64). */
    public static final String GRADIENT_COUNTS = "step.gradient_counts";
    /** The step program's output of update counts: vanished, saturated (int64). */
    public static final String UPDATE_COUNTS = "step.update_counts";
    /** The update counts' kernel, which computes where the updates do (float32 with master weights). */
    static final String UPDATE_COUNTS_KERNEL = "update counts";

    /** Counts summed over steps. */
    public record Counts(long zeroGradients, long saturatedGradients, long vanishedUpdates, long saturatedUpdates) {
        public static final Counts NONE = new Counts(0, 0, 0, 0);

        Counts plus(long zero, long saturated, long vanished, long saturatedUpdates) {
            return new Counts(zeroGradients + zero, saturatedGradients + saturated, vanishedUpdates + vanished,
                this.saturatedUpdates + saturatedUpdates);
        }

        public Counts minus(Counts earlier) {
            return new Counts(zeroGradients - earlier.zeroGradients, saturatedGradients - earlier.saturatedGradients,
                vanishedUpdates - earlier.vanishedUpdates, saturatedUpdates - earlier.saturatedUpdates);
        }
    }

    /** Whether {@code value} lies strictly between the datatype's lowest value and its negation. */
    static Expr inRange(Expr value) {
        Expr magnitude = abs(value);
        Expr lowest = real(Double.NEGATIVE_INFINITY);
        // Both comparisons: a posit's NaR is below every value, a float's NaN fails every comparison.
        return and(lt(magnitude, neg(lowest)), gt(neg(magnitude), lowest));
    }

    static Kernel gradients(List<Buffer> gradients, Buffer counts) {
        KernelBuilder kb = new KernelBuilder("gradient counts", "Statistics", gradients, List.of(counts));
        Local zero = kb.local("zero", idx(0)), saturated = kb.local("saturated", idx(0));
        for (Buffer gradient : gradients) {
            kb.loop(gradient.size(), i -> {
                Expr g = kb.load(gradient, i);
                kb.assign(zero, add(kb.get(zero), select(eq(g, real(0)), idx(1), idx(0))));
                kb.assign(saturated, add(kb.get(saturated), select(inRange(g), idx(0), idx(1))));
            });
        }
        kb.store(counts, idx(0), kb.get(zero));
        kb.store(counts, idx(1), kb.get(saturated));
        return kb.build();
    }

    /** Over each weight: its gradient as the update used it, the weight before and after. */
    static Kernel updates(List<Buffer> gradients, List<Buffer> weights, List<Buffer> updated, Buffer counts) {
        List<Buffer> read = new ArrayList<>(gradients);
        read.addAll(weights);
        read.addAll(updated);
        KernelBuilder kb = new KernelBuilder(UPDATE_COUNTS_KERNEL, "Statistics", read, List.of(counts));
        Local vanished = kb.local("vanished", idx(0)), saturated = kb.local("saturated", idx(0));
        for (int w = 0; w < weights.size(); w++) {
            Buffer gradient = gradients.get(w), before = weights.get(w), after = updated.get(w);
            kb.loop(before.size(), i -> {
                Expr next = kb.load(after, i);
                Expr lost = and(ne(kb.load(gradient, i), real(0)), eq(next, kb.load(before, i)));
                kb.assign(vanished, add(kb.get(vanished), select(lost, idx(1), idx(0))));
                kb.assign(saturated, add(kb.get(saturated), select(not(inRange(next)), idx(1), idx(0))));
            });
        }
        kb.store(counts, idx(0), kb.get(vanished));
        kb.store(counts, idx(1), kb.get(saturated));
        return kb.build();
    }
}
