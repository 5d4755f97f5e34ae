package dev.byodt.cli.microbench;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/** The targets issue 4 sets, and only those: ratios for the datatypes it names, the 10x for their add and mul. */
class PerformanceTargetsTest {
    @Test
    void ratiosForTheNamedDatatypes() {
        assertEquals(Optional.of(4.0), PerformanceTargets.maxRatioToFloat32("custom[posit]16"));
        assertEquals(Optional.of(2.0), PerformanceTargets.maxRatioToFloat32("custom[posit]8"));
        assertEquals(Optional.of(1.5), PerformanceTargets.maxRatioToFloat32("fxp16_13"));
        assertEquals(Optional.of(2.0), PerformanceTargets.maxRatioToFloat32("bfloat16"));
        assertEquals(Optional.of(2.0), PerformanceTargets.maxRatioToFloat32("float16"));
        assertEquals(Optional.empty(), PerformanceTargets.maxRatioToFloat32("custom[posit]32"));
        assertEquals(Optional.empty(), PerformanceTargets.maxRatioToFloat32("fxp32_16"));
    }

    @Test
    void theSpeedupTargetCoversTheAddAndMulOfTheNamedDatatypes() {
        assertTrue(PerformanceTargets.hasSpeedupTarget("custom[posit]16", "add"));
        assertTrue(PerformanceTargets.hasSpeedupTarget("fxp16_8", "mul"));
        assertFalse(PerformanceTargets.hasSpeedupTarget("custom[posit]16", "matmul"));
        assertFalse(PerformanceTargets.hasSpeedupTarget("fxp32_16", "add"));
        assertFalse(PerformanceTargets.hasSpeedupTarget("custom[fp8e4m3]8", "mul"));
    }
}
