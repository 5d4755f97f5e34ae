package dev.byodt.cli;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;
import picocli.CommandLine.Option;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** --sr-bits and --seed: stochastic rounding's random bits, for the commands that compile (docs/datatypes.md, "Stochastic rounding"). */
final class StochasticRoundingOptions {
    @Option(names = "--sr-bits", paramLabel = "N",
        description = "With --rounding stochastic: how many random bits each rounding adds to as many cut bits, 1 to 16 "
            + "(default 16).")
    String srBits;

    @Option(names = "--seed", defaultValue = "0", paramLabel = "N",
        description = "Seed of the random bits: stochastic rounding's (a hash of the seed, the operation and the element), "
            + "and in train those of --shuffle and Dropout's masks; the same seed gives the same bits (default: ${DEFAULT-VALUE}).")
    long seed;

    /** Adds --sr-bits to {@code datatypeOptions} for a stochastic {@code rounding}, the mode of one compilation. */
    void addTo(Map<String, String> datatypeOptions, String rounding) {
        if (srBits != null && RoundingMode.STOCHASTIC.optionName().equals(rounding)) datatypeOptions.put(StochasticRounding.BITS_OPTION, srBits);
    }

    /**
     * --sr-bits as a number, or the default when it is not given or not one of 1 to 16 (the datatype's option
     * check reports such a value with the values it takes).
     */
    int bitsOrDefault() {
        List<String> valid = Arrays.asList(StochasticRounding.bitsOptionValues());
        return srBits != null && valid.contains(srBits) ? Integer.parseInt(srBits) : StochasticRounding.DEFAULT_BITS;
    }

    /** A usage error when --sr-bits is given and none of {@code roundings} is stochastic. */
    void requireStochastic(String roundings) {
        boolean stochastic = roundings != null && Arrays.asList(roundings.split(",")).contains(RoundingMode.STOCHASTIC.optionName());
        if (srBits != null && !stochastic) throw new UsageException("--sr-bits " + srBits + " needs --rounding stochastic");
    }

    /** ", sr-bits N, seed S" where the rounding is stochastic, for a report's configuration line. */
    String describe(String rounding) {
        if (!RoundingMode.STOCHASTIC.optionName().equals(rounding)) return "";
        return (srBits != null ? ", sr-bits " + srBits : "") + ", seed " + seed;
    }
}
