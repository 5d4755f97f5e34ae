package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.runtime.ByodtException;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.neg;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;

/**
 * Loss scaling, as mixed-precision training does it: the loss's gradient is multiplied by a scale S before the
 * backward pass, so that gradients too small for a narrow datatype survive it, and each weight's gradient by 1/S
 * before its update; both products are computed in the datatype, so S and 1/S must be values of it (powers of
 * two are, in every floating-point format and posit). A fixed scale applies to every step. A dynamic one works as
 * PyTorch's GradScaler: it starts at 2^16, a step whose scaled gradients overflowed (one reached the datatype's
 * largest magnitude, or is not a number) updates nothing and halves the scale, and 2000 steps in a row without
 * overflow double it.
 */
public record LossScaling(double initialScale, boolean dynamic, int growthInterval) {
    /** No scaling: the loss's gradient as it is. */
    public static final LossScaling NONE = new LossScaling(1, false, 0);
    /** The step program's input holding S and 1/S. */
    public static final String SCALE = "loss.scale";
    /** The step program's output saying (1) that a scaled gradient overflowed. */
    public static final String OVERFLOW = "loss.overflow";
    /** The name of each kernel unscaling a weight's gradient begins so. */
    static final String UNSCALE_KERNEL = "loss unscale of ";

    public LossScaling {
        if (!(initialScale > 0) || Double.isInfinite(initialScale)) throw new ByodtException("a loss scale must be positive and finite, not " + initialScale);
        if (dynamic && growthInterval < 1) throw new ByodtException("a dynamic loss scale needs a growth interval of at least 1 step");
    }

    public static LossScaling fixed(double scale) { return new LossScaling(scale, false, 0); }

    public static LossScaling dynamic(double initialScale, int growthInterval) { return new LossScaling(initialScale, true, growthInterval); }

    /** "dynamic", or a fixed scale such as "1024". */
    public static LossScaling parse(String option) {
        if (option.equals("dynamic")) return dynamic(65536, 2000);
        try {
            return fixed(Double.parseDouble(option));
        } catch (NumberFormatException e) {
            throw new ByodtException("--loss-scale " + option + ": give a number (such as 1024) or dynamic");
        }
    }

    public boolean enabled() { return dynamic || initialScale != 1; }

    /** scaled = gradient * S. */
    Kernel scale(Buffer gradient, Buffer scale, Buffer scaled) {
        KernelBuilder kb = new KernelBuilder("loss scale of " + gradient.name(), "LossScale", List.of(gradient, scale), List.of(scaled));
        kb.loop(gradient.size(), i -> kb.store(scaled, i, mul(kb.load(gradient, i), kb.load(scale, idx(0)))));
        return kb.build();
    }

    /** unscaled = gradient * (1/S). */
    Kernel unscale(Buffer gradient, Buffer scale, Buffer unscaled) {
        KernelBuilder kb = new KernelBuilder(UNSCALE_KERNEL + gradient.name(), "LossScale", List.of(gradient, scale), List.of(unscaled));
        kb.loop(gradient.size(), i -> kb.store(unscaled, i, mul(kb.load(gradient, i), kb.load(scale, idx(1)))));
        return kb.build();
    }

    /**
     * flag[0] = 1 when a scaled gradient is not strictly between the datatype's lowest value L and -L (a float's
     * infinity or NaN, a posit's maxpos or NaR, a fixed-point format's saturated extremes), else 0.
     */
    Kernel overflow(List<Buffer> gradients, Buffer flag) {
        KernelBuilder kb = new KernelBuilder("overflow of the scaled gradients", "LossScale", gradients, List.of(flag));
        Local overflowed = kb.local("overflowed", idx(0));
        for (Buffer gradient : gradients) {
            kb.loop(gradient.size(), i -> {
                Expr magnitude = abs(kb.load(gradient, i));
                Expr lowest = real(Double.NEGATIVE_INFINITY);
                // Both comparisons: a posit's NaR is below every value, a float's NaN fails every comparison.
                Expr inRange = and(lt(magnitude, neg(lowest)), gt(neg(magnitude), lowest));
                kb.assign(overflowed, select(inRange, kb.get(overflowed), idx(1)));
            });
        }
        kb.store(flag, idx(0), kb.get(overflowed));
        return kb.build();
    }
}
