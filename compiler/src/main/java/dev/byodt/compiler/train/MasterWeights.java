package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.dtype.DatatypeChoice;

import java.util.ArrayList;
import java.util.List;

/**
 * float32 master weights, as mixed-precision training keeps them: the optimizer's updates (with loss scaling's
 * unscaling of the gradients, and the counts of vanished and saturated updates) compute in float32 on the
 * caller's float32 weights and optimizer state, which therefore keep updates too small for the datatype, while
 * the forward and backward kernels round the weights into the datatype as they load them. BatchNormalization's
 * running statistics are kept and updated in float32 the same way. Those kernels are simply given float32, as
 * --dtype-map gives a node a datatype, and the compiler converts at their boundaries.
 */
public final class MasterWeights {
    private MasterWeights() {}

    /** {@code options} with the training step's update, unscaling, update-count and running-statistics kernels in float32. */
    public static CompileOptions inFloat32(CompileOptions options) {
        DatatypeChoice choice = options.datatypes();
        List<DatatypeChoice.Override> overrides = new ArrayList<>(List.of(
            new DatatypeChoice.Override(Optimizer.UPDATE_KERNEL + "*", "float32"),
            new DatatypeChoice.Override(LossScaling.UNSCALE_KERNEL + "*", "float32"),
            new DatatypeChoice.Override(StepStatistics.UPDATE_COUNTS_KERNEL, "float32"),
            new DatatypeChoice.Override(RunningStatistics.KERNEL + "*", "float32")));
        overrides.addAll(choice.overrides());
        return options.withDatatypes(choice.withOverrides(overrides));
    }
}
