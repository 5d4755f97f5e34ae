package dev.byodt.cli;

import dev.byodt.compiler.conformance.TestDataSource;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.data.DataSource;
import dev.byodt.runtime.data.IdxSource;
import dev.byodt.runtime.data.ImageFolderSource;
import dev.byodt.runtime.data.ImagePreprocessing;
import dev.byodt.runtime.data.NormalizedSource;
import dev.byodt.runtime.data.Normalization;
import dev.byodt.runtime.data.NpySource;
import dev.byodt.cli.compare.Baseline;
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

/**
 * The data a model is compared on, shared by run and sweep: how --data names it, labels, normalization,
 * how many items, and the batch the model is compiled for.
 */
final class DataOptions {
    static final Path DEBIAN_FASHION_MNIST = Path.of("/usr/share/datasets/fashion-mnist");

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
        description = "Compile for N items per call (the input's first dimension; the last partial batch is padded). Default: 1.")
    Integer batch;

    void check() {
        if (limit != null && limit <= 0) throw new UsageException("--limit must be positive");
        if (batch != null && batch <= 0) throw new UsageException("--batch must be positive");
    }

    /**
     * Loads the model with the --shape overrides, and with --batch its one input's first dimension set to the
     * batch (which needs a second load, since the input's name and declared shape come from the first).
     */
    Graph load(Path model, Map<String, long[]> shapes, Map<String, Tensor> bound) {
        Graph graph = OnnxLoader.load(model, shapes, bound);
        if (batch == null) return graph;
        TensorSpec input = Baseline.singleInput(graph);
        Map<String, long[]> batched = new LinkedHashMap<>(shapes);
        batched.put(input.name(), batchedShape(input.name(), input.shape()));
        return OnnxLoader.load(model, batched, bound);
    }

    /** The --shape override that --batch makes of a model input's shape, or null without --batch. */
    private long[] batchedShape(String inputName, long[] declared) {
        if (batch == null) return null;
        if (declared.length == 0) throw new UsageException("--batch: the input '" + inputName + "' is a scalar, it has no batch dimension");
        long[] shape = declared.clone();
        shape[0] = batch;
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
    DataSource open(String spec, Path model, long[] inputShape) {
        DataSource source = openRaw(spec == null ? "sample" : spec, model, inputShape);
        if (mean != null || std != null) source = new NormalizedSource(source, Normalization.of(mean, std));
        if (limit != null) source = source.firstItems(limit);
        return source;
    }

    /**
     * The IDX folder a --data spec names ('sample', 'fashion-mnist' or a folder), for runs that read IDX files
     * themselves (a RISC-V target's executable).
     */
    Path idxFolder(String spec, Path model) {
        Path folder = namedIdxFolder(spec == null ? "sample" : spec, model);
        if (folder == null) folder = Path.of(spec);
        if (!Files.isDirectory(folder) || !hasIdx(folder)) throw new ByodtException("--data " + spec + ": no folder of IDX files at " + folder);
        return folder;
    }

    /** The folder of 'sample' or 'fashion-mnist', or null for any other spec. */
    private static Path namedIdxFolder(String spec, Path model) {
        return switch (spec) {
            case "sample" -> sampleFolder(model);
            case "fashion-mnist" -> {
                if (!Files.isDirectory(DEBIAN_FASHION_MNIST)) {
                    throw new ByodtException(DEBIAN_FASHION_MNIST + " not found: install Debian's dataset-fashion-mnist "
                        + "(apt-get install dataset-fashion-mnist) or give --data DIR");
                }
                yield DEBIAN_FASHION_MNIST;
            }
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
        return ImageFolderSource.open(path, labels, imagePreprocessing(inputShape));
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

    /** Images are resized to the input's last three dimensions, C x H x W. */
    private static ImagePreprocessing imagePreprocessing(long[] inputShape) {
        if (inputShape.length < 3) {
            throw new ByodtException("images need a model input of shape [N,] C x H x W; this one is " + Shapes.format(inputShape));
        }
        int n = inputShape.length;
        return new ImagePreprocessing((int) inputShape[n - 3], (int) inputShape[n - 2], (int) inputShape[n - 1]);
    }

    /** The sample beside the model if there is one, else the one in byodt's own models/ folder. */
    private static Path sampleFolder(Path model) {
        Path besideModel = model.toAbsolutePath().getParent().resolve("fashion-mnist-sample");
        if (Files.isDirectory(besideModel)) return besideModel;
        return Path.of(System.getProperty("byodt.home", "."), "models", "fashion-mnist-sample");
    }
}
