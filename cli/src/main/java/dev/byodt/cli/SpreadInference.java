package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Tensor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * byodt running a batch split evenly over {@code cores} threads, the way `byodt run` spreads images: the model
 * compiled for one share, each thread running it on its own share (its own input, output and workspace) at once.
 */
final class SpreadInference implements AutoCloseable {
    private final CompiledModule module;
    private final HostModel model;
    private final ExecutorService threads;
    private final List<Callable<List<Tensor>>> calls;

    SpreadInference(Path modelFile, CompileOptions options, String inputName, long[] shape, int cores) {
        long[] share = shape.clone();
        share[0] = shape[0] / cores;
        this.module = Compiler.compile(OnnxLoader.load(modelFile, Map.of(inputName, share)), options);
        try {
            this.model = Compiler.jit(module);
        } catch (RuntimeException e) {
            module.close();
            throw e;
        }
        this.threads = Executors.newFixedThreadPool(cores);
        List<Callable<List<Tensor>>> shares = new ArrayList<>();
        for (int c = 0; c < cores; c++) {
            Tensor input = BenchCommand.randomInput(share);
            shares.add(() -> model.run(List.of(input)));
        }
        this.calls = shares;
    }

    /** Computes the whole batch: every share at once, one per thread. */
    void run() {
        try {
            for (Future<List<Tensor>> f : threads.invokeAll(calls)) f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        threads.close();
        model.close();
        module.close();
    }
}
