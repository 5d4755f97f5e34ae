package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.runtime.ByodtException;
import picocli.CommandLine.Option;

/** --multiply-add, how float32 multiply-adds round, for the commands that compile (README, "Accuracy"). */
final class MultiplyAddOption {
    @Option(names = "--multiply-add", defaultValue = "separate", paramLabel = "separate|fused",
        description = "How each float32 multiply-add of a sum (Conv, MatMul, Gemm, ...; the sums of --accumulate float32 in "
            + "any datatype) rounds: separate, the product rounded then the sum, as ONNX's reference computes, or fused, one "
            + "fused multiply-add rounded once, as ONNX Runtime's and PyTorch's kernels compute: one instruction instead of two "
            + "where the machine has FMA, so faster float32 convolutions, with other last bits. Either gives the same bits on "
            + "every target. Default: ${DEFAULT-VALUE}.")
    String multiplyAdd;

    /** The mode chosen; an unknown one is a usage error. */
    MultiplyAdd mode() {
        try {
            return MultiplyAdd.parse(multiplyAdd);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** {@code options} with the mode chosen. */
    CompileOptions applyTo(CompileOptions options) { return options.withMultiplyAdd(mode()); }

    /** The target as reports record it, with the mode when it is not the default: the code byodt ran was made so. */
    static String describeTarget(String target, MultiplyAdd mode) {
        return mode == MultiplyAdd.SEPARATE ? target : target + ", --multiply-add " + mode.optionName();
    }
}
