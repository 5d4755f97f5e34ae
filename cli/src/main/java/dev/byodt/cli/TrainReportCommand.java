package dev.byodt.cli;

import dev.byodt.cli.train.TrainingComparison;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "train-report", mixinStandardHelpOptions = true,
    description = "Compare training runs (folders byodt train wrote, finished or still going): the test top-1 after each "
        + "epoch and the epochs' time, one row per run, into --out as training.md (a Markdown table, also printed), "
        + "training.csv (a row per run and epoch) and test-accuracy.png/.svg (a line per run).",
    footer = {"", "Example:",
        "  byodt train-report runs/float32 runs/customposit16 --out runs/"})
final class TrainReportCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "RUN", description = "Folders byodt train --out wrote (each with its history.json), in the order to show them.")
    List<Path> runs;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for the table and the chart (created if missing).")
    Path out;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() throws IOException {
        TrainingComparison comparison = new TrainingComparison(runs);
        Files.createDirectories(out);
        List<String> written = comparison.write(out);
        System.out.print(comparison.markdown());
        System.out.println("\nwrote " + written + " into " + out);
        return 0;
    }
}
