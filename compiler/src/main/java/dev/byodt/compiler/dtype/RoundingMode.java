package dev.byodt.compiler.dtype;

import java.util.Arrays;
import java.util.List;

/**
 * The roundings --rounding chooses among for the datatypes whose libraries offer them (minifloat.c's, posit.c's
 * and fixed.c's, through common/rounding.c), each the rounding of every result of the datatype: conversions from
 * float32, float64 and int32, and every arithmetic result (docs/datatypes.md, "Rounding modes"). Stochastic
 * rounding also takes {@link StochasticRounding}'s --sr-bits and --seed.
 */
public enum RoundingMode {
    NEAREST_EVEN("nearest", "to nearest, ties to the even significand (the default)"),
    NEAREST_AWAY("nearest-away", "to nearest, ties away from zero"),
    TOWARD_ZERO("toward-zero", "toward zero"),
    UP("up", "toward +infinity"),
    DOWN("down", "toward -infinity"),
    ODD("odd", "to odd: an inexact result takes the neighbour whose last bit is 1"),
    STOCHASTIC("stochastic", "up with the probability of the cut fraction (its first --sr-bits bits), from random bits "
        + "that hash --seed, the operation and the element");

    private final String optionName;
    private final String meaning;

    RoundingMode(String optionName, String meaning) {
        this.optionName = optionName;
        this.meaning = meaning;
    }

    /** How --rounding spells it. */
    public String optionName() { return optionName; }

    /** One line for `byodt dtypes`. */
    public String meaning() { return meaning; }

    /**
     * The library parameters (NAME=VALUE) that select it (common/rounding.c): none for the default, so that the
     * default libraries are compiled as they were before there were other modes.
     */
    public List<String> defines() { return this == NEAREST_EVEN ? List.of() : List.of("BYODT_ROUNDING=BYODT_ROUNDING_" + name()); }

    /** The mode --rounding names {@code optionName}; callers have checked it against the datatype's option values. */
    public static RoundingMode of(String optionName) {
        return Arrays.stream(values()).filter(m -> m.optionName.equals(optionName)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no rounding mode " + optionName));
    }

    /** The option names of {@code modes}, the first the default, for {@link DatatypeDefinition.Builder#option}. */
    public static String[] optionNames(List<RoundingMode> modes) {
        return modes.stream().map(RoundingMode::optionName).toArray(String[]::new);
    }
}
