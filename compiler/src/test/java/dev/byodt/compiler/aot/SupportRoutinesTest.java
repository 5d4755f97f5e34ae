package dev.byodt.compiler.aot;

import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The routines 32-bit RISC-V executables carry for the compiler (harness/softfloat.c, int64_division.c),
 * compiled for the host and called through java.lang.foreign: soft float against Java's float and double
 * arithmetic (IEEE 754, round to nearest even) on random bit patterns (every class: subnormals, infinities,
 * NaN) plus operands near each other so that subtraction cancels and sums round at ties; 64-bit division
 * against Java's long division; and the harness's memcpy and memset (memory.c, which every RISC-V executable
 * carries) against a byte loop at every alignment of their operands.
 */
class SupportRoutinesTest {
    private static final int CASES = 200_000;
    private static Path directory;
    private static Arena arena;
    private static SymbolLookup library;

    @BeforeAll
    static void compile() throws IOException {
        directory = Files.createTempDirectory("byodt-softfloat-");
        BundledTools tools = BundledTools.get();
        HarnessSources.copy(HarnessSources.HEADER, directory);
        List<String> link = new ArrayList<>(List.of(tools.lld().toString(), "-shared", "-o", directory.resolve("libsupport.so").toString()));
        for (String name : HarnessSources.RISCV32_SUPPORT) {
            Path source = HarnessSources.copy(name, directory);
            Path object = directory.resolve(name.replace(".c", ".o"));
            ProcessResult compiled = tools.run(List.of(tools.clang().toString(), "-O2", "-fPIC", "-ffreestanding", "-fno-builtin",
                "-c", source.toString(), "-o", object.toString()));
            assertTrue(compiled.succeeded(), compiled.firstErrorLine());
            link.add(object.toString());
        }
        // memory.c under names of its own, so that the host's C library keeps its memcpy and memset.
        Path memory = HarnessSources.copy("memory.c", directory);
        ProcessResult compiledMemory = tools.run(List.of(tools.clang().toString(), "-O2", "-fPIC", "-ffreestanding", "-fno-builtin",
            "-Dmemcpy=harness_memcpy", "-Dmemset=harness_memset", "-Dmemmove=harness_memmove", "-Dmemcmp=harness_memcmp",
            "-c", memory.toString(), "-o", directory.resolve("memory.o").toString()));
        assertTrue(compiledMemory.succeeded(), compiledMemory.firstErrorLine());
        link.add(directory.resolve("memory.o").toString());
        Path shared = directory.resolve("libsupport.so");
        ProcessResult linked = tools.run(link);
        assertTrue(linked.succeeded(), linked.firstErrorLine());
        arena = Arena.ofShared();
        library = SymbolLookup.libraryLookup(shared, arena);
    }

    @AfterAll
    static void unload() throws IOException {
        arena.close();
        try (var paths = Files.walk(directory)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    private static MethodHandle function(String name, ValueLayout result, ValueLayout... args) {
        return Linker.nativeLinker().downcallHandle(library.find(name).orElseThrow(), FunctionDescriptor.of(result, args));
    }

    private static final ValueLayout F = ValueLayout.JAVA_FLOAT, D = ValueLayout.JAVA_DOUBLE, I = ValueLayout.JAVA_INT,
        L = ValueLayout.JAVA_LONG;

    /** A NaN compares by class only: RISC-V returns the canonical NaN, Java may keep a payload. */
    private static void assertSameFloat(float expected, float actual, String what) {
        if (Float.isNaN(expected)) assertEquals(0x7fc00000, Float.floatToRawIntBits(actual), what);
        else assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(actual), what);
    }

    private static void assertSameDouble(double expected, double actual, String what) {
        if (Double.isNaN(expected)) assertEquals(0x7ff8000000000000L, Double.doubleToRawLongBits(actual), what);
        else assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(actual), what);
    }

