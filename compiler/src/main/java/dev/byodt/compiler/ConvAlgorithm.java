package dev.byodt.compiler;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How float32 3x3 convolutions of stride 1 compute, --conv-algorithm. Both give the same bits on every target;
 * they give different bits from each other.
 */
public enum ConvAlgorithm {
    /** Each output sums its channels times its window, in that order, as ONNX's reference does. */
    DIRECT,
    /**
     * Winograd's F(2x2, 3x3) where it is faster (dev.byodt.compiler.ops.WinogradConv): 2.25 times fewer
     * multiply-adds, inputs and sums transformed by additions, so each output carries a few more roundings.
     */
    WINOGRAD;

    /** direct or winograd, as --conv-algorithm spells it. */
    public String optionName() { return name().toLowerCase(Locale.ROOT); }

    /** Parses --conv-algorithm's value. */
    public static ConvAlgorithm parse(String text) {
        for (ConvAlgorithm a : values()) {
            if (a.optionName().equals(text)) return a;
        }
        throw new ByodtException("unknown --conv-algorithm '" + text + "' ("
            + Arrays.stream(values()).map(ConvAlgorithm::optionName).collect(Collectors.joining(" or ")) + ")");
    }
}
