package dev.byodt.cli;

import dev.byodt.cli.compare.Baseline;
import dev.byodt.cli.compare.Executor;
import dev.byodt.cli.compare.Gate;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.LoadedModel;
import dev.byodt.compiler.conformance.DataSetRun;
import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.conformance.TestCase;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import dev.byodt.runtime.TensorSpec;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.Optional;

@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Compile a model and run it, on this machine or on a RISC-V --target under qemu-user: top-1 accuracy "
        + "on data (the default), an ONNX test-data folder, or one inference on given inputs.",
        "",
        "Data (--data): with --dtype X (or --reference, --per-layer, --json, --csv, a gate), float32 and X run on the "
            + "same items and are compared per output: top-1 of both, top-1 agreement, max/mean absolute error, mean "
            + "relative error, SQNR, NaN/NaR and saturated counts. Without them, the top-1 accuracy of float32 alone. "
            + "An integer input (token ids) takes an int64 .npy; an output of rank 3 or more (a language model's "
            + "[batch, sequence, vocabulary]) is scored at every position over its --class-axis.",
        "Test data (--test-data DIR): input_N.pb and output_N.pb; prints the error of each output and exits 1 "
            + "beyond --rtol/--atol. Named integer inputs (shapes, axes, token ids) are bound at compile time, and "
            + "said to be.",
        "Single run (--input NAME=FILE.pb ... [--output DIR]): prints the outputs, or writes them as output_N.pb.",
        "RISC-V (--target riscv64, riscv32, ...): data and --input run the target's code, linked into an executable "
            + "that qemu-user runs on a batch of items per process (up to 50 unless --batch), a process per core; "
            + "float32 and X both run there, so the same comparison is printed as on this machine (--reference "
            + "onnxruntime runs on this machine). On a P target (riscv64p, riscv32p) the executable emulates its P "
            + "instructions, which qemu lacks, so that the P code itself is measured.",
        ""},
    footer = {"", "Examples:",
        "  byodt run models/lenet5-fashion.onnx",
        "  byodt run models/lenet5-fashion.onnx --data fashion-mnist",
        "  byodt run models/lenet5-fashion.onnx --dtype fxp16_13 --data fashion-mnist --batch 16",
        "  byodt run models/lenet5-fashion.onnx --dtype custom[posit]8 --per-layer --limit 200 --chart layers.png",
        "  byodt run models/lenet5-fashion.onnx --dtype bfloat16 --json r.json --csv r.csv --max-drop 1",
        "  byodt run model.onnx --test-data test_data_set_0 --rtol 1e-4 --atol 1e-5",
        "  byodt run decoder.onnx --data tokens.npy --dtype bfloat16 --class-axis -1",
        "  byodt run models/lenet5-fashion.onnx --target riscv64 --dtype fxp16_13 --limit 100 --json r.json",
        "  byodt run models/lenet5-fashion.onnx --target riscv64p --dtype fxp16_13 --limit 1 --count-instructions",
        "  byodt run model.onnx --input image=in.pb --output out/"})
final class RunCommand implements Callable<Integer> {
    @Mixin
    ModelOptions modelOptions;

    @ArgGroup(exclusive = true)
    Mode mode = new Mode();

    static final class Mode {
        @Option(names = "--data", paramLabel = "SOURCE", description = DataOptions.DATA_DESCRIPTION)
        String data;

        @Option(names = "--test-data", paramLabel = "DIR",
            description = "An ONNX test-data folder (input_N.pb, output_N.pb), or a test case folder holding "
                + "model.onnx and test_data_set_N/ folders (all of them are run).")
        Path testData;

        @Option(names = "--input", paramLabel = "NAME=FILE",
            description = "A graph input as a TensorProto file (repeatable; inputs not named are matched by position "
                + "when given as FILE alone).")
        List<String> inputs;
    }

    @Option(names = "--output", paramLabel = "DIR", description = "With --input: folder to write output_N.pb into.")
    Path outputDir;

    @Mixin
    DataOptions dataOptions;

    @Mixin
    ClassAxisOption classAxis;

