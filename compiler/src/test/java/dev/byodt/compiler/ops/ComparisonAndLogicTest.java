package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not, And, Or, Xor, Where, IsNaN, IsInf, Sign and Mod, in
 * the interpreter and compiled in datatypes of every family, on values each of them holds exactly, so that the
 * expected results follow from Java's own arithmetic on those values.
 */
class ComparisonAndLogicTest {
    private static final List<String> DATATYPES = List.of("float32", "bfloat16", "custom[posit]16", "fxp16_13");
    /** Values bfloat16, posit16 and fxp16_13 all hold exactly; the two operands share some, to test equality. */
    private static final float[] A = {-1.5f, 0, 2.25f, 3, -0.5f, 1};
    private static final float[] B = {0, 1, 2.25f};

    private static List<GraphExecutor> executors(String datatype) {
        return List.of(GraphInterpreter::run, GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "bfloat16", "custom[posit]16", "fxp16_13"})
    void comparisonsBroadcastInEveryDatatype(String datatype) {
        for (GraphExecutor executor : executors(datatype)) {
            checkComparison("Equal", (a, b) -> a == b, executor);
            checkComparison("Less", (a, b) -> a < b, executor);
            checkComparison("LessOrEqual", (a, b) -> a <= b, executor);
            checkComparison("Greater", (a, b) -> a > b, executor);
            checkComparison("GreaterOrEqual", (a, b) -> a >= b, executor);
        }
    }

    @FunctionalInterface
    private interface FloatComparison {
        boolean test(float a, float b);
    }

    private static void checkComparison(String opType, FloatComparison expected, GraphExecutor executor) {
        boolean[] want = new boolean[A.length];
        for (int i = 0; i < A.length; i++) want[i] = expected.test(A[i], B[i % B.length]);
        Tensor y = new NodeCase(opType, 13).input(floats(new long[] {2, 3}, A)).input(floats(B)).run(executor).getFirst();
        assertEquals(ElementType.BOOL, y.type());
        assertArrayEquals(want, booleans(y), opType);
    }

    @Test
    void integerAndBoolComparisons() {
        for (GraphExecutor executor : executors("float32")) {
            Tensor less = new NodeCase("Less", 13).input(longs(-5, 3, 1L << 40)).input(longs(-4, 3, 1L << 39)).run(executor).getFirst();
            assertArrayEquals(new boolean[] {true, false, false}, booleans(less));
            Tensor equal = new NodeCase("Equal", 13).input(bools(true, false, true)).input(bools(true, true, false)).run(executor).getFirst();
            assertArrayEquals(new boolean[] {true, false, false}, booleans(equal));
        }
    }

    @Test
    void logicalOperatorsBroadcast() {
        boolean[] a = {true, false, true, false}, b = {true, false};
        for (GraphExecutor executor : executors("float32")) {
            boolean[] and = new boolean[4], or = new boolean[4], xor = new boolean[4], not = new boolean[4];
            for (int i = 0; i < 4; i++) {
                and[i] = a[i] & b[i % 2];
                or[i] = a[i] | b[i % 2];
                xor[i] = a[i] ^ b[i % 2];
                not[i] = !a[i];
            }
            assertArrayEquals(and, booleans(binary("And", a, b, executor)));
            assertArrayEquals(or, booleans(binary("Or", a, b, executor)));
            assertArrayEquals(xor, booleans(binary("Xor", a, b, executor)));
            assertArrayEquals(not, booleans(new NodeCase("Not", 1).input(bools(new long[] {2, 2}, a)).run(executor).getFirst()));
        }
        ByodtException e = assertThrows(ByodtException.class, () -> new NodeCase("And", 7).input(floats(1)).input(bools(true)).runOne());
        assertTrue(e.getMessage().contains("must be bool"), e.getMessage());
    }

