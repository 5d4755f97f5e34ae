package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;
import java.util.function.DoubleUnaryOperator;

import dev.byodt.compiler.kernel.Exprs;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The float32 math library, compiled by the bundled clang, linked into a model and run by the JIT, against
 * Java's double-precision functions rounded to float: at most 1 ulp apart on about a million seeded
 * arguments per function, and exactly right on the special values.
 */
class Float32LibraryTest {
    static final int COUNT = 1 << 20;
    static final float[] SPECIAL = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 1f, -1f,
        Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1e-30f, -1e-30f, Float.MAX_VALUE, -Float.MAX_VALUE,
        88.72283f, 88.72284f, 89f, -87.33655f, -103.27893f, -103.97208f, -104f, 0.5f, 2f, 3f, -2.5f, 10f, 20f, 1e-7f, 4.5f};

    @Test
    void exp() { checkUnary("exp", Exprs::exp, x -> (float) Math.exp(x), sample(-110, 92)); }

    @Test
    void log() { checkUnary("log", Exprs::log, x -> (float) Math.log(x), positiveSample()); }

    @Test
    void tanh() { checkUnary("tanh", Exprs::tanh, x -> (float) Math.tanh(x), sample(-12, 12)); }

    @Test
    void sigmoid() { checkUnary("sigmoid", Exprs::sigmoid, x -> (float) (1 / (1 + Math.exp(-(double) x))), sample(-120, 30)); }

    @Test
    void erf() {
        float[] xs = sample(-6, 6);
        // The reference is the interpreter's erf, which is written independently of the C library.
        Buffer in = new Buffer("x", ScalarType.REAL, new long[]{xs.length}), out = new Buffer("y", ScalarType.REAL, new long[]{xs.length});
        KernelBuilder kb = new KernelBuilder("erf", "Erf", List.of(in), List.of(out));
        kb.loop(xs.length, i -> kb.store(out, i, Exprs.erf(kb.load(in, i))));
        float[] expected = Interpreter.run(kb.build(), List.of(Tensor.ofFloats(new long[]{xs.length}, xs))).get(0).toFloatArray();
        checkUnary("erf", Exprs::erf, xs, expected);
    }

    @Test
    void sin() { checkUnary("sin", x -> Exprs.unary(ScalarOp.SIN, x), x -> (float) StrictMath.sin(x), sample(-40, 40)); }

    @Test
    void cos() { checkUnary("cos", x -> Exprs.unary(ScalarOp.COS, x), x -> (float) StrictMath.cos(x), sample(-40, 40)); }

    /** floor, ceil and round are exact: the bits of Java's, signs of zero included. */
    @Test
    void roundingsToIntegers() {
        float[] xs = sample(-1e8f, 1e8f);
        Random r = new Random(5);
        for (int i = SPECIAL.length; i < COUNT; i += 3) xs[i] = (r.nextInt(4001) - 2000) / 4f;  // halves and quarters
        checkExact("floor", ScalarOp.FLOOR, xs, x -> (float) Math.floor(x));
        checkExact("ceil", ScalarOp.CEIL, xs, x -> (float) Math.ceil(x));
        checkExact("round", ScalarOp.ROUND, xs, x -> (float) Math.rint(x));
    }

    @Test
    void pow() {
        Random r = new Random(7);
        float[] xs = new float[COUNT], ys = new float[COUNT];
        for (int i = 0; i < COUNT; i++) {
            switch (i % 4) {
                case 0 -> { xs[i] = Float.intBitsToFloat(r.nextInt()); ys[i] = Float.intBitsToFloat(r.nextInt()); }
                case 1 -> { xs[i] = r.nextFloat() * 4; ys[i] = (r.nextFloat() - 0.5f) * 60; }
                case 2 -> { xs[i] = (r.nextFloat() - 0.5f) * 8; ys[i] = r.nextInt(41) - 20; }
                default -> { xs[i] = r.nextFloat() * 100; ys[i] = (r.nextFloat() - 0.5f) * 4; }
            }
        }
        int s = 0;
        for (float a : SPECIAL) for (float b : SPECIAL) { xs[s] = a; ys[s] = b; s++; }
        float[] expected = new float[COUNT];
        for (int i = 0; i < COUNT; i++) expected[i] = cPow(xs[i], ys[i]);

        Buffer x = new Buffer("x", ScalarType.REAL, new long[]{COUNT}), y = new Buffer("y", ScalarType.REAL, new long[]{COUNT});
        Buffer out = new Buffer("z", ScalarType.REAL, new long[]{COUNT});
        KernelBuilder kb = new KernelBuilder("pow", "Pow", List.of(x, y), List.of(out));
        kb.loop(COUNT, i -> kb.store(out, i, Exprs.pow(kb.load(x, i), kb.load(y, i))));
        float[] actual = run(kb.build(), List.of(x, y), out, List.of(xs, ys));
        assertWithinOneUlp("pow", actual, expected, i -> "pow(" + xs[i] + ", " + ys[i] + ")");
    }

    /** C99's pow, which ONNX follows through numpy; Java's Math.pow differs for pow(1, NaN) and pow(-1, +-inf). */
    static float cPow(float x, float y) {
        if (x == 1f || y == 0f) return 1f;
        if (x == -1f && Float.isInfinite(y)) return 1f;
        return (float) Math.pow(x, y);
    }

    // ---- plumbing

    void checkUnary(String name, UnaryOperator<Expr> op, DoubleUnaryOperator reference, float[] xs) {
        float[] expected = new float[xs.length];
        for (int i = 0; i < xs.length; i++) expected[i] = (float) reference.applyAsDouble(xs[i]);
        checkUnary(name, op, xs, expected);
    }

    void checkUnary(String name, UnaryOperator<Expr> op, float[] xs, float[] expected) {
        Buffer in = new Buffer("x", ScalarType.REAL, new long[]{xs.length}), out = new Buffer("y", ScalarType.REAL, new long[]{xs.length});
        KernelBuilder kb = new KernelBuilder(name, name, List.of(in), List.of(out));
        kb.loop(xs.length, i -> kb.store(out, i, op.apply(kb.load(in, i))));
        float[] actual = run(kb.build(), List.of(in), out, List.of(xs));
        assertWithinOneUlp(name, actual, expected, i -> name + "(" + xs[i] + ")");
    }

    void checkExact(String name, ScalarOp op, float[] xs, DoubleUnaryOperator reference) {
        Buffer in = new Buffer("x", ScalarType.REAL, new long[]{xs.length}), out = new Buffer("y", ScalarType.REAL, new long[]{xs.length});
        KernelBuilder kb = new KernelBuilder(name, name, List.of(in), List.of(out));
        kb.loop(xs.length, i -> kb.store(out, i, Exprs.unary(op, kb.load(in, i))));
        float[] actual = run(kb.build(), List.of(in), out, List.of(xs));
        for (int i = 0; i < xs.length; i++) {
            float expected = (float) reference.applyAsDouble(xs[i]);
            boolean same = Float.isNaN(expected) ? Float.isNaN(actual[i]) : Float.floatToRawIntBits(expected) == Float.floatToRawIntBits(actual[i]);
            if (!same) fail(name + "(" + xs[i] + ") = " + actual[i] + ", expected " + expected);
        }
    }

    static float[] run(Kernel kernel, List<Buffer> inputs, Buffer out, List<float[]> values) {
        Program program = new Program("mathtest", List.of(kernel), inputs, inputs.stream().map(Float32LibraryTest::spec).toList(),
            List.of(out), List.of(spec(out)), Map.of(), List.of());
        try (var compiled = Compiler.compile(program, CompileOptions.host()); HostModel model = Compiler.jit(compiled)) {
            List<Tensor> tensors = values.stream().map(v -> Tensor.ofFloats(new long[]{v.length}, v)).toList();
            return model.run(tensors).get(0).toFloatArray();
        }
    }

    static TensorSpec spec(Buffer b) { return new TensorSpec(b.name(), ElementType.FLOAT32, b.shape()); }

    static void assertWithinOneUlp(String name, float[] actual, float[] expected, java.util.function.IntFunction<String> what) {
        int worst = 0;
        for (int i = 0; i < actual.length; i++) {
            if (Float.isNaN(expected[i]) || Float.isNaN(actual[i])) {
                assertTrue(Float.isNaN(expected[i]) && Float.isNaN(actual[i]), what.apply(i) + ": " + actual[i] + ", expected " + expected[i]);
                continue;
            }
            long d = Math.abs(ordered(actual[i]) - ordered(expected[i]));
            if (d > 1) fail(what.apply(i) + " = " + actual[i] + ", expected " + expected[i] + " (" + d + " ulp)");
            if (Float.floatToRawIntBits(expected[i]) == 0 || Float.floatToRawIntBits(expected[i]) == 0x80000000) {
                assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(actual[i]), what.apply(i) + ": sign of zero");
            }
            worst = Math.max(worst, (int) d);
        }
        System.out.println(name + ": " + actual.length + " arguments, worst error " + worst + " ulp");
    }

    /** Float bit patterns as integers that order like the floats do, so ulp distance is a subtraction. */
    static long ordered(float f) {
        int bits = Float.floatToRawIntBits(f);
        return bits < 0 ? -(long) (bits & 0x7fffffff) : bits;
    }

    /** A quarter random bit patterns (every float, NaNs and subnormals included), the rest uniform in [lo, hi], then the special values. */
    static float[] sample(float lo, float hi) {
        Random r = new Random(Float.floatToIntBits(lo) * 31L + Float.floatToIntBits(hi));
        float[] xs = new float[COUNT];
        for (int i = 0; i < COUNT; i++) xs[i] = i % 4 == 0 ? Float.intBitsToFloat(r.nextInt()) : lo + r.nextFloat() * (hi - lo);
        System.arraycopy(SPECIAL, 0, xs, 0, SPECIAL.length);
        return xs;
    }

    static float[] positiveSample() {
        Random r = new Random(11);
        float[] xs = new float[COUNT];
        for (int i = 0; i < COUNT; i++) xs[i] = i % 2 == 0 ? Float.intBitsToFloat(r.nextInt()) : r.nextFloat() * 4;
        System.arraycopy(SPECIAL, 0, xs, 0, SPECIAL.length);
        return xs;
    }
}