    private static List<float[]> floatPairs() {
        Random random = new Random(20240611);
        List<float[]> pairs = new ArrayList<>();
        float[] special = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1f, -1f, 0.1f, 3f};
        for (float a : special) for (float b : special) pairs.add(new float[]{a, b});
        for (int i = 0; i < CASES; i++) {
            float a = Float.intBitsToFloat(random.nextInt());
            float b = switch (i % 3) {
                case 0 -> Float.intBitsToFloat(random.nextInt());
                case 1 -> Float.intBitsToFloat(Float.floatToRawIntBits(a) + random.nextInt(64) - 32);  // near a: cancellation
                default -> Float.intBitsToFloat((Float.floatToRawIntBits(a) & 0x80000000) | (random.nextInt(0x01000000) + 0x3f000000)); // near 1
            };
            pairs.add(new float[]{a, b});
        }
        return pairs;
    }

    private static List<double[]> doublePairs() {
        Random random = new Random(20240612);
        List<double[]> pairs = new ArrayList<>();
        double[] special = {0, -0.0, Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 1, -1, 0.1, 3};
        for (double a : special) for (double b : special) pairs.add(new double[]{a, b});
        for (int i = 0; i < CASES; i++) {
            double a = Double.longBitsToDouble(random.nextLong());
            double b = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> Double.longBitsToDouble(Double.doubleToRawLongBits(a) + random.nextInt(64) - 32);
                default -> Math.scalb(a, -random.nextInt(60)) * (random.nextBoolean() ? 1 : -1);
            };
            pairs.add(new double[]{a, b});
        }
        return pairs;
    }

    @Test
    void floatArithmeticRoundsLikeIeee() throws Throwable {
        MethodHandle add = function("__addsf3", F, F, F), sub = function("__subsf3", F, F, F),
            mul = function("__mulsf3", F, F, F), div = function("__divsf3", F, F, F),
            lt = function("__ltsf2", I, F, F), ge = function("__gesf2", I, F, F), unord = function("__unordsf2", I, F, F),
            extend = function("__extendsfdf2", D, F), toInt = function("__fixsfsi", I, F), fromInt = function("__floatsisf", F, I);
        for (float[] p : floatPairs()) {
            float a = p[0], b = p[1];
            String what = Float.toHexString(a) + " , " + Float.toHexString(b);
            assertSameFloat(a + b, (float) add.invokeExact(a, b), "add " + what);
            assertSameFloat(a - b, (float) sub.invokeExact(a, b), "sub " + what);
            assertSameFloat(a * b, (float) mul.invokeExact(a, b), "mul " + what);
            assertSameFloat(a / b, (float) div.invokeExact(a, b), "div " + what);
            assertEquals(a < b, (int) lt.invokeExact(a, b) < 0, "lt " + what);
            assertEquals(a >= b, (int) ge.invokeExact(a, b) >= 0, "ge " + what);
            assertEquals(Float.isNaN(a) || Float.isNaN(b), (int) unord.invokeExact(a, b) != 0, "unord " + what);
            assertSameDouble(a, (double) extend.invokeExact(a), "extend " + what);
            // Java's (int) cast saturates like RISC-V's fcvt.w.s, except that NaN gives 0 there and 2^31-1 here.
            assertEquals(Float.isNaN(a) ? Integer.MAX_VALUE : (int) a, (int) toInt.invokeExact(a), "fix " + what);
            int n = Float.floatToRawIntBits(b);
            assertSameFloat((float) n, (float) fromInt.invokeExact(n), "float " + n);
        }
    }

    /**
     * fmaf, what llvm.fma.f32 calls on a core without the instruction (riscv32's --multiply-add fused), against the
     * exact a * b + c rounded once: in BigDecimal for a finite nonzero result, by IEEE 754's rules otherwise (a special
     * operand, or an exact zero, whose sign those rules give and Java's a * b + c computes, as its product is then exact).
     * The triples reach cancellation (c near -a * b), ties (a and b near 1, c a power of two), subnormal and
     * overflowing results.
     */
    @Test
    void fusedMultiplyAddRoundsOnce() throws Throwable {
        MethodHandle fma = function("fmaf", F, F, F, F);
        Random random = new Random(20261127);
        List<float[]> triples = new ArrayList<>();
        for (float[] p : floatPairs()) {
            float a = p[0], b = p[1];
            float c = switch (triples.size() % 4) {
                case 0 -> Float.intBitsToFloat(random.nextInt());
                case 1 -> -(a * b) * (1 + (random.nextInt(64) - 32) * 0x1p-24f);       // cancels the product's top bits
                case 2 -> Math.scalb(1f, random.nextInt(60) - 30) * (random.nextBoolean() ? 1 : -1);
                default -> Float.intBitsToFloat(Float.floatToRawIntBits(a * b) + random.nextInt(3) - 1);
            };
            triples.add(new float[]{a, b, c});
        }
        for (float[] t : triples) {
            float a = t[0], b = t[1], c = t[2];
            String what = Float.toHexString(a) + " * " + Float.toHexString(b) + " + " + Float.toHexString(c);
            assertSameFloat(roundedOnce(a, b, c), (float) fma.invokeExact(a, b, c), "fma " + what);
        }
    }

    private static float roundedOnce(float a, float b, float c) {
        if (!Float.isFinite(a) || !Float.isFinite(b)) return a * b + c;
        if (!Float.isFinite(c)) return c;
        BigDecimal exact = new BigDecimal(a).multiply(new BigDecimal(b)).add(new BigDecimal(c));
        return exact.signum() == 0 ? a * b + c : exact.floatValue();
    }

    /**
     * memcpy and memset at every offset 0..15 of each operand and length 0..80: the bytes they write are those
     * of a byte loop, and no byte outside them changes.
     */
    @Test
    void memcpyAndMemsetWriteWhatAByteLoopWritesAtEveryAlignment() throws Throwable {
        MethodHandle memcpy = function("harness_memcpy", ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, L);
        MethodHandle memset = function("harness_memset", ValueLayout.ADDRESS, ValueLayout.ADDRESS, I, L);
        try (Arena scratch = Arena.ofConfined()) {
            var destination = scratch.allocate(128, 16);
            var source = scratch.allocate(128, 16);
            for (int i = 0; i < 128; i++) source.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 37 + 11));
            for (int to = 0; to < 16; to++) {
                for (int length = 0; length <= 80; length++) {
                    for (int from = 0; from < 16; from++) {
                        destination.fill((byte) 0x5A);
                        var result = (java.lang.foreign.MemorySegment) memcpy.invokeExact(destination.asSlice(to), source.asSlice(from), (long) length);
                        assertEquals(destination.asSlice(to).address(), result.address());
                        for (int i = 0; i < 128; i++) {
                            byte expected = i >= to && i < to + length ? source.get(ValueLayout.JAVA_BYTE, from + i - to) : (byte) 0x5A;
                            assertEquals(expected, destination.get(ValueLayout.JAVA_BYTE, i), "memcpy to +" + to + " from +" + from + ", " + length + " bytes: byte " + i);
                        }
                    }
                    for (int value : new int[]{0, 0xA5, -1, 0x1234}) {
                        destination.fill((byte) 0x5A);
                        var result = (java.lang.foreign.MemorySegment) memset.invokeExact(destination.asSlice(to), value, (long) length);
                        assertEquals(destination.asSlice(to).address(), result.address());
                        for (int i = 0; i < 128; i++) {
                            byte expected = i >= to && i < to + length ? (byte) value : (byte) 0x5A;
                            assertEquals(expected, destination.get(ValueLayout.JAVA_BYTE, i), "memset +" + to + " to " + value + ", " + length + " bytes: byte " + i);
                        }
                    }
                }
            }
        }
    }

    @Test
    void sixtyFourBitDivisionIsJavas() throws Throwable {
        MethodHandle div = function("__divdi3", L, L, L), mod = function("__moddi3", L, L, L),
            udiv = function("__udivdi3", L, L, L), umod = function("__umoddi3", L, L, L);
        Random random = new Random(20240613);
        long[] edges = {0, 1, -1, 7, -7, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32, (1L << 32) - 1};
        List<long[]> pairs = new ArrayList<>();
        for (long n : edges) for (long d : edges) pairs.add(new long[]{n, d});
        for (int i = 0; i < CASES; i++) {
            long n = random.nextLong() >> random.nextInt(64), d = random.nextLong() >> random.nextInt(64);
            pairs.add(new long[]{n, d});
        }
        for (long[] p : pairs) {
            long n = p[0], d = p[1];
            if (d == 0) continue;
            String what = n + " / " + d;
            if (!(n == Long.MIN_VALUE && d == -1)) {
                assertEquals(n / d, (long) div.invokeExact(n, d), what);
                assertEquals(n % d, (long) mod.invokeExact(n, d), what);
            }
            assertEquals(Long.divideUnsigned(n, d), (long) udiv.invokeExact(n, d), "unsigned " + what);
            assertEquals(Long.remainderUnsigned(n, d), (long) umod.invokeExact(n, d), "unsigned " + what);
        }
    }

    @Test
    void doubleArithmeticRoundsLikeIeee() throws Throwable {
        MethodHandle add = function("__adddf3", D, D, D), sub = function("__subdf3", D, D, D),
            mul = function("__muldf3", D, D, D), div = function("__divdf3", D, D, D),
            le = function("__ledf2", I, D, D), gt = function("__gtdf2", I, D, D), eq = function("__eqdf2", I, D, D),
            trunc = function("__truncdfsf2", F, D), toLong = function("__fixdfdi", L, D), toInt = function("__fixdfsi", I, D),
            fromLong = function("__floatdidf", D, L), fromInt = function("__floatsidf", D, I);
        for (double[] p : doublePairs()) {
            double a = p[0], b = p[1];
            String what = Double.toHexString(a) + " , " + Double.toHexString(b);
            assertSameDouble(a + b, (double) add.invokeExact(a, b), "add " + what);
            assertSameDouble(a - b, (double) sub.invokeExact(a, b), "sub " + what);
            assertSameDouble(a * b, (double) mul.invokeExact(a, b), "mul " + what);
            assertSameDouble(a / b, (double) div.invokeExact(a, b), "div " + what);
            assertEquals(a <= b, (int) le.invokeExact(a, b) <= 0, "le " + what);
            assertEquals(a > b, (int) gt.invokeExact(a, b) > 0, "gt " + what);
            assertEquals(a == b, (int) eq.invokeExact(a, b) == 0, "eq " + what);
            assertSameFloat((float) a, (float) trunc.invokeExact(a), "trunc " + what);
            double scaled = Math.scalb(b, -1000);  // magnitudes around 2^0..2^60, where integer conversion is interesting
            assertEquals(Double.isNaN(scaled) ? Long.MAX_VALUE : (long) scaled, (long) toLong.invokeExact(scaled), "fixdi " + scaled);
            assertEquals(Double.isNaN(scaled) ? Integer.MAX_VALUE : (int) scaled, (int) toInt.invokeExact(scaled), "fixsi " + scaled);
            long n = Double.doubleToRawLongBits(b);
            assertSameDouble((double) n, (double) fromLong.invokeExact(n), "floatdi " + n);
            assertSameDouble((double) (int) n, (double) fromInt.invokeExact((int) n), "floatsi " + n);
        }
    }
}