    private static Tensor binary(String opType, boolean[] a, boolean[] b, GraphExecutor executor) {
        return new NodeCase(opType, 7).input(bools(new long[] {2, 2}, a)).input(bools(b)).run(executor).getFirst();
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "bfloat16", "custom[posit]16", "fxp16_13"})
    void whereMovesTheChosenValues(String datatype) {
        boolean[] condition = {true, false};
        for (GraphExecutor executor : executors(datatype)) {
            Tensor y = new NodeCase("Where", 16).input(bools(new long[] {2, 1}, condition)).input(floats(new long[] {2, 3}, A))
                .input(floats(B)).run(executor).getFirst();
            float[] want = new float[A.length];
            for (int i = 0; i < A.length; i++) want[i] = condition[i / 3] ? A[i] : B[i % 3];
            assertArrayEquals(want, y.toFloatArray());
        }
        Tensor ints = new NodeCase("Where", 16).input(bools(true, false)).input(longs(1L << 50, 2)).input(longs(7)).runOne();
        assertArrayEquals(new long[] {1L << 50, 7}, ints.toLongArray());
    }

    @Test
    void isNanAndIsInfReadTheFormat() {
        Tensor x = floats(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1, 0);
        for (String datatype : List.of("float32", "bfloat16")) {
            for (GraphExecutor executor : executors(datatype)) {
                assertArrayEquals(new boolean[] {true, false, false, false, false}, booleans(new NodeCase("IsNaN", 13).input(x).run(executor).getFirst()));
                assertArrayEquals(new boolean[] {false, true, true, false, false}, booleans(new NodeCase("IsInf", 10).input(x).run(executor).getFirst()));
                assertArrayEquals(new boolean[] {false, false, true, false, false}, booleans(new NodeCase("IsInf", 10)
                    .attr("detect_positive", 0L).input(x).run(executor).getFirst()));
            }
        }
        // A posit has no infinity: both infinities and NaN convert to NaR, which is its NaN.
        GraphExecutor posit16 = GraphExecutor.compiled(CompileOptions.host().withDatatype("custom[posit]16"));
        assertArrayEquals(new boolean[] {true, true, true, false, false}, booleans(new NodeCase("IsNaN", 13).input(x).run(posit16).getFirst()));
        assertArrayEquals(new boolean[5], booleans(new NodeCase("IsInf", 10).input(x).run(posit16).getFirst()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "bfloat16", "custom[posit]16", "fxp16_13"})
    void signInEveryDatatype(String datatype) {
        for (GraphExecutor executor : executors(datatype)) {
            Tensor y = new NodeCase("Sign", 13).input(floats(A)).run(executor).getFirst();
            float[] want = new float[A.length];
            for (int i = 0; i < A.length; i++) want[i] = Math.signum(A[i]);
            assertArrayEquals(want, y.toFloatArray());
        }
        assertArrayEquals(new float[] {Float.NaN}, new NodeCase("Sign", 13).input(floats(Float.NaN)).runOne().toFloatArray());
        assertArrayEquals(new long[] {-1, 0, 1}, new NodeCase("Sign", 13).input(longs(-7, 0, 1L << 40)).runOne().toLongArray());
    }

    @Test
    void integerModTakesTheDivisorsSignAndFmodTheDividends() {
        long[] a = {-7, 7, -7, 7, 6, 5}, b = {3, -3, -3, 3, 3, -5};
        long[] floor = new long[a.length], truncated = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            floor[i] = Math.floorMod(a[i], b[i]);
            truncated[i] = a[i] - b[i] * (long) ((double) a[i] / b[i]);
        }
        for (GraphExecutor executor : executors("float32")) {
            assertArrayEquals(floor, new NodeCase("Mod", 13).input(longs(a)).input(longs(b)).run(executor).getFirst().toLongArray());
            assertArrayEquals(truncated, new NodeCase("Mod", 13).attr("fmod", 1L).input(longs(a)).input(longs(b)).run(executor)
                .getFirst().toLongArray());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "bfloat16", "custom[posit]16", "fxp16_13"})
    void realFmodInEveryDatatype(String datatype) {
        float[] a = {-3.5f, 3.25f, 1.5f, 2.5f}, b = {2, -1.5f, 2, -2};
        float[] want = new float[a.length];
        for (int i = 0; i < a.length; i++) want[i] = (float) ((double) a[i] % b[i]);
        for (GraphExecutor executor : executors(datatype)) {
            assertArrayEquals(want, new NodeCase("Mod", 13).attr("fmod", 1L).input(floats(a)).input(floats(b)).run(executor)
                .getFirst().toFloatArray());
        }
        ByodtException e = assertThrows(ByodtException.class, () -> new NodeCase("Mod", 13).input(floats(a)).input(floats(b)).runOne());
        assertTrue(e.getMessage().contains("fmod=1"), e.getMessage());
    }

    @Test
    void dropoutsMaskIsAllTrue() {
        for (GraphExecutor executor : executors("float32")) {
            List<Tensor> out = new NodeCase("Dropout", 13).outputs(2).input(floats(A)).run(executor);
            assertArrayEquals(A, out.get(0).toFloatArray());
            assertArrayEquals(new boolean[] {true, true, true, true, true, true}, booleans(out.get(1)));
            List<Tensor> constantFalse = new NodeCase("Dropout", 13).outputs(2).input(floats(A)).omitted()
                .constant(bools(new long[0], false)).run(executor);
            assertArrayEquals(A, constantFalse.get(0).toFloatArray());
        }
        List<Tensor> old = new NodeCase("Dropout", 7).outputs(2).input(floats(A)).run();
        assertArrayEquals(new float[] {1, 1, 1, 1, 1, 1}, old.get(1).toFloatArray(), "before opset 10 the mask has the input's type");
    }

    @Test
    void castsWrapToNarrowIntegersAndTruncateReals() {
        long[] wide = {300, -129, 255, 1L << 33, -1};
        long[] int8 = new long[wide.length], uint8 = new long[wide.length], uint16 = new long[wide.length];
        for (int i = 0; i < wide.length; i++) {
            int8[i] = (byte) wide[i];
            uint8[i] = wide[i] & 0xFF;
            uint16[i] = wide[i] & 0xFFFF;
        }
        for (GraphExecutor executor : executors("float32")) {
            assertArrayEquals(int8, cast(longs(wide), ElementType.INT8, executor).toLongArray());
            assertArrayEquals(uint8, cast(longs(wide), ElementType.UINT8, executor).toLongArray());
            assertArrayEquals(uint16, cast(longs(wide), ElementType.UINT16, executor).toLongArray());
            assertArrayEquals(new long[] {-1, 2, -3}, cast(floats(-1.75f, 2.9f, -3), ElementType.INT16, executor).toLongArray());
            assertArrayEquals(new boolean[] {false, true, true}, booleans(cast(floats(0, -0.5f, 2), ElementType.BOOL, executor)));
            assertArrayEquals(new float[] {1, 0}, cast(bools(true, false), ElementType.FLOAT16, executor).toFloatArray());
        }
    }

    private static Tensor cast(Tensor x, ElementType to, GraphExecutor executor) {
        return new NodeCase("Cast", 13).attr("to", (long) to.onnxCode()).input(x).run(executor).getFirst();
    }

    static Tensor bools(boolean... values) { return bools(new long[] {values.length}, values); }

    static Tensor bools(long[] shape, boolean... values) {
        Tensor t = Tensor.zeros(ElementType.BOOL, shape);
        for (int i = 0; i < values.length; i++) t.setLong(i, values[i] ? 1 : 0);
        return t;
    }

    static boolean[] booleans(Tensor t) {
        boolean[] out = new boolean[(int) t.elementCount()];
        for (int i = 0; i < out.length; i++) out[i] = t.getLong(i) != 0;
        return out;
    }
}
