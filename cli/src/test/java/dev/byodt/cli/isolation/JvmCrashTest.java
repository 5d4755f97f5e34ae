package dev.byodt.cli.isolation;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where a crash happened, from the name of the function the faulting address is in. */
class JvmCrashTest {
    private static String where(String function) {
        return new JvmCrash("SIGSEGV", Optional.of(function)).where();
    }

    @Test
    void aKernelNamesItsNodeAndASharedKernelSaysOthersRunItsCode() {
        assertEquals("in node 'conv1' (Conv)", where("k0.Conv.conv1"));
        assertEquals("in node '/enc/layers.0/act' (Tanh) or one of 7 identical nodes that run its code",
            where("k5.Tanh./enc/layers.0/act (+7 identical)"));
        assertEquals("in lns16_tanh", where("lns16_tanh"));
    }

    @Test
    void theFunctionIsTheOneStartingNearestBelowTheAddress() {
        String starts = "1000 k0.Conv.conv1\n2000 k1.Tanh.act (+3 identical)\n";
        assertEquals(Optional.of("k1.Tanh.act (+3 identical)"), JvmCrash.functionAt(0x2010, starts));
        assertEquals(Optional.of("k0.Conv.conv1"), JvmCrash.functionAt(0x1fff, starts));
        assertEquals(Optional.empty(), JvmCrash.functionAt(0x10, starts));
    }
}
