package dev.byodt.cli;

import dev.byodt.compiler.conformance.TestDataSource;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.data.DataSource;
import dev.byodt.runtime.data.DebianFashionMnist;
import dev.byodt.runtime.data.IdxSource;
import dev.byodt.runtime.data.ImageFolderSource;
import dev.byodt.runtime.data.ImagePreprocessing;
import dev.byodt.runtime.data.NormalizedSource;
import dev.byodt.runtime.data.Normalization;
import dev.byodt.runtime.data.NpySource;
import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.Executor;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * The data a model is compared on, shared by run and sweep: how --data names it, labels, normalization,
 * how many items, and the batch the model is compiled for.
 */
final class DataOptions {
    static final String DATA_DESCRIPTION = "Data to run on: 'sample' (the 1,000 Fashion-MNIST test images in models/, the default), "
        + "'fashion-mnist' (the 10,000 test images of Debian's dataset-fashion-mnist), a folder of IDX files "
        + "(t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]; pixels become pixel/255), an ONNX test-data folder "
        + "(input_0.pb or test_data_set_N/), a .npy file of shape [N, item...] (labels from --labels L.npy), "
        + "or a PNG/JPEG image or folder of them (class folders give labels; see --labels).";

    @Option(names = "--labels", paramLabel = "FILE",
        description = "Labels: for .npy data a .npy of N integers; for an image folder a text file of 'PATH LABEL' lines.")
    Path labels;

    @Option(names = "--mean", split = ",", paramLabel = "M[,M...]",
        description = "Subtract this per channel after the source's own scaling (one value, or one per channel).")
    double[] mean;

    @Option(names = "--std", split = ",", paramLabel = "S[,S...]", description = "Then divide by this per channel.")
    double[] std;

    @Option(names = "--limit", paramLabel = "N", description = "Use only the first N items.")
    Integer limit;

    @Option(names = "--batch", paramLabel = "N",
        description = "Compile for N items per call (the input's first dimension; the last partial batch is padded). "
            + "Default: 1 on this machine; on a RISC-V --target up to 50 per qemu process, at least a process per core.")
    Integer batch;

    void check() {
        if (limit != null && limit <= 0) throw new UsageException("--limit must be positive");
        if (batch != null && batch <= 0) throw new UsageException("--batch must be positive");
    }

    /** The model as compiled for its data, and the data. */
    record Loaded(Graph graph, DataSource data) {}

    /**
     * Loads the model with the --shape overrides and opens the data named by {@code spec} for it (an image's
     * size comes from the input's shape). The input's first dimension becomes the batch: --batch, or without
     * it the executor's batch for this much data.
     */
    Loaded load(String spec, Path model, Map<String, long[]> shapes, Map<String, Tensor> bound, Executor executor) {
        return load(spec, model, shapes, bound, data -> batch != null ? OptionalInt.of(batch) : executor.batchFor(data.size()));
    }

    /** {@link #load(String, Path, Map, Map, Executor)} with one item per call, whatever --batch says. */
    Loaded loadForOneItem(String spec, Path model, Map<String, long[]> shapes, Map<String, Tensor> bound) {
        return load(spec, model, shapes, bound, data -> OptionalInt.of(1));
    }

    /**
     * @param itemsPerCall the batch for the data, which takes a second load (the input's name and declared shape
     *                     come from the first); applied as --batch always was, and otherwise only where the data's
     *                     items fill the input along a first axis (not ONNX test data, whose items are whole inputs)
     */
    private Loaded load(String spec, Path model, Map<String, long[]> shapes, Map<String, Tensor> bound,
                        Function<DataSource, OptionalInt> itemsPerCall) {
        Graph declared = OnnxLoader.load(model, shapes, bound);
        TensorSpec input = Baseline.singleInput(declared);
        DataSource data = open(spec, model, input.shape());
        boolean batchAxis = data.itemShape().length == input.shape().length - 1;
        OptionalInt items = batch != null || batchAxis ? itemsPerCall.apply(data) : OptionalInt.empty();
        if (items.isEmpty()) return new Loaded(declared, data);
        Map<String, long[]> batched = new LinkedHashMap<>(shapes);
        batched.put(input.name(), batchedShape(input.name(), input.shape(), items.getAsInt()));
        return new Loaded(OnnxLoader.load(model, batched, bound), data);
    }

    /** The --shape override that a batch of {@code items} makes of a model input's shape. */
    private static long[] batchedShape(String inputName, long[] declared, int items) {
        if (declared.length == 0) throw new UsageException("--batch: the input '" + inputName + "' is a scalar, it has no batch dimension");
        long[] shape = declared.clone();
        shape[0] = items;
        for (int d = 1; d < shape.length; d++) {
            if (shape[d] <= 0) throw new ByodtException("input '" + inputName + "' has a symbolic dimension besides the batch ("
                + Arrays.toString(declared) + "); give its shape with --shape");
        }
        return shape;
    }

    /**
     * Opens the data named by {@code spec} for a model whose input has {@code inputShape} (which decides
     * how images are resized) and applies --mean/--std and --limit.
     */
    private DataSource open(String spec, Path model, long[] inputShape) {
        DataSource source = openRaw(spec == null ? "sample" : spec, model, inputShape);
        if (mean != null || std != null) source = new NormalizedSource(source, Normalization.of(mean, std));
        if (limit != null) source = source.firstItems(limit);
        return source;
    }

    /** The folder of 'sample' or 'fashion-mnist', or null for any other spec. */
    private static Path namedIdxFolder(String spec, Path model) {
        return switch (spec) {
            case "sample" -> sampleFolder(model);
            case "fashion-mnist" -> DebianFashionMnist.folder();
            default -> null;
        };
    }

    private DataSource openRaw(String spec, Path model, long[] inputShape) {
        Path named = namedIdxFolder(spec, model);
        if (named != null) return idx(named);
        Path path = Path.of(spec);
        if (!Files.exists(path)) throw new ByodtException("--data " + spec + ": no such file or folder");
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (Files.isRegularFile(path) && name.endsWith(".npy")) return NpySource.open(path, labels);
        if (Files.isDirectory(path) && hasIdx(path)) {
            rejectLabels("an IDX folder (its labels come from t10k-labels-idx1-ubyte)");
            return idx(path);
        }
        if (Files.isDirectory(path) && isTestData(path)) {
            rejectLabels("ONNX test data");
            return TestDataSource.open(path);
        }
        return ImageFolderSource.open(path, labels, ImagePreprocessing.forInput(inputShape));
    }

    private void rejectLabels(String what) {
        if (labels != null) throw new UsageException("--labels does not apply to " + what);
    }

    private IdxSource idx(Path folder) { return IdxSource.testSet(folder, limit == null ? Integer.MAX_VALUE : limit); }

    private static boolean hasIdx(Path folder) {
        return List.of("t10k-images-idx3-ubyte", "t10k-images-idx3-ubyte.gz").stream().anyMatch(f -> Files.isRegularFile(folder.resolve(f)));
    }

    private static boolean isTestData(Path folder) {
        if (Files.isRegularFile(folder.resolve("input_0.pb"))) return true;
        return Files.isDirectory(folder.resolve("test_data_set_0"));
    }

    /** The sample beside the model if there is one, else the one in byodt's own models/ folder. */
    private static Path sampleFolder(Path model) {
        Path besideModel = model.toAbsolutePath().getParent().resolve("fashion-mnist-sample");
        if (Files.isDirectory(besideModel)) return besideModel;
        return Path.of(System.getProperty("byodt.home", "."), "models", "fashion-mnist-sample");
    }
}
