package dev.byodt.cli;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;

import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * `byodt bench --threads N`: float32 throughput of byodt and ONNX Runtime with the same number of threads, side by
 * side in this process, one row per model and batch size, with byodt on one thread and the agreement of the two
 * engines' outputs beside them. byodt runs a batch of 1 compiled for N threads (each convolution and matrix
 * product divided among them), and a larger batch that divides by N the ways `byodt run` spreads images, each
 * thread its share at once: the whole share a call (as `--batch` of the share), or one image a call (`byodt
 * run`'s default), whichever ran faster in a short timing of both before the measurement ({@link #fasterSpread}).
 */
final class EqualThreadsBench {
    private final List<Path> models;
    private final List<Integer> batches;
    private final double seconds;
    private final int threads;
    private final CompileOptions options;

    /** {@code options}: how byodt compiles each model, on one thread (--multiply-add's). */
    EqualThreadsBench(List<Path> models, List<Integer> batches, double seconds, int threads, CompileOptions options) {
        if (threads < 1) throw new UsageException("--threads must be at least 1");
        for (int batch : batches) if (batch <= 0) throw new UsageException("--batch sizes must be positive");
        this.models = models;
        this.batches = batches;
        this.seconds = seconds;
        this.threads = threads;
        this.options = options;
    }

    /** Prints the table; false when some model's outputs differ from ONNX Runtime's by more than the tolerance. */
    boolean run() throws OrtException {
        System.out.printf("float32 (%s), host, %d cores, load average %s; byodt and ONNX Runtime (intra-op threads) "
            + "on %d thread%s each%n", MultiplyAddOption.describeFloat32(options), Runtime.getRuntime().availableProcessors(), loadAverage(),
            threads, threads == 1 ? "" : "s");
        System.out.printf("%-22s %5s  %8s  %12s  %12s  %7s  %14s  %10s%n", "model", "batch", "per call", "byodt img/s", "ort img/s",
            "ratio", "byodt 1 thread", "difference");
        boolean agree = true;
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        for (Path model : models) {
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(threads);
            try (OrtSession session = env.createSession(model.toString(), options)) {
                String inputName = session.getInputNames().iterator().next();
                long[] modelShape = ((TensorInfo) ((NodeInfo) session.getInputInfo().get(inputName)).getInfo()).getShape();
                for (int batch : batches) {
                    long[] shape = modelShape.clone();
                    shape[0] = batch;
                    for (int d = 1; d < shape.length; d++) {
                        if (shape[d] < 0) throw new ByodtException(model + ": input '" + inputName + "' has a symbolic dimension besides the batch");
                    }
                    Row row = measure(env, session, model, inputName, shape);
                    agree &= row.difference <= BenchCommand.TOLERANCE;
                    System.out.printf("%-22s %5d  %8d  %12.1f  %12.1f  %6.2fx  %14.1f  %10.1e%s%n", name(model), batch, row.itemsPerCall,
                        row.byodt, row.ort, row.byodt / row.ort, row.oneThread, row.difference,
                        row.difference <= BenchCommand.TOLERANCE ? "" : "  over " + BenchCommand.TOLERANCE);
                }
            }
        }
        System.out.printf("load average afterwards %s%n", loadAverage());
        return agree;
    }

    /** {@code itemsPerCall}: the images of each of byodt's calls on N threads. */
    private record Row(long itemsPerCall, double byodt, double ort, double oneThread, double difference) {}

    private Row measure(OrtEnvironment env, OrtSession session, Path model, String inputName, long[] shape) throws OrtException {
        int batch = (int) shape[0];
        Tensor input = BenchCommand.randomInput(shape);
        try (CompiledModule oneModule = Compiler.compile(OnnxLoader.load(model, Map.of(inputName, shape)), options);
             HostModel oneThread = Compiler.jit(oneModule);
             OnnxTensor ortInput = OnnxTensor.createTensor(env, FloatBuffer.wrap(input.toFloatArray()), shape)) {
            double difference;
            try (OrtSession.Result result = session.run(Map.of(inputName, ortInput))) {
                difference = relativeDifference(oneThread.run(List.of(input)).getFirst(), (OnnxTensor) result.get(0));
            }
            Runnable ort = BenchCommand.ortInference(session, inputName, ortInput);
            Runnable single = () -> oneThread.run(List.of(input));
            if (threads == 1) {
                double[] rates = InterleavedTiming.imagesPerSecond(seconds, batch, List.of(ort, single));
                return new Row(batch, rates[1], rates[0], rates[1], difference);
            }
            double[] rates;
            if (batch > 1 && batch % threads == 0) {
                try (SpreadInference spread = fasterSpread(model, inputName, shape)) {
                    rates = InterleavedTiming.imagesPerSecond(seconds, batch, List.of(ort, single, spread::run));
                    return new Row(spread.itemsPerCall(), rates[2], rates[0], rates[1], difference);
                }
            } else {
                try (CompiledModule module = Compiler.compile(OnnxLoader.load(model, Map.of(inputName, shape)),
                         options.withThreads(threads));
                     HostModel split = Compiler.jit(module)) {
                    Tensor first = split.run(List.of(input)).getFirst();
                    // Splitting changes no bit: the one-thread model's output is the reference here.
                    if (!Arrays.equals(first.toFloatArray(), oneThread.run(List.of(input)).getFirst().toFloatArray())) {
                        throw new IllegalStateException(model + ": the model on " + threads + " threads computed other bits than on one");
                    }
                    rates = InterleavedTiming.imagesPerSecond(seconds, batch, List.of(ort, single, () -> split.run(List.of(input))));
                }
            }
            return new Row(batch, rates[2], rates[0], rates[1], difference);
        }
    }

    /**
     * byodt's faster way to spread {@code shape}'s batch over the threads: each thread's share a call, or one image a
     * call, timed in turns for a fifth of the measuring time (the other is closed). Which wins depends on the net and
     * the machine: a share of 8 images a call reads each weight once for the 8, but takes 8 images' activations
     * through memory layer by layer where one image's stay in the second-level cache (in one run on 2026-11-29,
     * mobilenet_v2 1.28 times as fast one image a call, resnet50 1.13 times; vit_b_32, whose 350 MB of weights
     * dwarf its activations, either way from run to run). The timing runs apart from the measurement, which so does
     * not take the better of two noisy figures.
     */
    private SpreadInference fasterSpread(Path model, String inputName, long[] shape) {
        long share = shape[0] / threads;
        SpreadInference shares = new SpreadInference(model, options, inputName, shape, threads, share);
        if (share == 1) return shares;
        SpreadInference singles = null;
        double[] rates;
        try {
            singles = new SpreadInference(model, options, inputName, shape, threads, 1);
            rates = InterleavedTiming.imagesPerSecond(seconds / 5, (int) shape[0], List.of(shares::run, singles::run));
        } catch (RuntimeException e) {
            shares.close();
            if (singles != null) singles.close();
            throw e;
        }
        SpreadInference faster = rates[0] >= rates[1] ? shares : singles;
        (faster == shares ? singles : shares).close();
        return faster;
    }

    /** max |ours - theirs| / max |theirs| over the first output. */
    private static double relativeDifference(Tensor ours, OnnxTensor theirs) {
        float[] expected = new float[(int) ours.elementCount()];
        theirs.getFloatBuffer().get(expected);
        float[] actual = ours.toFloatArray();
        double largest = 0, worst = 0;
        for (float v : expected) largest = Math.max(largest, Math.abs(v));
        for (int i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs((double) actual[i] - expected[i]));
        return largest == 0 ? worst : worst / largest;
    }

    private static String name(Path model) {
        String file = model.getFileName().toString();
        return file.endsWith(".onnx") ? file.substring(0, file.length() - 5) : file;
    }

    /** The 1-, 5- and 15-minute load averages of this machine (other work slows both engines), or "unknown". */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
