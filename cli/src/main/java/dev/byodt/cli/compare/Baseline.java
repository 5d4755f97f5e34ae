package dev.byodt.cli.compare;

import dev.byodt.cli.report.ClassPositions;
import dev.byodt.cli.progress.Progress;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TensorSpec;
import dev.byodt.runtime.data.DataSource;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The float32 outputs every datatype is compared against, computed once per run or sweep on the data set:
 * by byodt's own float32 code on the executor the datatype runs on, or by ONNX Runtime on this machine
 * (--reference onnxruntime).
 *
 * @param description "byodt float32" or {@link OnnxRuntimeInference#DESCRIPTION}, as reports record it
 */
public record Baseline(Batches batches, ItemOutputs outputs, String description) {
    public static final String BYODT = "byodt", ONNX_RUNTIME = "onnxruntime";

    /**
     * @param reference {@value #BYODT} or {@value #ONNX_RUNTIME}
     * @param classAxis --class-axis, or null for the last ({@link ClassPositions})
     * @param executor  where byodt's float32 code runs
     * @param warnings  where messages about float32 fallbacks go
     */
    public static Baseline compute(Graph graph, Path model, CompileOptions float32, String reference, DataSource data,
                                   Integer classAxis, Executor executor, Consumer<String> warnings) {
        Batches batches = Batches.of(data, singleInput(graph), classAxis);
        try (Inference inference = open(graph, model, float32, reference, executor, warnings);
             Progress progress = Progress.start("float32 (" + reference + ")", data.size(), "img")) {
            batches.checkOutputs(inference.outputs());
            return new Baseline(batches, ItemOutputs.compute(inference, batches, progress),
                reference.equals(ONNX_RUNTIME) ? OnnxRuntimeInference.DESCRIPTION : "byodt float32");
        }
    }

    private static Inference open(Graph graph, Path model, CompileOptions float32, String reference, Executor executor,
                                  Consumer<String> warnings) {
        return switch (reference) {
            case BYODT -> {
                CompiledInference compiled = CompiledInference.compile(graph, float32, executor);
                compiled.reportFallbacks(warnings);
                yield compiled;
            }
            case ONNX_RUNTIME -> OnnxRuntimeInference.open(model, singleInput(graph), graph.outputs().stream().map(Baseline::spec).toList());
            default -> throw new IllegalArgumentException("reference " + reference);
        };
    }

    /** The graph's one run-time input, as the compiled model will take it. */
    public static TensorSpec singleInput(Graph graph) {
        List<Value> inputs = graph.inputs();
        if (inputs.size() != 1) {
            throw new ByodtException("comparing on data needs a model with one input; this one has " + inputs.size()
                + " " + inputs.stream().map(Value::name).toList() + " (fix the others with --bind)");
        }
        return spec(inputs.get(0));
    }

    private static TensorSpec spec(Value v) { return new TensorSpec(v.name(), v.type().elementType(), v.type().shape()); }
}
