package dev.byodt.cli;

import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Top-1 accuracy of an image classifier on IDX data: the model is compiled once (one image per call) and
 * the images are spread over all cores.
 */
final class ClassificationRun {
    static final Path DEBIAN_FASHION_MNIST = Path.of("/usr/share/datasets/fashion-mnist");

    private final ModelOptions modelOptions;
    private final String dataSource;
    private final Integer limit;
    private final boolean verbose;

    ClassificationRun(ModelOptions modelOptions, String dataSource, Integer limit, boolean verbose) {
        this.modelOptions = modelOptions;
        this.dataSource = dataSource == null ? "sample" : dataSource;
        this.limit = limit;
        this.verbose = verbose;
    }

    int call() {
        long start = System.nanoTime();
        Graph graph = modelOptions.load();
        Path dataDir = resolveData();
        LabeledImages data = IdxReader.readTestSet(dataDir, limit == null ? Integer.MAX_VALUE : limit);
        if (data.size() == 0) throw new ByodtException(dataDir + ": the data set holds no images");
        try (CompiledModule module = Compiler.compile(graph, modelOptions.compileOptions());
             HostModel model = Compiler.jit(module)) {
            ModelOptions.reportFallbacks(module);
            double compileSeconds = (System.nanoTime() - start) / 1e9;
            TensorSpec input = requireImageInput(model, data);
            long runStart = System.nanoTime();
            int correct = countCorrect(model, input, data);
            double runSeconds = (System.nanoTime() - runStart) / 1e9;

            System.out.printf("model     %s%n", modelOptions.model);
            System.out.printf("data      %s (%d images, pixel/255)%n", dataDir, data.size());
            System.out.printf("dtype     %s%s%n", modelOptions.dtype, modelOptions.describeDatatypeOptions());
            System.out.printf("top-1     %.2f%% (%d/%d)%s%n", 100.0 * correct / data.size(), correct, data.size(),
                RecordedAccuracy.describe(modelOptions.model, data.size()));
            System.out.printf("time      compile %.2f s, inference %.3f s (%.0f images/s)%n", compileSeconds, runSeconds,
                data.size() / runSeconds);
        }
        return 0;
    }

    Path resolveData() {
        Path dir = switch (dataSource) {
            case "sample" -> sampleFolder();
            case "fashion-mnist" -> {
                if (!Files.isDirectory(DEBIAN_FASHION_MNIST)) {
                    throw new ByodtException(DEBIAN_FASHION_MNIST + " not found: install Debian's dataset-fashion-mnist "
                        + "(apt-get install dataset-fashion-mnist) or give --data DIR");
                }
                yield DEBIAN_FASHION_MNIST;
            }
            default -> Path.of(dataSource);
        };
        if (!Files.isDirectory(dir)) throw new ByodtException("--data " + dataSource + ": no such folder " + dir);
        return dir;
    }

    /** The sample beside the model if there is one, else the one in byodt's own models/ folder. */
    private Path sampleFolder() {
        Path besideModel = modelOptions.model.toAbsolutePath().getParent().resolve("fashion-mnist-sample");
        if (Files.isDirectory(besideModel)) return besideModel;
        return Path.of(System.getProperty("byodt.home", "."), "models", "fashion-mnist-sample");
    }

    private static TensorSpec requireImageInput(HostModel model, LabeledImages data) {
        if (model.inputs().size() != 1) {
            throw new ByodtException("image classification needs a model with one input; this one has " + model.inputs().size());
        }
        TensorSpec input = model.inputs().get(0);
        long[] image = data.images().shape();
        long[] expected = {1, image[1], image[2], image[3]};
        if (!java.util.Arrays.equals(input.shape(), expected)) {
            throw new ByodtException("input '" + input.name() + "' has shape " + Shapes.format(input.shape())
                + " but the images are " + Shapes.format(expected) + " each");
        }
        return input;
    }

    private static int countCorrect(HostModel model, TensorSpec input, LabeledImages data) {
        int workers = Runtime.getRuntime().availableProcessors();
        int n = data.size();
        try (ExecutorService pool = Executors.newFixedThreadPool(workers)) {
            List<Future<Integer>> parts = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int from = (int) ((long) n * w / workers), to = (int) ((long) n * (w + 1) / workers);
                parts.add(pool.submit(() -> countCorrect(model, input, data, from, to)));
            }
            int correct = 0;
            for (Future<Integer> part : parts) correct += part.get();
            return correct;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ByodtException("interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        }
    }

    private static int countCorrect(HostModel model, TensorSpec input, LabeledImages data, int from, int to) {
        long imageBytes = input.byteSize();
        Tensor image = Tensor.zeros(input.type(), input.shape());
        int correct = 0;
        for (int i = from; i < to; i++) {
            MemorySegment.copy(data.images().data(), i * imageBytes, image.data(), 0, imageBytes);
            Tensor logits = model.run(List.of(image)).get(0);
            if (argmax(logits) == data.labels()[i]) correct++;
        }
        return correct;
    }

    static int argmax(Tensor t) {
        int best = 0;
        for (int i = 1; i < t.elementCount(); i++) {
            if (t.getFloat(i) > t.getFloat(best)) best = i;
        }
        return best;
    }
}
