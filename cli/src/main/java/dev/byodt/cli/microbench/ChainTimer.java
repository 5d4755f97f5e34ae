package dev.byodt.cli.microbench;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The cost of one operation in a datatype, free of the float32 conversions at the graph's boundary: the
 * same chain of nodes is compiled at two depths and run on the same inputs, and the difference of the two
 * times, divided by the extra nodes and the operations each performs, is what one more operation costs.
 * Each time is the CPU time of this thread (the compiled code runs on it) in the fastest of repeated runs:
 * on a shared machine, wall time would count the time the thread waits for a core, CPU time does not, and
 * the fastest run is the one least disturbed by other work (cache and memory contention remain).
 */
public final class ChainTimer {
    private static final int MIN_RUNS = 3;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final double secondsPerGraph;

    /** Runs each compiled graph for at least {@code secondsPerGraph} (and at least three times) after a warm-up run. */
    public ChainTimer(double secondsPerGraph) {
        this.secondsPerGraph = secondsPerGraph;
    }

    /**
     * Nanoseconds per operation: chains of depth 1 and {@code 1 + extraNodes} ({@code chainOfDepth} builds
     * them), each node performing {@code operationsPerNode} operations.
     */
    public double nanosPerOperation(IntFunction<Graph> chainOfDepth, int extraNodes, long operationsPerNode,
                                    CompileOptions options, List<Tensor> inputs) {
        double shortChain = bestRunNanos(chainOfDepth.apply(1), options, inputs);
        double longChain = bestRunNanos(chainOfDepth.apply(1 + extraNodes), options, inputs);
        return (longChain - shortChain) / ((double) extraNodes * operationsPerNode);
    }

    private double bestRunNanos(Graph graph, CompileOptions options, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            List<Tensor> outputs = model.outputs().stream().map(ChainTimer::zeros).toList();
            model.run(inputs, outputs);
            long best = Long.MAX_VALUE;
            long end = System.nanoTime() + (long) (secondsPerGraph * 1e9);
            for (int run = 0; run < MIN_RUNS || System.nanoTime() < end; run++) {
                long start = THREADS.getCurrentThreadCpuTime();
                model.run(inputs, outputs);
                best = Math.min(best, THREADS.getCurrentThreadCpuTime() - start);
            }
            return best;
        }
    }

    private static Tensor zeros(TensorSpec spec) {
        return Tensor.zeros(spec.type(), spec.shape());
    }
}
