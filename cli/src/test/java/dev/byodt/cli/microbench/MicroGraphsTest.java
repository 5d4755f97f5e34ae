package dev.byodt.cli.microbench;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The benchmark's chains compute what they say, so the timings are of the intended work. */
class MicroGraphsTest {
    @Test
    void addChainAddsTheSecondInputOncePerNode() {
        Tensor x = Tensor.ofFloats(new long[] {4}, new float[] {1, 2, 3, 4});
        Tensor y = Tensor.ofFloats(new long[] {4}, new float[] {0.5f, -1, 0.25f, 2});
        float[] out = run(MicroGraphs.elementwiseChain("Add", 4, 3), x, y);
        assertArrayEquals(new float[] {2.5f, -1, 3.75f, 10}, out);
    }

    @Test
    void matMulChainMultipliesBySecondInputOncePerNode() {
        Tensor x = Tensor.ofFloats(new long[] {2, 2}, new float[] {1, 2, 3, 4});
        Tensor y = Tensor.ofFloats(new long[] {2, 2}, new float[] {0, 1, 1, 0});
        // Multiplying by the swap matrix twice swaps the columns back.
        assertArrayEquals(new float[] {1, 2, 3, 4}, run(MicroGraphs.matMulChain(2, 2), x, y));
        assertArrayEquals(new float[] {2, 1, 4, 3}, run(MicroGraphs.matMulChain(2, 1), x, y));
    }

    @Test
    void deeperChainsHaveOneNodePerLevel() {
        assertEquals(9, MicroGraphs.elementwiseChain("Mul", 16, 9).nodes().size());
    }

    private static float[] run(Graph graph, Tensor x, Tensor y) {
        try (CompiledModule module = Compiler.compile(graph, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            return model.run(List.of(x, y)).getFirst().toFloatArray();
        }
    }
}
