package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.Tensor;

import java.util.List;

/**
 * Runs a loaded graph once. The conformance runner checks what an executor computes; the compiled pipeline
 * is the one byodt ships, and tests plug in a second executor of the same kernels to cross-check it.
 */
@FunctionalInterface
public interface GraphExecutor {
    /**
     * @param runTimeInputs the values of {@link Graph#inputs()}, in order
     * @return the values of {@link Graph#outputs()}, in order
     * @throws dev.byodt.runtime.ByodtException when the graph cannot be run this way (a refusal, not a wrong result)
     */
    List<Tensor> run(Graph graph, List<Tensor> runTimeInputs);

    /** The whole pipeline: compile with these options, JIT into this process, run. */
    static GraphExecutor compiled(CompileOptions options) {
        return (graph, inputs) -> {
            try (CompiledModule module = Compiler.compile(graph, options);
                 HostModel model = Compiler.jit(module)) {
                return model.run(CallItems.withFirstItem(model.inputs(), inputs, 0));
            }
        };
    }
}
