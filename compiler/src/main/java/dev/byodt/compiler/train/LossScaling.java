package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ByodtException;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * Loss scaling, as mixed-precision training does it: the loss's gradient is multiplied by a scale S before the
 * backward pass, so that gradients too small for a narrow datatype survive it, and each weight's gradient by 1/S
 * before its update; both products are computed in the datatype, so S and 1/S must be values of it (powers of
 * two are, in every floating-point format and posit). A fixed scale applies to every step. A dynamic one works as
 * PyTorch's GradScaler: it starts at 2^16, a step whose scaled gradients overflowed (one saturated, as
 * {@link StepStatistics} counts them) updates nothing and halves the scale, and 2000 steps in a row without
 * overflow double it.
 */
public record LossScaling(double initialScale, boolean dynamic, int growthInterval) {
    /** No scaling: the loss's gradient as it is. */
    public static final LossScaling NONE = new LossScaling(1, false, 0);
    /** The step program's input holding S and 1/S. */
    public static final String SCALE = "loss.scale";
    /** The name of each kernel unscaling a weight's gradient begins so. */
    static final String UNSCALE_KERNEL = "loss unscale of ";

    public LossScaling {
        // The step reads S and 1/S as float32: both must be normal there.
        if (!(initialScale >= 0x1p-126 && initialScale <= 0x1p126)) {
            throw new ByodtException("a loss scale must lie between 2^-126 and 2^126, not " + initialScale);
        }
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
}
