package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.MinifloatCast;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A Cast to an 8- or 4-bit float inside a model rounds the value as byodt's own conversion
 * ({@link MinifloatCast}, tested against exact references in the runtime's MinifloatElementTypesTest) does, with
 * each saturate and round_mode, in compiled code on every float16 value, a seeded sample of float32 values and
 * the edges, and in the interpreter on every 16th of them. QuantizeLinear to these types rounds the same way, and DequantizeLinear reads
 * their values.
 */
class CastToMinifloatTest {
    private static final ElementType[] TYPES = {ElementType.FLOAT8E4M3FN, ElementType.FLOAT8E4M3FNUZ, ElementType.FLOAT8E5M2,
        ElementType.FLOAT8E5M2FNUZ, ElementType.FLOAT4E2M1, ElementType.FLOAT8E8M0};

    /**
     * Every {@code stride}-th float16 value, seeded random float32 bit patterns and the edge cases. The compiled
     * model takes every float16 value (stride 1); the interpreter, which is slow, every 16th.
     */
    private static Tensor samples(int stride) {
        Random random = new Random(25);
        float[] edges = {0, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE, Float.MIN_VALUE,
            Float.MIN_NORMAL, 0x1p-127f, 1.5f * 0x1p127f, 448, 464, 465, 480, 240, 248, 57344, 61440, 0.25f, 5, 7, 1e6f, -1e-7f};
        int halves = 65536 / stride, randoms = 20_000 / stride;
        float[] values = new float[halves + randoms + edges.length];
        for (int h = 0; h < halves; h++) values[h] = Float.float16ToFloat((short) (h * stride));
        for (int i = 0; i < randoms; i++) values[halves + i] = Float.intBitsToFloat(random.nextInt());
        System.arraycopy(edges, 0, values, halves + randoms, edges.length);
        return Tensor.ofFloats(new long[] {values.length}, values);
    }

    /** The compiled model on every sample, the interpreter on every 16th. */
    private static final Map<GraphExecutor, Tensor> EXECUTORS_AND_INPUTS = Map.of(
        GraphExecutor.compiled(CompileOptions.host()), samples(1), GraphInterpreter::run, samples(16));

    @Test
    void everySaturateAndRoundModeRoundsAsTheBoundaryConversionDefinesIt() {
        for (ElementType type : TYPES) {
            for (long saturate : new long[] {1, 0}) {
                for (MinifloatCast.E8m0Rounding mode : type == ElementType.FLOAT8E8M0 ? MinifloatCast.E8m0Rounding.values()
                        : new MinifloatCast.E8m0Rounding[] {MinifloatCast.E8m0Rounding.UP}) {
                    MinifloatCast cast = new MinifloatCast(type.minifloat(), saturate == 1, mode);
                    for (Map.Entry<GraphExecutor, Tensor> run : EXECUTORS_AND_INPUTS.entrySet()) {
                        Tensor x = run.getValue();
                        NodeCase node = new NodeCase("Cast", 25).attr("to", (long) type.onnxCode()).attr("saturate", saturate)
                            .attr("round_mode", mode.name().toLowerCase()).input(x);
                        Tensor y = node.run(run.getKey()).getFirst();
                        for (int i = 0; i < x.elementCount(); i++) {
                            double want = type.minifloat().value(cast.encode(x.getFloat(i)));
                            assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(y.getFloat(i)),
                                type + " saturate=" + saturate + " " + mode + " of " + x.getFloat(i) + ": " + y.getFloat(i));
                        }
                    }
                }
            }
        }
    }

    @Test
    void quantizeLinearToAFloat8RoundsTheQuotientAsCastDoes() {
        for (ElementType type : new ElementType[] {ElementType.FLOAT8E4M3FN, ElementType.FLOAT8E5M2, ElementType.FLOAT4E2M1}) {
            for (long saturate : new long[] {1, 0}) {
                MinifloatCast cast = new MinifloatCast(type.minifloat(), saturate == 1, MinifloatCast.E8m0Rounding.UP);
                for (Map.Entry<GraphExecutor, Tensor> run : EXECUTORS_AND_INPUTS.entrySet()) {
                    Tensor x = run.getValue();
                    NodeCase node = new NodeCase("QuantizeLinear", 21).attr("output_dtype", (long) type.onnxCode())
                        .attr("saturate", saturate).input(x).constant(Tensor.ofFloats(new long[0], new float[] {0.375f}));
                    Tensor y = node.run(run.getKey()).getFirst();
                    for (int i = 0; i < x.elementCount(); i++) {
                        double want = type.minifloat().value(cast.encode(x.getFloat(i) / 0.375f));
                        assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(y.getFloat(i)),
                            type + " saturate=" + saturate + " of " + x.getFloat(i));
                    }
                }
            }
        }
    }

    @Test
    void dequantizeLinearOfAFloat8IsItsValueLessTheZeroPointTimesTheScale() {
        Tensor patterns = Tensor.zeros(ElementType.FLOAT8E4M3FN, new long[] {256});
        for (int p = 0; p < 256; p++) patterns.data().set(ValueLayout.JAVA_BYTE, p, (byte) p);
        Tensor y = new NodeCase("DequantizeLinear", 21).input(patterns).constant(Tensor.ofFloats(new long[0], new float[] {3}))
            .runOne();
        for (int p = 0; p < 256; p++) {
            float want = (float) ElementType.FLOAT8E4M3FN.minifloat().value(p) * 3;
            assertEquals(Float.floatToIntBits(want), Float.floatToIntBits(y.getFloat(p)), "pattern " + p);
        }
    }

    @Test
    void anUnknownRoundModeIsOneLineNamingTheNode() {
        NodeCase node = new NodeCase("Cast", 25).attr("to", (long) ElementType.FLOAT8E8M0.onnxCode()).attr("round_mode", "away")
            .input(Tensor.ofFloats(new long[] {1}, new float[] {1}));
        Exception e = assertThrows(RuntimeException.class, node::runOne);
        assertEquals("Cast node 'cast': attribute round_mode='away' must be up, down or nearest", e.getMessage());
    }
}
