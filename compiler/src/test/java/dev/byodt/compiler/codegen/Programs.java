package dev.byodt.compiler.codegen;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.dtype.RegisteredDatatype;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.*;

/** Hand-built programs for back-end tests (no operators exist at this level). */
public final class Programs {
    private Programs() {}

    /**
     * A program of these kernels; every buffer that is not an input, output, constant (given, or a kernel's own)
     * or scratch buffer is a temporary.
     */
    static Program of(List<Kernel> kernels, List<Buffer> inputs, List<Buffer> outputs, Map<Buffer, Tensor> givenConstants) {
        Map<Buffer, MemorySegment> constants = new LinkedHashMap<>();
        givenConstants.forEach((b, t) -> constants.put(b, t.data()));
        kernels.forEach(k -> k.constants().forEach((b, t) -> constants.put(b, t.data())));
        Set<Buffer> known = new HashSet<>(inputs);
        known.addAll(outputs);
        known.addAll(constants.keySet());
        kernels.forEach(k -> known.addAll(k.scratch()));
        Set<Buffer> temporaries = new LinkedHashSet<>();
        for (Kernel k : kernels) {
            for (Buffer b : k.outputs()) if (!known.contains(b)) temporaries.add(b);
            for (Buffer b : k.loadedBuffers()) if (!known.contains(b)) temporaries.add(b);
        }
        return new Program("test", kernels, inputs, inputs.stream().map(Programs::spec).toList(), outputs,
            outputs.stream().map(Programs::spec).toList(), constants, List.copyOf(temporaries));
    }

    static TensorSpec spec(Buffer b) {
        ElementType type = switch (b.elementType()) {
            case REAL, F32 -> ElementType.FLOAT32;
            case I32 -> ElementType.INT32;
            case I64 -> ElementType.INT64;
            default -> throw new IllegalArgumentException(b.toString());
        };
        return new TensorSpec(b.name(), type, b.shape());
    }

    public static Buffer buffer(String name, long... shape) { return new Buffer(name, ScalarType.REAL, shape); }

    /** float32, which converts nothing at compile time: what lowers a program to machine types without a compiler. */
    public static RegisteredDatatype float32() {
        return new RegisteredDatatype(DatatypeChoice.builtInRegistry().reference(), AccumulationMode.DTYPE, LoweringTarget.ANY,
            Optional.empty(), new LoweringLog(), (instance, fromF64, toF32) -> { throw new AssertionError("float32 converts nothing"); });
    }

    /**
     * y = x . w (reduction into an ACC local), then out = max(y, 0) + 0.5 and sign = select(y > 1, y, -y):
     * x [m, k] the input, w [k, n] a constant, y [m, n] a temporary, out and sign the outputs.
     */
    public static Program matmulProgram(Buffer x, Buffer w, Buffer y, Buffer out, Buffer sign, Tensor weights) {
        long m = x.shape()[0], k = x.shape()[1], n = w.shape()[1];
        KernelBuilder mm = new KernelBuilder("mm", "MatMul", List.of(x, w), List.of(y));
        mm.loops(new long[] {m, n}, i -> {
            Local acc = mm.local("acc", constant(ScalarType.ACC, 0));
            mm.loop(k, j -> mm.assign(acc, mac(mm.get(acc),
                mm.load(x, flatIndex(x.shape(), i[0], j)), mm.load(w, flatIndex(w.shape(), j, i[1])))));
            mm.store(y, flatIndex(y.shape(), i), cast(ScalarType.REAL, mm.get(acc)));
        });
        KernelBuilder relu = new KernelBuilder("relu", "Relu", List.of(y), List.of(out));
        relu.loop(m * n, i -> relu.store(out, i, add(max(relu.load(y, i), real(0)), real(0.5))));
        KernelBuilder sel = new KernelBuilder("sel", "Where", List.of(y), List.of(sign));
        sel.loop(m * n, i -> {
            Expr v = sel.load(y, i);
            sel.store(sign, i, select(gt(v, real(1)), v, neg(v)));
        });
        return of(List.of(mm.build(), relu.build(), sel.build()), List.of(x), List.of(out, sign), Map.of(w, weights));
    }
}
