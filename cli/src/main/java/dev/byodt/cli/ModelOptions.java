package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The model and the options that decide how it is compiled, shared by compile and run. */
final class ModelOptions {
    @Parameters(index = "0", paramLabel = "MODEL", description = "The ONNX model file.")
    Path model;

    @Mixin
    ShapeOptions shapes;

    @Option(names = "--target", defaultValue = "host", paramLabel = "TARGET",
        description = "Target to generate code for: host (this machine's CPU). Default: ${DEFAULT-VALUE}.")
    String target;

    @Option(names = "--dtype", defaultValue = "float32", paramLabel = "DTYPE",
        description = "Datatype of every float tensor. Only float32 is available in this version. Default: ${DEFAULT-VALUE}.")
    String dtype;

    @Option(names = "--bind", paramLabel = "NAME=FILE",
        description = "Fix a graph input to the tensor in FILE (an onnx.TensorProto) at compile time: it stops being "
            + "an input, and shapes, axes or indices computed from it fold away (repeatable).")
    List<String> bindings = List.of();

    Graph load() { return OnnxLoader.load(model, shapeOverrides(), boundInputs()); }

    Map<String, long[]> shapeOverrides() { return shapes.parse(); }

    Map<String, Tensor> boundInputs() {
        Map<String, Tensor> bound = new LinkedHashMap<>();
        for (String spec : bindings) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) throw new UsageException("--bind " + spec + ": expected NAME=FILE");
            bound.put(spec.substring(0, eq), TensorProtos.read(Path.of(spec.substring(eq + 1))).tensor());
        }
        return bound;
    }

    CompileOptions compileOptions() {
        if (!target.equals("host")) throw new UsageException("unknown target '" + target + "' (available: host)");
        if (!dtype.equals("float32")) throw new UsageException("unknown datatype '" + dtype + "' (available: float32)");
        return CompileOptions.host();
    }
}
