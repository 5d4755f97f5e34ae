package dev.byodt.compiler.codegen;

import dev.byodt.runtime.TensorSpec;

import java.util.List;

/**
 * The C entry point of a compiled model:
 * {@code void ENTRY(const T *input0, ..., T *output0, ..., void *workspace)}, every pointer to dense row-major
 * data of the spec's type and shape, the workspace {@code workspaceBytes} long and 64-byte aligned (NULL when 0).
 * With {@code threads} above 1 the entry function is the one each of that many threads calls at once
 * (see {@link LlvmCodegen}), which only {@link HostModel} calls.
 */
public record ProgramSignature(String entrySymbol, List<TensorSpec> inputs, List<TensorSpec> outputs, long workspaceBytes,
                               int threads) {
    public ProgramSignature {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
    }

    /** The entry point of a model that one thread runs. */
    public ProgramSignature(String entrySymbol, List<TensorSpec> inputs, List<TensorSpec> outputs, long workspaceBytes) {
        this(entrySymbol, inputs, outputs, workspaceBytes, 1);
    }
}
