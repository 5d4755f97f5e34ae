package dev.byodt.cli;

import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.counts.DynamicCounts;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.Tensor;

import java.lang.foreign.MemorySegment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Top-1 accuracy measured on RISC-V code: the model is compiled for the target with a batch of images per
 * call, linked into an executable, and run under qemu-user once per batch (qemu starts in milliseconds, but
 * a run per image would spend most of the time starting). The last batch is padded with blank images whose
 * results are ignored.
 */
final class TargetRun {
    /** Images per executable run. */
    static final int BATCH = 50;

    private final ModelOptions modelOptions;
    private final Target target;
    private final Path dataDir;
    private final Integer limit;
    private final Duration timeLimit;

    private final boolean countInstructions;

    TargetRun(ModelOptions modelOptions, Target target, Path dataDir, Integer limit, Duration timeLimit, boolean countInstructions) {
        this.modelOptions = modelOptions;
        this.target = target;
        this.dataDir = dataDir;
        this.limit = limit;
        this.timeLimit = timeLimit;
        this.countInstructions = countInstructions;
    }

    int call() {
        long start = System.nanoTime();
        Emulator emulator = Emulator.forTarget(target, timeLimit);
        LabeledImages data = IdxReader.readTestSet(dataDir, limit == null ? Integer.MAX_VALUE : limit);
        if (data.size() == 0) throw new ByodtException(dataDir + ": the data set holds no images");
        // Counting logs every executed block: one image per run keeps the log to a few hundred megabytes.
        int batch = countInstructions ? 1 : Math.min(BATCH, data.size());
        Graph graph = loadWithBatch(batch);
        try (CompiledModule module = Compiler.compile(graph, modelOptions.compileOptions());
             EmulatedModel model = EmulatedModel.build(module, emulator)) {
            ModelOptions.reportFallbacks(module);
            double buildSeconds = (System.nanoTime() - start) / 1e9;
            long runStart = System.nanoTime();
            int correct = 0, runs = 0;
            Tensor images = Tensor.zeros(model.inputs().getFirst().type(), model.inputs().getFirst().shape());
            long imageBytes = images.data().byteSize() / batch;
            for (int first = 0; first < data.size(); first += batch) {
                int count = Math.min(batch, data.size() - first);
                images.data().fill((byte) 0);
                MemorySegment.copy(data.images().data(), first * imageBytes, images.data(), 0, count * imageBytes);
                Tensor logits = runs == 0 && countInstructions ? countedRun(model, images) : model.run(List.of(images)).getFirst();
                runs++;
                int classes = (int) (logits.elementCount() / batch);
                for (int i = 0; i < count; i++) {
                    if (argmax(logits, i * classes, classes) == data.labels()[first + i]) correct++;
                }
            }
            double runSeconds = (System.nanoTime() - runStart) / 1e9;
            System.out.printf("model     %s%n", modelOptions.model);
            System.out.printf("data      %s (%d images, pixel/255)%n", dataDir, data.size());
            System.out.printf("dtype     %s%s%n", modelOptions.dtype, modelOptions.describeDatatypeOptions());
            System.out.printf("target    %s (%s, %s; %d runs of %d images under %s)%n", target.name(), target.triple(),
                target.riscvAbi(), runs, batch, emulator.qemu().getFileName());
            System.out.printf("top-1     %.2f%% (%d/%d)%n", 100.0 * correct / data.size(), correct, data.size());
            System.out.printf("time      build %.2f s, emulated inference %.2f s%n", buildSeconds, runSeconds);
        }
        return 0;
    }

    /** Runs the first image with qemu's logging on and prints the executed instructions per function. */
    private Tensor countedRun(EmulatedModel model, Tensor image) {
        Path log = null;
        try {
            log = Files.createTempFile("byodt-qemu-", ".log");
            Tensor logits = model.run(List.of(image), DynamicCounts.qemuOptions(log)).outputs().getFirst();
            DynamicCounts.Executed executed = DynamicCounts.read(log);
            System.out.printf("executed instructions, first image, on %s (qemu's in_asm/exec log)%n", target.name());
            for (Map.Entry<String, Long> e : executed.perFunction().entrySet()) {
                if (e.getKey().startsWith("k") || e.getKey().equals(model.entrySymbol())) {
                    System.out.printf("%12d  %s%n", e.getValue(), e.getKey());
                }
            }
            System.out.printf("%12d  total, harness included%n", executed.total());
            if (target.extension().isPresent()) {
                System.out.printf("%12d  of them P instructions, each counted once (qemu has no P: the executable emulated "
                    + "them, in %d instructions not counted)%n", executed.undecodable(), executed.emulation());
            }
            return logits;
        } catch (IOException e) {
            throw new ByodtException("cannot create a log file for qemu: " + e.getMessage(), e);
        } finally {
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    // a leftover log in the temporary folder must not hide the counts
                }
            }
        }
    }

    /** The model with the batch dimension of its one image input set to {@code batch}. */
    private Graph loadWithBatch(int batch) {
        Graph plain = OnnxLoader.load(modelOptions.model, modelOptions.shapeOverrides(), modelOptions.boundInputs());
        if (plain.inputs().size() != 1) {
            throw new ByodtException("image classification needs a model with one input; this one has " + plain.inputs().size());
        }
        Value input = plain.inputs().getFirst();
        long[] shape = input.type().shape().clone();
        if (shape.length != 4) throw new ByodtException("input '" + input.name() + "' is not a batch of images (NCHW)");
        shape[0] = batch;
        Map<String, long[]> overrides = new HashMap<>(modelOptions.shapeOverrides());
        overrides.put(input.name(), shape);
        return OnnxLoader.load(modelOptions.model, overrides, modelOptions.boundInputs());
    }

    private static int argmax(Tensor logits, int offset, int count) {
        int best = 0;
        for (int i = 1; i < count; i++) {
            if (logits.getFloat(offset + i) > logits.getFloat(offset + best)) best = i;
        }
        return best;
    }
}
