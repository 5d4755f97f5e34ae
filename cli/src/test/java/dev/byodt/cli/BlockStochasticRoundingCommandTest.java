package dev.byodt.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** `run --dtype mxint8 --rounding stochastic`: the same seed gives the same figures, another seed others. */
class BlockStochasticRoundingCommandTest {
    private static final String LENET = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("lenet5-fashion.onnx").toString();
    private static final Pattern ROW = Pattern.compile("(?m)^(mxint8 with --vector-dtype bfloat16 +float32 +stochastic .*)$");

    @Test
    void aSeedGivesItsOwnFigures() {
        String first = row("1"), again = row("1"), other = row("2");
        assertEquals(first, again);
        assertNotEquals(first, other);
    }

    private static String row(String seed) {
        CommandLineRun run = CommandLineRun.of("run", LENET, "--dtype", "mxint8", "--rounding", "stochastic", "--sr-bits", "8", "--seed", seed, "--limit", "50");
        assertEquals(0, run.exitCode(), run.err());
        Matcher m = ROW.matcher(run.out());
        assertTrue(m.find(), run.out());
        return m.group(1);
    }
}
