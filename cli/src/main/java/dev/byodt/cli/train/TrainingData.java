package dev.byodt.cli.train;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.data.DataSource;
import dev.byodt.runtime.data.DebianFashionMnist;
import dev.byodt.runtime.data.IdxSource;
import dev.byodt.runtime.data.ImageFolderSource;
import dev.byodt.runtime.data.ImagePreprocessing;
import dev.byodt.runtime.data.NpySource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The labeled items byodt train trains and tests on, each named as run names its data: 'fashion-mnist' or a
 * folder of IDX files (its train-* files to train on, its t10k-* files to test on), a .npy file of [N, item...]
 * with a .npy of N labels, or a PNG/JPEG folder (class subfolders, or a labels file of 'PATH LABEL' lines).
 * The test items come from the training folder's t10k-* files unless a test source is named.
 */
public record TrainingData(DataSource training, DataSource test) {
    /**
     * @param inputShape the model input's shape, which sizes the images of an image folder
     * @param limit      the most training items to use (null: all)
     * @param testLimit  the most test items to use (null: all)
     */
    public static TrainingData open(String data, Path labels, String testData, Path testLabels, long[] inputShape,
                                    Integer limit, Integer testLimit) {
        DataSource training = source(data, "--data", labels, "train", inputShape, limit);
        DataSource test;
        if (testData != null) {
            test = source(testData, "--test-data", testLabels, "t10k", inputShape, testLimit);
        } else {
            Path folder = idxFolder(data, "train");
            if (folder == null) throw new ByodtException("--data " + data + ": give the items to test on with --test-data");
            test = IdxSource.testSet(folder, testLimit == null ? Integer.MAX_VALUE : testLimit);
        }
        return new TrainingData(training, test);
    }

    /** An IDX folder's {@code split} ("train" or "t10k"), a .npy file, or an image folder; its first {@code limit} items. */
    private static DataSource source(String spec, String option, Path labels, String split, long[] inputShape, Integer limit) {
        Path folder = idxFolder(spec, split);
        if (folder != null) {
            if (labels != null) throw new ByodtException(option + " " + spec + ": an IDX folder has its own labels");
            // Read only the images used: the training split holds 60,000.
            return IdxSource.split(folder, split, limit == null ? Integer.MAX_VALUE : limit);
        }
        Path path = Path.of(spec);
        if (!Files.exists(path)) throw new ByodtException(option + " " + spec + ": no such file or folder");
        if (idxFolder(spec, split.equals("train") ? "t10k" : "train") != null) {
            throw new ByodtException(option + " " + spec + ": an IDX folder without " + split + "-images-idx3-ubyte[.gz]");
        }
        DataSource source = Files.isRegularFile(path) && path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".npy")
            ? NpySource.open(path, labels) : ImageFolderSource.open(path, labels, ImagePreprocessing.forInput(inputShape));
        if (!source.hasLabels()) throw new ByodtException(option + " " + spec + ": training and testing need labels");
        return limit == null ? source : source.firstItems(limit);
    }

    /** The folder of 'fashion-mnist', or {@code spec} when it is a folder holding IDX files of {@code split}; else null. */
    private static Path idxFolder(String spec, String split) {
        if (spec.equals("fashion-mnist")) return DebianFashionMnist.folder();
        Path path = Path.of(spec);
        if (!Files.isDirectory(path)) return null;
        boolean idx = List.of(split + "-images-idx3-ubyte", split + "-images-idx3-ubyte.gz").stream()
            .anyMatch(f -> Files.isRegularFile(path.resolve(f)));
        return idx ? path : null;
    }
}