    @Option(names = "--reference", defaultValue = Baseline.BYODT, paramLabel = "byodt|onnxruntime",
        description = "Where the float32 baseline comes from: byodt's own float32 code or ONNX Runtime. Default: ${DEFAULT-VALUE}.")
    String reference;

    @Option(names = "--per-layer",
        description = "Also compare every intermediate tensor, in graph order (both models compiled with their intermediates as "
            + "extra float32 outputs): SQNR and errors per tensor, as a table, and as a chart with --chart.")
    boolean perLayer;

    @Option(names = "--chart", paramLabel = "FILE.png|FILE.svg", description = "With --per-layer: write the per-layer SQNR chart here.")
    Path chart;

    @Option(names = "--json", paramLabel = "FILE", description = "Write every figure and the configuration (model hash, datatype options, target, version) as JSON.")
    Path json;

    @Option(names = "--csv", paramLabel = "FILE", description = "The same as CSV, one row per output.")
    Path csv;

    @Option(names = "--min-accuracy", paramLabel = "P", description = "Exit 1 when the datatype's top-1 is below P percent.")
    Double minAccuracy;

    @Option(names = "--max-drop", paramLabel = "P", description = "Exit 1 when the datatype loses more than P percentage points of top-1 against float32.")
    Double maxDrop;

    @Option(names = "--rtol", defaultValue = "1e-4", paramLabel = "X", description = "With --test-data: relative tolerance (default: ${DEFAULT-VALUE}).")
    double rtol;

    @Option(names = "--atol", defaultValue = "1e-5", paramLabel = "X", description = "With --test-data: absolute tolerance (default: ${DEFAULT-VALUE}).")
    double atol;

