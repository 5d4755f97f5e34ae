package dev.byodt.compiler.codegen;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VectorWidthTest {
    @Test
    void widensOnlyWhereTheFeatureStringEnablesAvx512F() {
        assertTrue(VectorWidth.hasAvx512("+sse2,+avx2,+avx512f,+avx512bw"));
        assertFalse(VectorWidth.hasAvx512("+sse2,+avx2,-avx512f,-avx512bw"));
        assertFalse(VectorWidth.hasAvx512("+avx512fp16"));
        assertFalse(VectorWidth.hasAvx512(""));
        assertFalse(VectorWidth.hasAvx512(null));
    }
}
