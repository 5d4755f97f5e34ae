package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.ConvAlgorithm;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.runtime.ByodtException;
import picocli.CommandLine.Option;

import java.util.function.Supplier;

/**
 * --multiply-add, how float32 multiply-adds round, and --conv-algorithm, how float32 3x3 convolutions compute, for
 * the commands that compile (README, "Accuracy" and "Speed").
 */
final class MultiplyAddOption {
    @Option(names = "--multiply-add", defaultValue = "separate", paramLabel = "separate|fused",
        description = "How each float32 multiply-add of a sum (Conv, MatMul, Gemm, ...; the sums of --accumulate float32 in "
            + "any datatype) rounds: separate, the product rounded then the sum, as ONNX's reference computes, or fused, one "
            + "fused multiply-add rounded once, as ONNX Runtime's and PyTorch's kernels compute: one instruction instead of two "
            + "where the machine has FMA, so faster float32 convolutions, with other last bits. Either gives the same bits on "
            + "every target. Default: ${DEFAULT-VALUE}.")
    String multiplyAdd;

    @Option(names = "--conv-algorithm", defaultValue = "direct", paramLabel = "direct|winograd",
        description = "How float32 3x3 convolutions of stride 1 and one group with constant weights compute: direct, each "
            + "output the sum of its channels times its window, as ONNX's reference computes, or winograd, Winograd's "
            + "F(2x2, 3x3) where it is faster: 2.25 times fewer multiply-adds, the inputs and sums transformed by additions, "
            + "so the outputs carry a few more roundings (other last bits), and an infinite or NaN input reaches the four "
            + "outputs of its tile. Either gives the same bits on every target. Default: ${DEFAULT-VALUE}.")
    String convAlgorithm;

    /** The mode chosen; an unknown one is a usage error. */
    MultiplyAdd mode() { return parsed(() -> MultiplyAdd.parse(multiplyAdd)); }

    /** The convolution algorithm chosen; an unknown one is a usage error. */
    ConvAlgorithm convAlgorithm() { return parsed(() -> ConvAlgorithm.parse(convAlgorithm)); }

    private static <T> T parsed(Supplier<T> parse) {
        try {
            return parse.get();
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** {@code options} with the mode and the convolution algorithm chosen. */
    CompileOptions applyTo(CompileOptions options) { return options.withMultiplyAdd(mode()).withConvAlgorithm(convAlgorithm()); }

    /**
     * The target as reports record it, with the options that are not the default: the code byodt ran was made so.
     */
    static String describeTarget(String target, CompileOptions options) {
        String described = options.multiplyAdd() == MultiplyAdd.SEPARATE ? target : target + ", --multiply-add " + options.multiplyAdd().optionName();
        return options.convAlgorithm() == ConvAlgorithm.DIRECT ? described : described + ", --conv-algorithm " + options.convAlgorithm().optionName();
    }

    /** How float32 computes, as the benches' headers say it: "multiply-add fused" and, where chosen, ", conv-algorithm winograd". */
    static String describeFloat32(CompileOptions options) {
        return "multiply-add " + options.multiplyAdd().optionName()
            + (options.convAlgorithm() == ConvAlgorithm.DIRECT ? "" : ", conv-algorithm " + options.convAlgorithm().optionName());
    }
}
