package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.aot.EmitKind;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.counts.InstructionCounts;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.target.TargetExtension;
import dev.byodt.compiler.train.OnnxWeights;
import dev.byodt.compiler.train.TrainableGraph;
import dev.byodt.compiler.train.TrainingStep;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.StageTimes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "compile", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Compile an ONNX model ahead of time to LLVM IR, assembly, an object file with a C header, "
        + "a shared library, or a static executable that needs no C library.",
        "The object and library export one C function, void ENTRY(const T *input..., T *output..., void *workspace), "
            + "declared in the generated header with the workspace size. With --rounding stochastic its last input is "
            + "rounding.item (int64, one element): the index of the call's first item in the run, which each item's random "
            + "bits follow, so that any batch gives an item the same bits (0 for a single call).",
        "The executable runs as: MODEL [-o OUTDIR] input_0.pb [input_1.pb ...] and writes OUTDIR/output_N.pb.",
        "With --train it writes the training step byodt train runs instead, for any --target: inputs the batch, its "
            + "labels, the weights, the optimizer state and the step's scalars (and with --rounding stochastic, last, "
            + "rounding.call: the step's number, 0 for the first, from which each step's random bits differ); outputs "
            + "the loss, the batch's logits, "
            + "the updated weights and state, and the gradient and update counts (the header names each)."},
    footer = {"", "Examples:",
        "  byodt compile models/lenet5-fashion.onnx --emit obj -o lenet5.o      # also writes lenet5.h",
        "  byodt compile models/lenet5-fashion.onnx --emit exe -o lenet5 --shape image=64x1x28x28",
        "  byodt compile models/lenet5-fashion.onnx --emit llvm --no-opt -o lenet5.ll",
        "  byodt compile models/lenet5-fashion.onnx --dtype custom[posit]16 --emit llvm --no-inline-lib -o lenet5-posit16.ll",
        "  byodt compile models/lenet5-fashion-untrained.onnx --train --optimizer adam --dtype custom[posit]16 --target riscv64 --emit obj -o step.o"})
final class CompileCommand implements Callable<Integer> {
    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--emit", defaultValue = "obj", paramLabel = "KIND",
        description = "What to write: llvm (IR text), asm, obj (+ .h), so (+ .h), exe. Default: ${DEFAULT-VALUE}.")
    String emit;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
        description = "Output file. Default: the model's name with the kind's extension, in the current folder.")
    Path output;

    @Option(names = "--entry", defaultValue = CompileOptions.DEFAULT_ENTRY, paramLabel = "NAME",
        description = "Name of the exported C function. Default: ${DEFAULT-VALUE}.")
    String entry;

    @Option(names = "--no-opt", description = "Skip LLVM's O3 optimization (with --emit llvm: see the IR as byodt generates it).")
    boolean noOpt;

    @Option(names = "--stats",
        description = "With a RISC-V --target: print the static instruction count of each kernel (and how many are P instructions).")
    boolean stats;

    @Option(names = "--train",
        description = "Write the training step of the model (forward pass, loss, backward pass and update) rather than its forward pass; "
            + "the options below say what the step computes, as for byodt train.")
    boolean train;

    @Mixin
    TrainingStepOptions step;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        EmitKind kind;
        try {
            kind = EmitKind.parse(emit);
        } catch (ByodtException e) {
            throw new UsageException("--emit: " + e.getMessage());
        }
        if (!entry.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new UsageException("--entry " + entry + ": not a C identifier");
        Path out = output != null ? output : Path.of(baseName(modelOptions.model) + kind.fileExtension());
        Optional<Integer> apart = modelOptions.plugins.runApartIfUntrusted(spec, modelOptions::datatypeInstances);
        if (apart.isPresent()) return apart.get();
        if (train) step.check();
        CompileOptions options = (train ? step.compileOptions(modelOptions).withCallCounter(true) : modelOptions.compileOptions())
            .withEntrySymbol(entry).withOptimize(!noOpt);
        if (stats && !options.target().isRiscv()) throw new UsageException("--stats counts RISC-V instructions: give a RISC-V --target");
        try (CompiledModule module = train ? Compiler.compile(trainingStep(options), options)
                 : Compiler.compile(StageTimes.time("loading the model", modelOptions::load), options)) {
            ModelOptions.reportFallbacks(module);
            List<Path> written = StageTimes.time("writing " + out, () -> new Emitter().emit(kind, module, out));
            for (Path p : written) System.out.println("wrote " + p);
            if (stats) printStats(module);
        }
        return 0;
    }

    /** The step byodt train runs, tuned for the target's vector lanes. */
    private Program trainingStep(CompileOptions options) {
        Graph model = step.batchedModel(modelOptions);
        TrainableGraph graph = TrainableGraph.of(model, OnnxWeights.floatInitializers(modelOptions.model));
        return TrainingStep.of(graph, step.lossFunction(), step.optimizer(), step.lossScaling(), Optional.of(Compiler.arithmeticOf(options)));
    }

    private static void printStats(CompiledModule module) {
        List<InstructionCounts.FunctionCount> counts = InstructionCounts.of(module);
        Optional<String> extension = module.target().extension().map(TargetExtension::name);
        System.out.printf("static instructions on %s (%s)%n", module.target().name(), module.target().triple());
        System.out.printf("%8s %8s%s  %s%n", "instr", "16-bit", extension.map(name -> String.format(" %8s", name)).orElse(""), "function");
        int total = 0, compressed = 0, extensionTotal = 0;
        for (InstructionCounts.FunctionCount c : counts) {
            System.out.printf("%8d %8d%s  %s%n", c.instructions(), c.compressed(),
                extension.isPresent() ? String.format(" %8d", c.extensionInstructions()) : "", c.function());
            total += c.instructions();
            compressed += c.compressed();
            extensionTotal += c.extensionInstructions();
        }
        System.out.printf("%8d %8d%s  total%n", total, compressed, extension.isPresent() ? String.format(" %8d", extensionTotal) : "");
    }

    private static String baseName(Path model) {
        return model.getFileName().toString().replaceFirst("\\.onnx$", "");
    }
}
