package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.target.Target;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
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

    Graph load() { return load(shapes.parse()); }

    Graph load(Map<String, long[]> shapeOverrides) { return OnnxLoader.load(model, shapeOverrides); }

    CompileOptions compileOptions() {
        if (!target.equals("host")) throw new UsageException("unknown target '" + target + "' (available: host)");
        if (!dtype.equals("float32")) throw new UsageException("unknown datatype '" + dtype + "' (available: float32)");
        return CompileOptions.host().withTarget(Target.host());
    }
}
