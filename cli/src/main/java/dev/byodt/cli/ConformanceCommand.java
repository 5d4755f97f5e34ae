package dev.byodt.cli;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.ConvAlgorithm;
import dev.byodt.compiler.conformance.CaseResult;
import dev.byodt.compiler.conformance.ConformanceRunner;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.Tally;
import dev.byodt.compiler.kernel.MultiplyAdd;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "conformance", mixinStandardHelpOptions = true,
    description = {"Run a folder of ONNX backend test cases (each a folder with model.onnx and test_data_set_N/) "
        + "through byodt and print the tally: passed, unsupported (refused at compile time, with the reason) "
        + "and failed (wrong results). Exits 1 when any case fails. --multiply-add fused checks the fused float32 "
        + "multiply-adds (ONNX Runtime's) against the cases' expected outputs, within the same tolerances."})
final class ConformanceCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "Folder of test case folders, e.g. ../shared/onnx-node.")
    Path dir;

    @Option(names = "--rtol", defaultValue = "1e-4", paramLabel = "X", description = "Relative tolerance (default: ${DEFAULT-VALUE}).")
    double rtol;

    @Option(names = "--atol", defaultValue = "1e-5", paramLabel = "X", description = "Absolute tolerance (default: ${DEFAULT-VALUE}).")
    double atol;

    @Option(names = "--list", description = "List every case with its outcome, not only the failures and the unsupported ones.")
    boolean listAll;

    @Mixin
    MultiplyAddOption multiplyAdd;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() {
        CompileOptions options = multiplyAdd.applyTo(CompileOptions.host());
        GraphExecutor executor = GraphExecutor.compiled(options);
        Tally tally = new ConformanceRunner(rtol, atol, executor).runAll(dir, r -> {
            if (listAll || r.outcome() == CaseResult.Outcome.FAILED) {
                System.out.println(r.outcome().name().toLowerCase() + "  " + r.name() + (r.detail().isEmpty() ? "" : "  " + r.detail()));
            }
        });
        if (!listAll) {
            for (CaseResult r : tally.with(CaseResult.Outcome.UNSUPPORTED)) {
                System.out.println("unsupported  " + r.name() + "  " + r.detail());
            }
        }
        boolean defaults = options.multiplyAdd() == MultiplyAdd.SEPARATE && options.convAlgorithm() == ConvAlgorithm.DIRECT;
        System.out.println(tally.summary() + (defaults ? "" : ", " + MultiplyAddOption.describeFloat32(options)));
        return tally.count(CaseResult.Outcome.FAILED) == 0 ? 0 : Main.MODEL_ERROR;
    }
}
