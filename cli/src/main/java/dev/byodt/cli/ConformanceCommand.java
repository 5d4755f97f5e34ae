package dev.byodt.cli;

import dev.byodt.compiler.conformance.CaseResult;
import dev.byodt.compiler.conformance.ConformanceRunner;
import dev.byodt.compiler.conformance.Tally;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "conformance", mixinStandardHelpOptions = true,
    description = {"Run a folder of ONNX backend test cases (each a folder with model.onnx and test_data_set_N/) "
        + "through byodt and print the tally: passed, unsupported (refused at compile time, with the reason) "
        + "and failed (wrong results). Exits 1 when any case fails."})
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
    CommonOptions common;

    @Override
    public Integer call() {
        Tally tally = new ConformanceRunner(rtol, atol).runAll(dir, r -> {
            if (listAll || r.outcome() == CaseResult.Outcome.FAILED) {
                System.out.println(r.outcome().name().toLowerCase() + "  " + r.name() + (r.detail().isEmpty() ? "" : "  " + r.detail()));
            }
        });
        if (!listAll) {
            for (CaseResult r : tally.with(CaseResult.Outcome.UNSUPPORTED)) {
                System.out.println("unsupported  " + r.name() + "  " + r.detail());
            }
        }
        System.out.println(tally.summary());
        return tally.count(CaseResult.Outcome.FAILED) == 0 ? 0 : Main.MODEL_ERROR;
    }
}
