package dev.byodt.cli;

import dev.byodt.compiler.onnx.ModelSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = {"Summarise an ONNX model: inputs, outputs, operators with counts, parameters, and which "
        + "operators byodt cannot compile and why."})
final class InspectCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "MODEL", description = "The ONNX model file.")
    Path model;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() {
        ModelSummary summary = ModelSummary.of(model);
        System.out.print(summary.render());
        return 0;
    }
}