    @Option(names = "--count-instructions",
        description = "With a RISC-V --target: also print the instructions executed per kernel for the first item (a build "
            + "for one item per call), from qemu's log.")
    boolean countInstructions;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (outputDir != null && mode.inputs == null) throw new UsageException("--output goes with --input");
        dataOptions.check();
        Duration timeLimit = modelOptions.plugins.timeLimit();
        Target target = modelOptions.target();
        if (countInstructions && (!target.isRiscv() || mode.inputs != null || mode.testData != null)) {
            throw new UsageException("--count-instructions goes with a RISC-V --target and data");
        }
        if (target.isRiscv() && mode.testData != null) {
            throw new UsageException("--test-data runs on the host only; with --target " + target.name() + " use --input or --data");
        }
        Optional<Integer> apart = modelOptions.plugins.runApartIfUntrusted(spec, modelOptions::datatypeInstances);
        if (apart.isPresent()) return apart.get();
        if (mode.testData != null) return runTestData();
        Executor executor = Executor.forTarget(target, timeLimit);
        if (mode.inputs != null) return runSingle(executor);
        if (!reference.equals(Baseline.BYODT) && !reference.equals(Baseline.ONNX_RUNTIME)) {
            throw new UsageException("--reference " + reference + ": expected byodt or onnxruntime");
        }
        if (chart != null && !perLayer) throw new UsageException("--chart goes with --per-layer");
        if (chart != null && !chart.toString().toLowerCase(java.util.Locale.ROOT).matches(".*\\.(png|svg)")) {
            throw new UsageException("--chart " + chart + ": the file name must end in .png or .svg");
        }
        if (perLayer && reference.equals(Baseline.ONNX_RUNTIME)) {
            throw new UsageException("--per-layer compares against byodt's float32 (ONNX Runtime does not expose intermediates)");
        }
        Gate gate;
        try {
            gate = new Gate(minAccuracy, maxDrop);
        } catch (ByodtException e) {
            throw new UsageException(e.getMessage());
        }
        CompileOptions options = modelOptions.compileOptions();
        boolean compare = !options.datatypes().isFloat32Only() || options.blocks().any() || !reference.equals(Baseline.BYODT) || perLayer
            || json != null || csv != null || gate.isSet();
        int status = compare
            ? new ComparisonRun(modelOptions, options, dataOptions, mode.data, classAxis.classAxis, reference, perLayer, json, csv, chart, gate,
                executor).call()
            : new ClassificationRun(modelOptions, options, dataOptions, mode.data, classAxis.classAxis, executor).call();
        if (countInstructions) {
            InstructionCount.print(dataOptions.loadForOneItem(mode.data, modelOptions.model, modelOptions.shapeOverrides(),
                modelOptions.boundInputs()), options, (Executor.Emulated) executor);
        }
        return status;
    }

    private int runTestData() {
        if (!Files.isDirectory(mode.testData)) throw new ByodtException("--test-data " + mode.testData + ": no such folder");
        List<TestCase.DataSet> sets = TestCase.readDataSets(mode.testData);
        boolean allWithin = true;
        for (TestCase.DataSet set : sets) {
            DataSetRun.boundFromData(modelOptions.model, modelOptions.boundInputs(), set).forEach((name, value) ->
                System.out.printf("%s  input '%s' %s: bound at compile time (byodt compiles static shapes, so the data's "
                    + "integer inputs fold like weights)%n", set.dir().getFileName(), name, value));
            List<DataSetRun.OutputCheck> checks = DataSetRun.run(modelOptions.model, modelOptions.shapeOverrides(),
                modelOptions.boundInputs(), modelOptions.compileOptions(), set, rtol, atol);
            for (DataSetRun.OutputCheck check : checks) {
                allWithin &= check.diff().withinTolerance();
                System.out.printf("%s  output %d '%s': %s%s%n", set.dir().getFileName(), check.index(), check.name(),
                    check.diff().describe(), check.diff().withinTolerance() ? "" : "  (beyond rtol " + rtol + ", atol " + atol + ")");
            }
        }
        return allWithin ? 0 : Main.MODEL_ERROR;
    }

    private int runSingle(Executor executor) {
        Map<String, NamedTensor> named = new LinkedHashMap<>();
        List<NamedTensor> positional = new ArrayList<>();
        for (String spec : mode.inputs) {
            int eq = spec.indexOf('=');
            if (eq > 0) named.put(spec.substring(0, eq), TensorProtos.read(Path.of(spec.substring(eq + 1))));
            else positional.add(TensorProtos.read(Path.of(spec)));
        }
        Graph graph = modelOptions.load();
        try (CompiledModule module = Compiler.compile(graph, modelOptions.compileOptions());
             LoadedModel model = executor.load(module)) {
            ModelOptions.reportFallbacks(module);
            printOutputs(graph.declaredOutputs(model.run(bindInputs(model.inputs(), named, positional))), model.outputs());
        }
        return 0;
    }

    private static List<Tensor> bindInputs(List<TensorSpec> specs, Map<String, NamedTensor> named, List<NamedTensor> positional) {
        List<Tensor> inputs = new ArrayList<>();
        int next = 0;
        for (TensorSpec spec : specs) {
            NamedTensor t = named.remove(spec.name());
            if (t == null && spec.name().equals(CallItems.INPUT)) t = new NamedTensor(spec.name(), Tensor.ofLongs(spec.shape(), new long[]{0}));
            if (t == null && next < positional.size()) t = positional.get(next++);
            if (t == null) throw new UsageException("no --input given for the model's input '" + spec.name() + "'");
            inputs.add(t.tensor().convertedTo(t.tensor().type().computed()));
        }
        if (!named.isEmpty()) {
            throw new UsageException("the model has no input named '" + named.keySet().iterator().next()
                + "' (inputs: " + specs.stream().map(TensorSpec::name).toList() + ")");
        }
        return inputs;
    }

    private void printOutputs(List<Tensor> outputs, List<TensorSpec> specs) {
        if (outputDir != null) createFolder(outputDir);
        for (int i = 0; i < outputs.size(); i++) {
            String name = specs.get(i).name();
            if (outputDir != null) {
                Path file = outputDir.resolve("output_" + i + ".pb");
                TensorProtos.write(file, new NamedTensor(name, outputs.get(i)));
                System.out.println(name + " -> " + file);
            } else {
                System.out.println(name + " " + outputs.get(i) + ": " + Preview.of(outputs.get(i)));
            }
        }
    }

    private static void createFolder(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new ByodtException("cannot create the output folder " + dir + " (" + e.getMessage() + ")");
        }
    }
}
