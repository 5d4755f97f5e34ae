package dev.byodt.compiler.codegen;

import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.util.List;

/**
 * A compiled model ready to run on tensors, wherever its code executes: in this process through the JIT
 * ({@link HostModel}) or as a RISC-V executable under qemu-user (the target package's EmulatedModel).
 * {@link #run} may be called from several threads at once; close it when no thread runs it any more.
 */
public interface LoadedModel extends AutoCloseable {
    List<TensorSpec> inputs();

    List<TensorSpec> outputs();

    /** Runs the model on inputs matching {@link #inputs()}; returns new output tensors. */
    List<Tensor> run(List<Tensor> inputs);

    @Override
    void close();
}
