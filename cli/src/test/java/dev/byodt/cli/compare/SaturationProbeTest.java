package dev.byodt.cli.compare;

import dev.byodt.compiler.CompileOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The largest finite magnitudes, from each format's definition. */
class SaturationProbeTest {
    private static double largest(String dtype) { return SaturationProbe.largestFinite(CompileOptions.host().withDatatype(dtype), Executor.host()); }

    @Test
    void largestFiniteValuesOfTheBuiltInFormats() {
        assertEquals(Double.POSITIVE_INFINITY, largest("float32"));
        assertEquals(65504.0, largest("float16"), "(2 - 2^-10) * 2^15");
        assertEquals((2 - Math.pow(2, -7)) * Math.pow(2, 127), largest("bfloat16"));
        assertEquals(448.0, largest("custom[fp8e4m3]8"), "OCP E4M3: 1.75 * 2^8");
        assertEquals(57344.0, largest("custom[fp8e5m2]8"), "OCP E5M2: 1.75 * 2^15");
        assertEquals((Math.pow(2, 15) - 1) / Math.pow(2, 13), largest("fxp16_13"));
        assertEquals(127.0 / 8, largest("fxp8_3"));
    }
}
