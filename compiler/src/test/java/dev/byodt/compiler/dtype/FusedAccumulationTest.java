package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.posit.PositReference;
import dev.byodt.compiler.dtype.reference.FusedDotReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * --accumulate fused: a MatMul [M, K] x [K, 3] compiled with the unit of common/fused_dot.c against
 * {@link FusedDotReference}, bit for bit. B's first column is all ones, so that a row of A is the products
 * themselves; its second is seeded, its third large. A's rows are seeded values of the datatype, then the edge
 * cases: cancellation, products far below the group's largest, ties at the window's last bit, overflow to
 * infinity (bfloat16's products exceed float32), NaN and infinite operands. K = 37 leaves a short last group.
 */
class FusedAccumulationTest {
    private static final int K = 37, N = 3, SEEDED_ROWS = 24;

    /** A datatype as the test knows it: its name, its rounding of a double (to its value, as a double) and a large value. */
    private record Format(String datatype, DoubleUnaryOperator rounding, double large) {}

    private static Format format(String name) {
        return switch (name) {
            case "posit16" -> {
                PositReference posit = new PositReference(16, 2);
                yield new Format("custom[posit]16", x -> posit.toDouble(posit.fromDouble(x)), 0x1p40);
            }
            case "bfloat16" -> minifloat("bfloat16", MinifloatReference.ieee(8, 7), 0x1p100);
            case "fp8e4m3" -> minifloat("custom[fp8e4m3]8", new MinifloatReference(4, 3, MinifloatReference.Specials.FN, false), 448);
            default -> throw new IllegalArgumentException(name);
        };
    }

    private static Format minifloat(String datatype, MinifloatReference reference, double large) {
        return new Format(datatype, x -> reference.toDouble(reference.fromDouble(x)), large);
    }

    @ParameterizedTest(name = "{0} --accumulate {1}")
    @CsvSource(delimiter = ';', value = {
        "posit16; fused:hopper-fp8", "bfloat16; fused:hopper-fp8", "fp8e4m3; fused:hopper-fp8",
        "posit16; fused:volta-fp16", "bfloat16; fused:volta-fp16", "fp8e4m3; fused:volta-fp16",
        "posit16; fused:F=3,G=4,rounding=rne", "bfloat16; fused:F=3,G=4,rounding=rne", "fp8e4m3; fused:F=3,G=4,rounding=rne",
        "posit16; fused:F=3,G=4,rounding=rz", "bfloat16; fused:F=3,G=4", "fp8e4m3; fused:F=3,G=4,rounding=rz",
        "posit16; fused:F=30,G=1,rounding=rne", "bfloat16; fused:F=8,G=63,rounding=rne,acc=float32", "fp8e4m3; fused:F=1,G=2"})
    void sumsAsTheReferenceUnitDoes(String name, String accumulate) {
        Format format = format(name);
        AccumulationMode.Fused mode = (AccumulationMode.Fused) AccumulationMode.parse(accumulate);
        float[][] rows = rows(format, mode.fractionBits());
        float[] a = flattened(rows);
        float[] b = columns(format);
        FusedDotReference unit = new FusedDotReference(mode.fractionBits(), mode.group(), mode.rounding() == AccumulationMode.Rounding.RNE);
        float[] expected = new float[rows.length * N];
        for (int i = 0; i < rows.length; i++) {
            for (int j = 0; j < N; j++) {
                double[] x = new double[K], y = new double[K];
                for (int k = 0; k < K; k++) {
                    x[k] = format.rounding().applyAsDouble(rows[i][k]);
                    y[k] = format.rounding().applyAsDouble(b[k * N + j]);
                }
                expected[i * N + j] = (float) format.rounding().applyAsDouble(unit.dot(x, y));
            }
        }
        assertArrayEquals(expected, run(format.datatype(), mode, rows.length, a, b));
    }

    /** Seeded values of the datatype (mostly within 2^-6 .. 2^6, some anywhere up to its large value), then the edge rows. */
    private static float[][] rows(Format format, int fractionBits) {
        Random random = new Random(16 * 31 + fractionBits);
        List<float[]> rows = new ArrayList<>();
        for (int r = 0; r < SEEDED_ROWS; r++) {
            float[] row = new float[K];
            for (int k = 0; k < K; k++) {
                double magnitude = random.nextInt(8) == 0 ? format.large() * random.nextDouble() : Math.scalb(1 + random.nextDouble(), random.nextInt(13) - 6);
                row[k] = (float) format.rounding().applyAsDouble(random.nextBoolean() ? magnitude : -magnitude);
            }
            rows.add(row);
        }
        float[] cancellation = filled(1f / 64);
        for (int k = 0; k + 1 < K; k += 2) {
            cancellation[k] = 3 + k;
            cancellation[k + 1] = -(3 + k);
        }
        rows.add(cancellation);
        float[] farBelow = filled((float) format.rounding().applyAsDouble(0x1p-12));
        farBelow[0] = 8;
        rows.add(farBelow);
        // Terms at 1/2 and 3/2 of the window's last unit below a leading 1: ties where the datatype holds them.
        float[] ties = filled(0);
        for (int k = 0; k + 2 < K; k += 4) {
            ties[k] = 1;
            ties[k + 1] = (float) format.rounding().applyAsDouble(Math.scalb(1.0, -fractionBits - 1));
            ties[k + 2] = (float) format.rounding().applyAsDouble(Math.scalb(3.0, -fractionBits - 1));
        }
        rows.add(ties);
        rows.add(filled((float) format.large()));
        float[] nan = filled(1);
        nan[5] = Float.NaN;
        rows.add(nan);
        float[] infinities = filled(1);
        infinities[3] = Float.POSITIVE_INFINITY;
        infinities[30] = Float.NEGATIVE_INFINITY;
        rows.add(infinities);
        float[] infinity = filled(1);
        infinity[36] = Float.POSITIVE_INFINITY;
        rows.add(infinity);
        return rows.toArray(float[][]::new);
    }

    /** B [K, 3]: ones, seeded values of the datatype, the datatype's large value. */
    private static float[] columns(Format format) {
        Random random = new Random(99);
        float[] b = new float[K * N];
        for (int k = 0; k < K; k++) {
            b[k * N] = 1;
            b[k * N + 1] = (float) format.rounding().applyAsDouble((random.nextDouble() * 2 - 1) * 4);
            b[k * N + 2] = (float) format.large();
        }
        return b;
    }

    private static String parseError(String accumulate) {
        return assertThrows(ByodtException.class, () -> AccumulationMode.parse(accumulate)).getMessage();
    }

    /** A [M, K] from its rows. */
    private static float[] flattened(float[][] rows) {
        float[] a = new float[rows.length * K];
        for (int i = 0; i < rows.length; i++) System.arraycopy(rows[i], 0, a, i * K, K);
        return a;
    }

    private static float[] filled(float value) {
        float[] row = new float[K];
        Arrays.fill(row, value);
        return row;
    }

    private static float[] run(String datatype, AccumulationMode mode, int m, float[] a, float[] b) {
        CompileOptions options = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype).withAccumulation(mode));
        long[] aShape = {m, K}, bShape = {K, N};
        try (CompiledModule module = Compiler.compile(MatMulAccumulationOrderTest.matMul(aShape, bShape), options); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(Tensor.ofFloats(aShape, a), Tensor.ofFloats(bShape, b))).getFirst().toFloatArray();
        }
    }

    /** The hopper-fp8 unit keeps 13 fraction bits in its accumulator, so it loses what float32 accumulation keeps. */
    @Test
    void hopperFp8DiffersFromFloat32Accumulation() {
        float[][] rows = rows(format("bfloat16"), 13);
        float[] a = flattened(rows);
        float[] b = columns(format("bfloat16"));
        assertFalse(Arrays.equals(run("bfloat16", AccumulationMode.parse("fused:hopper-fp8"), rows.length, a, b),
            run("bfloat16", AccumulationMode.FLOAT32, rows.length, a, b)));
    }

    @Test
    void aDatatypeFloat32DoesNotHoldIsRefusedInOneLine() {
        float[] a = new float[K], b = new float[K * N];
        ByodtException posit32 = assertThrows(ByodtException.class,
            () -> run("custom[posit]32", AccumulationMode.parse("fused:hopper-fp8"), 1, a, b));
        assertEquals("datatype custom[posit]32 does not support --accumulate fused:hopper-fp8: float32 does not hold its values"
            + " exactly, so the fused unit would not see exact products", posit32.getMessage());
        ByodtException fixed = assertThrows(ByodtException.class,
            () -> run("fxp16_8", AccumulationMode.parse("fused:F=13,G=32"), 1, a, b));
        assertEquals("datatype fxp16_8 does not support --accumulate fused:F=13,G=32 (it supports [dtype, float32, exact, int:W])",
            fixed.getMessage());
    }

    @Test
    void badParametersAreOneLineErrors() {
        assertEquals("--accumulate fused:F=13: F=<bits> and G=<group> are required, as in fused:F=13,G=32",
            parseError("fused:F=13"));
        assertEquals("--accumulate fused:F=41,G=4: F must be 1..40",
            parseError("fused:F=41,G=4"));
        assertEquals("--accumulate fused:F=13,G=64: G must be 1..63",
            parseError("fused:F=13,G=64"));
        assertEquals("--accumulate fused: unknown rounding 'rna' (rz or rne)",
            parseError("fused:F=13,G=4,rounding=rna"));
        assertEquals("--accumulate fused:F=13,G=4,acc=float16: the accumulator is float32 (acc=float32)",
            parseError("fused:F=13,G=4,acc=float16"));
        assertEquals("--accumulate fused:F=13,H=4: expected F=<bits>,G=<group>[,rounding=rz|rne][,acc=float32], not 'H=4'",
            parseError("fused:F=13,H=4"));
        assertEquals("--accumulate fused:blackwell: no such preset (hopper-fp8, volta-fp16, or F=<bits>,G=<group>[,rounding=rz|rne])",
            parseError("fused:blackwell"));
    }
}
