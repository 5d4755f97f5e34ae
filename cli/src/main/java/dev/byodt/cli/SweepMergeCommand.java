package dev.byodt.cli;

import dev.byodt.cli.compare.Gate;
import dev.byodt.cli.report.ComparisonReport;
import dev.byodt.cli.report.ReportJson;
import dev.byodt.cli.report.ReportTable;
import dev.byodt.cli.sweep.SweepMerge;
import dev.byodt.cli.sweep.SweepOutputs;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.runtime.ByodtException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "merge", mixinStandardHelpOptions = true,
    description = "Join the results of a sharded sweep (each shard's --out folder or its results.json) into one report: "
        + "the same files a whole sweep writes. The shards must come from one sweep and cover it without overlap.")
final class SweepMergeCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "SHARD", description = "Shard folders or results.json files.")
    List<Path> shards;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder to write the merged report into.")
    Path out;

    @Mixin
    SweepGateOptions gateOptions;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() {
        Gate gate = gateOptions.gate();
        Set<String> gated = gateOptions.gated(DatatypeName::parseBlock);
        List<ComparisonReport> reports = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        for (Path shard : shards) {
            Path file = Files.isDirectory(shard) ? shard.resolve("results.json") : shard;
            if (!Files.isRegularFile(file)) throw new ByodtException("no shard report " + file);
            reports.add(ReportJson.read(file));
            sources.add(file.toString());
        }
        ComparisonReport merged = SweepMerge.merge(reports, sources);
        List<Path> written = SweepOutputs.write(merged, out);
        System.out.print(ReportTable.render(merged));
        System.out.println("\nmerged " + reports.size() + " shard reports; wrote " + written.stream().map(p -> p.getFileName().toString()).toList() + " into " + out);
        return SweepCommand.verdict(merged.entries(), gate, gated);
    }
}
