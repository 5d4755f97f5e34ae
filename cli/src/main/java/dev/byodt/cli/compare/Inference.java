package dev.byodt.cli.compare;

import dev.byodt.runtime.TensorSpec;

import java.util.List;

/**
 * A float32-in, float32-out model to run on data: byodt's compiled code ({@link CompiledInference}) or
 * ONNX Runtime ({@link OnnxRuntimeInference}). One input; any number of float32 outputs.
 * {@link #run} may be called from several threads at once.
 */
public interface Inference extends AutoCloseable {
    TensorSpec input();

    List<TensorSpec> outputs();

    /**
     * Runs one call on {@code input} (row-major, {@link #input()}'s shape), whose first item is item {@code firstItem}
     * of the run (which stochastic rounding's random bits follow); one array per output.
     */
    float[][] run(float[] input, long firstItem);

    @Override
    void close();
}
