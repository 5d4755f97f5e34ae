package dev.byodt.cli.compare;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.LoadedModel;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.util.List;
import java.util.function.Consumer;

/** A graph compiled by byodt and run by an {@link Executor}: the JIT, or an executable under qemu-user. */
public final class CompiledInference implements Inference {
    private final LoadedModel model;
    private final List<String> fallbacks;

    private CompiledInference(LoadedModel model, List<String> fallbacks) {
        this.model = model;
        this.fallbacks = fallbacks;
    }

    /**
     * Compiles {@code graph} for the executor's target and loads it there; its one input must be float32 or an
     * integer type (token ids), every output float32.
     */
    public static CompiledInference compile(Graph graph, CompileOptions options, Executor executor) {
        try (CompiledModule module = Compiler.compile(graph, options)) {
            CompiledInference inference = new CompiledInference(executor.load(module), module.fallbacks());
            try {
                inference.requireFloatTensors();
            } catch (RuntimeException e) {
                inference.close();
                throw e;
            }
            return inference;
        }
    }

    private void requireFloatTensors() {
        List<TensorSpec> data = dataInputs();
        if (data.size() != 1) {
            throw new ByodtException("comparing on data needs a model with one input; this one has " + data.size()
                + " (" + data.stream().map(TensorSpec::name).toList() + ")");
        }
        TensorSpec input = model.inputs().get(0);
        if (input.type() != ElementType.FLOAT32 && !input.type().isInteger()) {
            throw new ByodtException("input '" + input.name() + "' is " + input.type() + "; comparisons need a float32 or integer input");
        }
        for (TensorSpec spec : model.outputs()) {
            if (spec.type() != ElementType.FLOAT32) throw new ByodtException("output '" + spec.name() + "' is " + spec.type() + "; comparisons need float32 outputs");
        }
    }

    /** The model's inputs but {@link CallItems#INPUT}, which each call is given. */
    private List<TensorSpec> dataInputs() {
        return model.inputs().stream().filter(spec -> !spec.name().equals(CallItems.INPUT)).toList();
    }

    /** Tells {@code sink} which operations were computed in float32 for want of a lowering (--fallback float32). */
    public void reportFallbacks(Consumer<String> sink) { fallbacks.forEach(sink); }

    @Override
    public TensorSpec input() { return model.inputs().get(0); }

    @Override
    public List<TensorSpec> outputs() { return model.outputs(); }

    @Override
    public float[][] run(float[] input, long firstItem) {
        List<Tensor> outs = model.run(CallItems.withFirstItem(model.inputs(), List.of(CallInput.of(input(), input)), firstItem));
        float[][] result = new float[outs.size()][];
        for (int i = 0; i < result.length; i++) result[i] = outs.get(i).toFloatArray();
        return result;
    }

    @Override
    public void close() { model.close(); }
}
