package dev.byodt.compiler.dtype.harness;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The harness on a toy library whose results are obvious: every driver shape, -D parameters, accumulators. */
class NativeLibraryTest {
    private static NativeLibrary toy() {
        return NativeLibrary.builder("dev/byodt/datatypes/harness/toy.c", "toy", 16)
            .define("TOY_OFFSET", "1")
            .operations(Map.of("add", FunctionShape.BINARY, "lt", FunctionShape.COMPARE, "neg", FunctionShape.UNARY,
                "from_f32", FunctionShape.FROM_F32, "to_f32", FunctionShape.TO_F32, "from_f64", FunctionShape.FROM_F64,
                "from_i32", FunctionShape.FROM_I32, "to_i32", FunctionShape.TO_I32, "lowest", FunctionShape.CONSTANT))
            .accumulatorBits(64)
            .build();
    }

    @Test
    void everyShapeCallsItsFunctionElementwise() {
        try (NativeLibrary lib = toy()) {
            assertArrayEquals(new int[]{3, 0, 0x8000}, lib.binary("add", new int[]{1, 0xFFFF, 0x7FFF}, new int[]{1, 0, 0}));
            assertArrayEquals(new int[]{3}, lib.binary("toy_add", new int[]{1}, new int[]{1}), "full names work too");
            assertArrayEquals(new int[]{1, 0}, lib.compare("lt", new int[]{0xFFFF, 1}, new int[]{0, 1}));
            assertArrayEquals(new int[]{0xFFFF, 0}, lib.unary("neg", new int[]{1, 0}));
            assertArrayEquals(new int[]{0xFFFE, 7}, lib.fromF32("from_f32", new float[]{-2.5f, 7.9f}));
            assertArrayEquals(new float[]{-1f, 5f}, lib.toF32("to_f32", new int[]{0xFFFF, 5}));
            assertArrayEquals(new int[]{0xFFFD}, lib.fromF64("from_f64", new double[]{-3.0}));
            assertArrayEquals(new int[]{0x2345}, lib.fromI32("from_i32", new int[]{0x12345}));
            assertArrayEquals(new int[]{-1, 32767}, lib.toI32("to_i32", new int[]{0xFFFF, 0x7FFF}));
            assertEquals(0x8000, lib.constant("lowest"));
            assertEquals(0, lib.binary("add", new int[0], new int[0]).length);
        }
    }

    @Test
    void accumulatorsAreReturnedPerGroupWithTheirRounding() {
        try (NativeLibrary lib = toy()) {
            NativeLibrary.Accumulated dots = lib.dot(new int[]{2, 3, 0xFFFF, 4}, new int[]{5, 7, 6, 1}, 2);
            assertArrayEquals(new long[]{31}, dots.accumulators()[0]);
            assertArrayEquals(new long[]{-2}, dots.accumulators()[1]);
            assertArrayEquals(new int[]{31, 0xFFFE}, dots.rounded());
            NativeLibrary.Accumulated sums = lib.sum(new int[]{1, 2, 3}, 3);
            assertArrayEquals(new int[]{6}, sums.rounded());
        }
    }

    /** A million elements in one call, every one computed (how fast is bench-dtypes' to say, not a test's). */
    @Test
    void aMillionElementsInOneCall() {
        int n = 1 << 20;
        int[] a = new int[n], b = new int[n];
        for (int i = 0; i < n; i++) { a[i] = i & 0xFFFF; b[i] = (i * 7) & 0xFFFF; }
        try (NativeLibrary lib = toy()) {
            int[] sums = lib.binary("add", a, b);
            for (int i = 0; i < n; i++) assertEquals((a[i] + b[i] + 1) & 0xFFFF, sums[i]);
        }
    }
}
