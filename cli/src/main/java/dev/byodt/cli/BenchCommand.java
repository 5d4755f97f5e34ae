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
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;

@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Measure float32 inference throughput of a model compiled by byodt side by side with ONNX Runtime "
        + "(default session options) in this process, for each batch size, and print the ratio. The model must "
        + "have one float input whose first dimension is the batch.",
        "byodt runs one thread, ONNX Runtime's default session uses one per core. Where the batch divides among "
        + "the cores, further columns show byodt spread the way `byodt run` spreads images (the model compiled "
        + "for the batch's share of one core, one call per core, concurrently) and its ratio: both engines on "
        + "every core.",
        "With --threads N, one table for all the models given: both engines on N threads (ONNX Runtime's intra-op "
        + "threads; byodt's batch of 1 split within each convolution and matrix product, a batch that divides by N "
        + "spread over the threads, a share a call or one image a call, whichever a short timing of both found "
        + "faster, shown as 'per call'), byodt on one thread beside them, and how far byodt's outputs are from ONNX "
        + "Runtime's on the same images (largest difference over largest |output|; more than 1e-4 fails the run)."})
final class BenchCommand implements Callable<Integer> {
    /** The largest difference from ONNX Runtime's outputs, over the largest of them, that --threads accepts. */
    static final double TOLERANCE = 1e-4;

    @Parameters(arity = "1..*", paramLabel = "MODEL", description = "The ONNX model files (several only with --threads).")
    List<Path> models;

    @Option(names = "--threads", paramLabel = "N",
        description = "Compare at equal thread counts, N threads each, in one table for all models (see above).")
    Integer threads;

    @Option(names = "--batch", split = ",", defaultValue = "1,64", paramLabel = "N[,N...]",
        description = "Batch sizes to measure (default: ${DEFAULT-VALUE}).")
    List<Integer> batches;

    @Option(names = "--seconds", defaultValue = "2", paramLabel = "S", description = "Measuring time per engine and batch size (default: ${DEFAULT-VALUE}), taken in ten turns, the engines alternating, so that a change in the machine's load falls on each alike.")
    double seconds;

    @Mixin
    MultiplyAddOption multiplyAdd;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() throws OrtException {
        CompileOptions options = multiplyAdd.applyTo(CompileOptions.host());
        if (threads != null) return new EqualThreadsBench(models, batches, seconds, threads, options).run() ? 0 : 1;
        if (models.size() != 1) throw new UsageException("several models need --threads");
        Path model = models.getFirst();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        System.out.printf("%s, float32 (%s), host, %d cores%n", model, MultiplyAddOption.describeFloat32(options),
            Runtime.getRuntime().availableProcessors());
        int cores = Runtime.getRuntime().availableProcessors();
        String spreadColumn = "byodt " + cores + " threads";
        System.out.printf("%6s  %14s  %18s  %8s  %20s  %8s  %13s%n", "batch", "byodt 1 thread", "onnxruntime", "ratio",
            spreadColumn, "ratio", "byodt compile");
        System.out.printf("%6s  %14s  %18s  %8s  %20s  %8s  %13s%n", "", "img/s", "img/s", "", "img/s", "", "");
        try (OrtSession session = env.createSession(model.toString(), new OrtSession.SessionOptions())) {
            String inputName = session.getInputNames().iterator().next();
            NodeInfo info = session.getInputInfo().get(inputName);
            long[] modelShape = ((TensorInfo) info.getInfo()).getShape();
            for (int batch : batches) {
                if (batch <= 0) throw new UsageException("--batch sizes must be positive");
                long[] shape = modelShape.clone();
                shape[0] = batch;
                for (int d = 1; d < shape.length; d++) {
                    if (shape[d] < 0) throw new ByodtException(model + ": input '" + inputName + "' has a symbolic dimension besides the batch");
                }
                Tensor input = randomInput(shape);
                long compileStart = System.nanoTime();
                try (CompiledModule module = Compiler.compile(
                         OnnxLoader.load(model, Map.of(inputName, shape)), options);
                     HostModel byodt = Compiler.jit(module);
                     OnnxTensor ortInput = OnnxTensor.createTensor(env, FloatBuffer.wrap(input.toFloatArray()), shape)) {
                    double compileSeconds = (System.nanoTime() - compileStart) / 1e9;
                    Runnable ours = () -> byodt.run(List.of(input));
                    Runnable theirs = ortInference(session, inputName, ortInput);
                    boolean spreads = cores > 1 && batch % cores == 0;
                    double[] rates;
                    if (spreads) {
                        try (SpreadInference spreadInference = new SpreadInference(model, options, inputName, shape, cores, batch / cores)) {
                            rates = InterleavedTiming.imagesPerSecond(seconds, batch, List.of(ours, theirs, spreadInference::run));
                        }
                    } else {
                        rates = InterleavedTiming.imagesPerSecond(seconds, batch, List.of(ours, theirs));
                    }
                    double spread = spreads ? rates[2] : Double.NaN;
                    System.out.printf("%6d  %14.0f  %18.0f  %7.2fx  %20s  %8s  %11.2f s%n", batch, rates[0], rates[1], rates[0] / rates[1],
                        spreads ? String.format("%.0f", spread) : "-", spreads ? String.format("%.2fx", spread / rates[1]) : "-",
                        compileSeconds);
                }
            }
        }
        return 0;
    }

    /** One call of ONNX Runtime's session on {@code input}, its first output read. */
    static Runnable ortInference(OrtSession session, String inputName, OnnxTensor input) {
        return () -> {
            try (OrtSession.Result r = session.run(Map.of(inputName, input))) {
                r.get(0);
            } catch (OrtException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    static Tensor randomInput(long[] shape) {
        Tensor t = Tensor.zeros(ElementType.FLOAT32, shape);
        Random random = new Random(1);
        for (long i = 0; i < t.elementCount(); i++) t.setFloat(i, random.nextFloat());
        return t;
    }
}
