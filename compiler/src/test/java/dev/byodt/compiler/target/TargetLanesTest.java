package dev.byodt.compiler.target;

import dev.byodt.compiler.Targets;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The vector width each target is compiled for, and the lanes the tuned schedules size their blocks by. */
class TargetLanesTest {
    private static Target x86(String features) {
        return new Target("x86", "x86_64-unknown-linux-gnu", "generic", features);
    }

    @Test
    void x86VectorsAre512BitsOnlyWhereTheFeatureStringEnablesAvx512F() {
        assertEquals(512, x86("+sse2,+avx,+avx2,+avx512f,+avx512bw").vectorBits());
        assertEquals(256, x86("+sse2,+avx,+avx2,-avx512f,-avx512bw").vectorBits());
        assertEquals(256, x86("+avx,+avx512fp16").vectorBits());
        assertEquals(128, x86("+sse2").vectorBits());
        assertEquals(128, x86("").vectorBits());
    }

    @Test
    void onX86DatatypesNarrowerThan32BitsFillAVectorAsFloat32Does() {
        Target avx512 = x86("+avx,+avx512f");
        assertEquals(16, avx512.lanes(32));
        assertEquals(16, avx512.lanes(16));
        assertEquals(16, avx512.lanes(8));
        assertEquals(8, avx512.lanes(64));
        assertEquals(8, x86("+avx").lanes(16));
        assertEquals(4, x86("+sse2").lanes(32));
    }

    @Test
    void riscvHasOneLaneWithoutPAndPacksItsRegistersWithP() {
        for (String scalar : new String[] {"riscv64", "riscv32", "riscv32f"}) {
            assertEquals(0, Targets.named(scalar).vectorBits(), scalar);
            assertEquals(1, Targets.named(scalar).lanes(8), scalar);
            assertEquals(1, Targets.named(scalar).lanes(32), scalar);
        }
        assertEquals(4, Targets.named("riscv64p").lanes(16));
        assertEquals(8, Targets.named("riscv64p").lanes(8));
        assertEquals(2, Targets.named("riscv64p").lanes(32));
        assertEquals(2, Targets.named("riscv32p").lanes(16));
        assertEquals(1, Targets.named("riscv32p").lanes(32));
    }
}
