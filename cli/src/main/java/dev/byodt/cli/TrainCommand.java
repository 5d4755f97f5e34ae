package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.progress.Progress;
import dev.byodt.cli.train.EpochRecord;
import dev.byodt.cli.train.TrainingData;
import dev.byodt.cli.train.TrainingHistory;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.train.Loss;
import dev.byodt.compiler.train.LossScaling;
import dev.byodt.compiler.train.OnnxWeights;
import dev.byodt.compiler.train.Optimizer;
import dev.byodt.compiler.train.StepStatistics;
import dev.byodt.compiler.train.TrainableGraph;
import dev.byodt.compiler.train.Trainer;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;

@Command(name = "train", mixinStandardHelpOptions = true,
    description = {"Train a classifier's weights in a datatype: forward pass, loss, backward pass and optimizer all "
        + "compute in --dtype (weights and optimizer state pass between steps as float32, which holds every value "
        + "of the 8- and 16-bit formats exactly). Starts from the model's initializers and writes the trained "
        + "model, the history (CSV, JSON) and loss and accuracy charts (PNG, SVG) into --out.",
        "Each epoch prints its mean loss, top-1 on the training batches as they were trained, top-1 on the test "
        + "split, and its time, with the training steps' own time and images per second. Batches are whole: a last "
        + "partial training batch is left out of the epoch."},
    footer = {"", "Examples:",
        "  byodt train models/lenet5-fashion-untrained.onnx --epochs 1 --optimizer adam --out trained",
        "  byodt train models/lenet5-fashion-untrained.onnx --dtype custom[posit]16 --limit 6000 --shuffle --seed 1 --out p16"})
