package dev.byodt.cli.compare;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.LoadedModel;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.util.List;
import java.util.Map;

/**
 * The largest finite magnitude a datatype produces, which counts an output as saturated (clipped) when it
 * reaches it: a copy kernel compiled in the datatype converts a grid of positive float32 values (every
 * float32 with the low 12 fraction bits zero, up to the largest finite one) into the datatype and back,
 * and the largest finite result is the answer. That is exact for every datatype with at most 11 fraction
 * bits and for every datatype that saturates (fixed point, posits, fp8e4m3); float32 itself has no
 * saturation to count (+infinity). For fixed point it is the positive limit, (2^(N-1)-1)/2^P. The probe
 * runs where the compared code runs (its executor), so that a target's datatype options (P lanes) apply.
 */
public final class SaturationProbe {
    private static final int GRID_STEP_BITS = 12;

    private SaturationProbe() {}

    public static double largestFinite(CompileOptions options, Executor executor) {
        if (options.datatypes().isFloat32Only()) return Double.POSITIVE_INFINITY;
        int count = (Float.floatToRawIntBits(Float.MAX_VALUE) >>> GRID_STEP_BITS) + 1;
        float[] grid = new float[count];
        for (int k = 0; k < count; k++) grid[k] = Float.intBitsToFloat(k << GRID_STEP_BITS);
        grid[count - 1] = Float.MAX_VALUE;
        long[] shape = {count};
        Buffer in = new Buffer("x", ScalarType.REAL, shape), out = new Buffer("y", ScalarType.REAL, shape);
        KernelBuilder kb = new KernelBuilder("saturation probe", "Identity", List.of(in), List.of(out));
        kb.loop(count, i -> kb.store(out, i, kb.load(in, i)));
        Program program = new Program("saturation_probe", List.of(kb.build()), List.of(in),
            List.of(new TensorSpec("x", ElementType.FLOAT32, shape)), List.of(out),
            List.of(new TensorSpec("y", ElementType.FLOAT32, shape)), Map.of(), List.of());
        try (CompiledModule module = Compiler.compile(program, options.withEntrySymbol("byodt_saturation_probe"));
             LoadedModel model = executor.load(module)) {
            float[] back = model.run(List.of(Tensor.ofFloats(shape, grid))).get(0).toFloatArray();
            double largest = 0;
            for (float v : back) {
                if (Float.isFinite(v)) largest = Math.max(largest, Math.abs(v));
            }
            return largest > 0 ? largest : Double.POSITIVE_INFINITY;
        }
    }
}
