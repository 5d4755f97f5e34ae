package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.mul;

/** GlobalAveragePool: every element of a map gets its map's output gradient divided by the map's size. */
final class GlobalAveragePoolGradient implements GradientRule {
    static void registerAll() {
        Gradients.register("GlobalAveragePool", new GlobalAveragePoolGradient());
    }

    @Override
    public boolean differentiable(Node node, int input) { return input == 0; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer dx = g.gradient();
        long maps = dx.dim(0) * dx.dim(1);
        long size = dx.size() / maps;
        kb.loop(maps, map -> kb.loop(size, i ->
            kb.store(dx, add(mul(map, size), i), divideByCount(kb.load(g.outputGradient(), map), size))));
    }
}