final class TrainCommand implements Callable<Integer> {
    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--data", defaultValue = "fashion-mnist", paramLabel = "SOURCE",
        description = "Items to train on: 'fashion-mnist' (Debian's dataset-fashion-mnist, the default) or a folder of IDX "
            + "files (train-images-idx3-ubyte[.gz] and train-labels-idx1-ubyte[.gz]; its t10k-* files are the default "
            + "test items; pixels become pixel/255), a .npy file of shape [N, item...] with --labels L.npy, or a PNG/JPEG "
            + "folder (class subfolders, or --labels).")
    String data;

    @Option(names = "--labels", paramLabel = "FILE",
        description = "Labels of --data: for .npy data a .npy of N integers; for an image folder a text file of 'PATH LABEL' lines.")
    Path labels;

    @Option(names = "--test-data", paramLabel = "SOURCE",
        description = "Items to test on after each epoch, named as --data names them (an IDX folder gives its t10k-* files). "
            + "Default: the t10k-* files of --data's folder.")
    String testData;

    @Option(names = "--test-labels", paramLabel = "FILE", description = "Labels of --test-data, as --labels.")
    Path testLabels;

    @Option(names = "--out", required = true, paramLabel = "DIR",
        description = "Folder for model.onnx, history.csv, history.json, loss.png/.svg and accuracy.png/.svg (created if missing).")
    Path out;

    @Option(names = "--epochs", defaultValue = "1", paramLabel = "N", description = "Passes over the training data (default: ${DEFAULT-VALUE}).")
    int epochs;

    @Mixin
    TrainingStepOptions step;

    @Option(names = "--shuffle", description = "Visit the training items in a new random order each epoch (seeded by --seed).")
    boolean shuffle;


    @Option(names = "--limit", paramLabel = "N", description = "Train on the first N training items only.")
    Integer limit;

    @Option(names = "--test-limit", paramLabel = "N", description = "Test on the first N test items only.")
    Integer testLimit;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        checkUsage();
        Loss chosenLoss = step.lossFunction();
        LossScaling scaling = step.lossScaling();
        int batch = step.batch;
        Optional<Integer> apart = modelOptions.plugins.runApartIfUntrusted(spec, modelOptions::datatypeInstances);
        if (apart.isPresent()) return apart.get();
        CompileOptions options = step.compileOptions(modelOptions);
        Optimizer chosenOptimizer = step.optimizer();

        Graph model = step.batchedModel(modelOptions);
        TrainingData sets = TrainingData.open(data, labels, testData, testLabels, Baseline.singleInput(model).shape(), limit, testLimit);
        DataSource training = sets.training(), test = sets.test();
        // A label past the model's classes would index past its scores in the loss kernel (an output of another
        // rank is refused with the training step's own message).
        if (model.outputs().getFirst().type().rank() == 2) {
            int classes = (int) model.outputs().getFirst().type().dim(1);
            training.requireLabelsBelow(classes);
            test.requireLabelsBelow(classes);
        }
        int steps = training.size() / batch;
        if (steps == 0) throw new ByodtException("--batch " + batch + " is more than the " + training.size() + " training items");

        TrainableGraph graph = TrainableGraph.of(model, OnnxWeights.floatInitializers(modelOptions.model));
        Map<String, String> configuration = configuration(training, test, chosenOptimizer, chosenLoss);
        if (step.masterWeights != null) configuration.put("master", "float32 weights and optimizer state");
        if (step.lossScale != null) configuration.put("loss scale", step.lossScale.equals("dynamic") ? "dynamic, from 65536" : step.lossScale);
        configuration.forEach((key, value) -> System.out.printf("%-10s %s%n", key, value));
        Files.createDirectories(out);
        TrainingHistory history = new TrainingHistory(configuration);
        long compileStart = System.nanoTime();
        try (Trainer trainer = Trainer.compile(graph, chosenLoss, chosenOptimizer, scaling, options)) {
            System.out.printf("%-10s %.2f s%n", "compile", (System.nanoTime() - compileStart) / 1e9);
            trainer.seedDropout(modelOptions.stochastic.seed);
            Random random = new Random(modelOptions.stochastic.seed);
            int[] order = IntStream.range(0, training.size()).toArray();
            for (int epoch = 1; epoch <= epochs; epoch++) {
                long start = System.nanoTime();
                long skippedBefore = trainer.skippedSteps();
                StepStatistics.Counts countsBefore = trainer.counts();
                if (shuffle) shuffle(order, random);
                double lossSum = 0;
                long correct = 0;
                long trainingStart = System.nanoTime();
                try (Progress progress = Progress.start("epoch " + epoch + "/" + epochs, (long) steps * batch, "img")) {
                    for (int s = 0; s < steps; s++) {
                        int[] items = Arrays.copyOfRange(order, s * batch, (s + 1) * batch);
                        fill(training, items, trainer.images(), trainer.labels());
                        lossSum += trainer.step();
                        correct += correctCount(trainer.stepOutput(), training, items);
                        progress.step(batch);
                    }
                }
                double trainingSeconds = (System.nanoTime() - trainingStart) / 1e9;
                double testTop1 = testTop1(trainer, test);
                EpochRecord record = new EpochRecord(epoch, lossSum / steps, 100.0 * correct / ((long) steps * batch), testTop1,
                    (System.nanoTime() - start) / 1e9, trainer.counts().minus(countsBefore));
                System.out.printf(Locale.ROOT, "epoch %d/%d  loss %.4f  train top-1 %.2f%%  test top-1 %.2f%%  time %.1f s"
                    + " (training steps %.2f s, %.0f img/s)%n", epoch, epochs, record.loss(), record.trainTop1(), record.testTop1(),
                    record.seconds(), trainingSeconds, (double) steps * batch / trainingSeconds);
                StepStatistics.Counts c = record.counts();
                System.out.printf(Locale.ROOT, "           gradients %d zero, %d saturated; updates %d vanished, %d saturated"
                    + " (%d weights x %d steps)%n", c.zeroGradients(), c.saturatedGradients(), c.vanishedUpdates(),
                    c.saturatedUpdates(), trainer.weightElements(), steps);
                if (scaling.dynamic()) {
                    System.out.printf(Locale.ROOT, "           loss scale %s, %d of %d steps skipped (overflow)%n",
                        lossScaleText(trainer.lossScale()), trainer.skippedSteps() - skippedBefore, steps);
                }
                history.add(record);
                OnnxWeights.write(modelOptions.model, trainer.initializers(), out.resolve("model.onnx"));
                history.write(out);
            }
        }
        System.out.println("wrote     " + out.resolve("model.onnx") + ", history.csv, history.json, loss and accuracy charts");
        return 0;
    }

    private void checkUsage() {
        step.check();
        if (epochs <= 0) throw new UsageException("--epochs must be positive");
        if (modelOptions.blocks().any()) {
            throw new UsageException("train: block datatypes (" + modelOptions.blocks().blockNames().getFirst() + ") compute inference only for now");
        }
        if (limit != null && limit <= 0) throw new UsageException("--limit must be positive");
        if (testLimit != null && testLimit <= 0) throw new UsageException("--test-limit must be positive");
        if (modelOptions.target().isRiscv()) {
            throw new UsageException("train runs on the host only; --target " + modelOptions.target
                + " does not apply (byodt compile --train writes the training step for it)");
        }
    }

    /** A power of two as 2^k, anything else as a number. */
    private static String lossScaleText(double scale) {
        int exponent = Math.getExponent(scale);
        return scale == Math.scalb(1.0, exponent) ? "2^" + exponent : Double.toString(scale);
    }

    private Map<String, String> configuration(DataSource training, DataSource test, Optimizer o, Loss l) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("model", modelOptions.model.toString());
        c.put("data", training.description());
        c.put("test", test.description());
        c.put("dtype", modelOptions.dtype + modelOptions.describeDatatypeOptions());
        c.put(TrainingHistory.MULTIPLY_ADD, modelOptions.multiplyAdd.mode().optionName());
        String hyper = switch (o.kind()) {
            case SGD -> "";
            case MOMENTUM -> ", momentum " + o.momentum();
            case ADAM -> ", betas " + o.beta1() + " " + o.beta2() + ", epsilon " + o.epsilon();
        };
        c.put("optimizer", o.kind().optionName() + ", lr " + o.learningRate() + hyper
            + (o.weightDecay() != 0 ? ", weight decay " + o.weightDecay() : ""));
        c.put("loss", l.optionName());
        c.put("batches", step.batch + " items, " + epochs + " epoch" + (epochs == 1 ? "" : "s")
            + (shuffle ? ", shuffled with seed " + modelOptions.stochastic.seed : ", in file order"));
        return c;
    }

    /** Fisher-Yates with the run's one generator, so a seed gives the same order in every epoch of every run. */
    private static void shuffle(int[] order, Random random) {
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }

    /** Copies the items into the batch tensors; an item the model's input cannot hold is an error. */
    private static void fill(DataSource source, int[] items, Tensor images, Tensor labels) {
        long itemBytes = images.data().byteSize() / items.length;
        long sourceBytes = Arrays.stream(source.itemShape()).reduce(1, (a, b) -> a * b) * Float.BYTES;
        if (sourceBytes != itemBytes) {
            throw new ByodtException("the data's items (" + sourceBytes / Float.BYTES + " values) do not fit the model's input ("
                + itemBytes / Float.BYTES + " values per item)");
        }
        for (int i = 0; i < items.length; i++) {
            source.readItem(items[i], images.data().asSlice(i * itemBytes, itemBytes));
            labels.setLong(i, source.label(items[i]));
        }
    }

    private static long correctCount(Tensor scores, DataSource source, int[] items) {
        long correct = 0;
        long classes = scores.shape()[1];
        for (int i = 0; i < items.length; i++) {
            if (argmax(scores, i * classes, classes) == source.label(items[i])) correct++;
        }
        return correct;
    }

    private static int argmax(Tensor scores, long offset, long count) {
        int best = 0;
        for (int k = 1; k < count; k++) if (scores.getFloat(offset + k) > scores.getFloat(offset + best)) best = k;
        return best;
    }

    /** Top-1 in percent on the test split, in batches of --batch; the last batch's padding is not counted. */
    private double testTop1(Trainer trainer, DataSource test) {
        Tensor input = trainer.predictionInput();
        long itemBytes = input.data().byteSize() / step.batch;
        long correct = 0;
        for (int start = 0; start < test.size(); start += step.batch) {
            int count = Math.min(step.batch, test.size() - start);
            input.data().fill((byte) 0);
            for (int i = 0; i < count; i++) test.readItem(start + i, input.data().asSlice(i * itemBytes, itemBytes));
            Tensor scores = trainer.predict(start);
            long classes = scores.shape()[1];
            for (int i = 0; i < count; i++) if (argmax(scores, i * classes, classes) == test.label(start + i)) correct++;
        }
        return 100.0 * correct / test.size();
    }
}
