package dev.byodt.compiler.codegen;

import dev.byodt.runtime.TensorSpec;

import java.util.List;

/**
 * The C entry point of a compiled model:
 * {@code void ENTRY(const T *input0, ..., T *output0, ..., void *workspace)}, every pointer to dense row-major
 * data of the spec's type and shape, the workspace {@code workspaceBytes} long and 64-byte aligned (NULL when 0).
 */
public record ProgramSignature(String entrySymbol, List<TensorSpec> inputs, List<TensorSpec> outputs, long workspaceBytes) {
    public ProgramSignature {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
    }
}
