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
 * byodt running a batch split evenly over {@code cores} threads, the ways `byodt run` spreads images: each thread
 * computes its share of the batch, {@code itemsPerCall} images a call (its share at once, as with `--batch` of the
 * share, or fewer, down to one image a call, `byodt run`'s default), every call with its own input, output and
 * workspace.
 */
final class SpreadInference implements AutoCloseable {
    private final long itemsPerCall;
    private final CompiledModule module;
    private final HostModel model;
    private final ExecutorService threads;
    private final List<Callable<Void>> shares;

    /** {@code itemsPerCall} must divide the share of each of the {@code cores} threads. */
    SpreadInference(Path modelFile, CompileOptions options, String inputName, long[] shape, int cores, long itemsPerCall) {
        long share = shape[0] / cores;
        if (share * cores != shape[0] || share % itemsPerCall != 0) {
            throw new IllegalArgumentException("a batch of " + shape[0] + " does not divide into " + cores + " shares of calls of " + itemsPerCall);
        }
        long[] callShape = shape.clone();
        callShape[0] = itemsPerCall;
        this.itemsPerCall = itemsPerCall;
        this.module = Compiler.compile(OnnxLoader.load(modelFile, Map.of(inputName, callShape)), options);
        try {
            this.model = Compiler.jit(module);
        } catch (RuntimeException e) {
            module.close();
            throw e;
        }
        this.threads = Executors.newFixedThreadPool(cores);
        List<Callable<Void>> calls = new ArrayList<>();
        for (int c = 0; c < cores; c++) {
            List<Tensor> inputs = new ArrayList<>();
            for (long call = 0; call < share / itemsPerCall; call++) inputs.add(BenchCommand.randomInput(callShape));
            calls.add(() -> {
                for (Tensor input : inputs) model.run(List.of(input));
                return null;
            });
        }
        this.shares = calls;
    }

    /** Images each call computes. */
    long itemsPerCall() { return itemsPerCall; }

    /** Computes the whole batch: every thread its share at once. */
    void run() {
        try {
            for (Future<Void> f : threads.invokeAll(shares)) f.get();
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
