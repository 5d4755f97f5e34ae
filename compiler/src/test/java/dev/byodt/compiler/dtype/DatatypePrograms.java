package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/** Small hand-built programs in abstract types, compiled in a chosen datatype and run on float32 inputs. */
final class DatatypePrograms {
    private DatatypePrograms() {}

    /** y[j] = sum over k of x[k] * w[k][j], as Gemm accumulates it: a row of accumulators, k outer, j inner. */
    static Program dot(float[] weights, int k, int n) {
        Buffer x = new Buffer("x", ScalarType.REAL, new long[] {k});
        Buffer w = new Buffer("w", ScalarType.REAL, new long[] {k, n});
        Buffer y = new Buffer("y", ScalarType.REAL, new long[] {n});
        KernelBuilder kb = new KernelBuilder("dot", "Gemm", List.of(x, w), List.of(y));
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {n});
        kb.loop(n, j -> kb.store(acc, j, constant(ScalarType.ACC, 0)));
        kb.loop(k, i -> {
            Expr xi = kb.load(x, i);
            kb.loop(n, j -> kb.store(acc, j, mac(kb.load(acc, j), xi, kb.load(w, add(mul(i, n), j)))));
        });
        kb.loop(n, j -> kb.store(y, j, cast(ScalarType.REAL, kb.load(acc, j))));
        return program(List.of(kb.build()), List.of(x), List.of(y), Map.of(w, Tensor.ofFloats(new long[] {k, n}, weights).data()));
    }

    /** out = f(x) elementwise, one kernel named {@code name}. */
    static Program elementwise(String name, String opType, int size, ScalarType outType, UnaryOperator<Expr> f) {
        Buffer x = new Buffer("x", ScalarType.REAL, new long[] {size});
        Buffer out = new Buffer(name + ".out", outType, new long[] {size});
        KernelBuilder kb = new KernelBuilder(name, opType, List.of(x), List.of(out));
        kb.loop(size, i -> kb.store(out, i, f.apply(kb.load(x, i))));
        return program(List.of(kb.build()), List.of(x), List.of(out), Map.of());
    }

    /** out = f(x, y) elementwise, one kernel named {@code name}. */
    static Program elementwise(String name, String opType, int size, BinaryOperator<Expr> f) {
        Buffer x = new Buffer("x", ScalarType.REAL, new long[] {size});
        Buffer y = new Buffer("y", ScalarType.REAL, new long[] {size});
        Buffer out = new Buffer(name + ".out", ScalarType.REAL, new long[] {size});
        KernelBuilder kb = new KernelBuilder(name, opType, List.of(x, y), List.of(out));
        kb.loop(size, i -> kb.store(out, i, f.apply(kb.load(x, i), kb.load(y, i))));
        return program(List.of(kb.build()), List.of(x, y), List.of(out), Map.of());
    }

    static Program program(List<Kernel> kernels, List<Buffer> inputs, List<Buffer> outputs, Map<Buffer, MemorySegment> constants) {
        Set<Buffer> temporaries = new LinkedHashSet<>();
        for (Kernel k : kernels) {
            for (Buffer b : k.outputs()) if (!outputs.contains(b)) temporaries.add(b);
        }
        return new Program("test", kernels, inputs, inputs.stream().map(DatatypePrograms::spec).toList(), outputs,
            outputs.stream().map(DatatypePrograms::spec).toList(), new LinkedHashMap<>(constants), List.copyOf(temporaries));
    }

    static TensorSpec spec(Buffer b) {
        ElementType type = b.elementType() == ScalarType.I64 ? ElementType.INT64 : ElementType.FLOAT32;
        return new TensorSpec(b.name(), type, b.shape());
    }

    static CompileOptions in(String datatype) {
        return CompileOptions.host().withDatatype(datatype);
    }

    /** Compiles and runs a program of float32 inputs and one float32 output. */
    static float[] run(Program program, CompileOptions options, float[]... inputs) {
        try (CompiledModule module = Compiler.compile(program, options); HostModel model = Compiler.jit(module)) {
            List<Tensor> tensors = new java.util.ArrayList<>();
            for (int i = 0; i < inputs.length; i++) tensors.add(Tensor.ofFloats(program.inputs().get(i).shape(), inputs[i]));
            return model.run(tensors).getFirst().toFloatArray();
        }
    }

    /** t16's value of a float: rounded to its top 16 bits, to nearest even on the bit pattern, as t16.c does. */
    static float t16(float x) {
        int bits = Float.floatToRawIntBits(x);
        return Float.intBitsToFloat((bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000);
    }

    /** Q8.8's value of a float: round(x * 256), ties away from zero, saturated, over 256. */
    static float q8(double x) {
        double scaled = Math.max(-32768, Math.min(32767, x >= 0 ? Math.floor(x * 256 + 0.5) : -Math.floor(-x * 256 + 0.5)));
        return (float) (scaled / 256);
    }
}
