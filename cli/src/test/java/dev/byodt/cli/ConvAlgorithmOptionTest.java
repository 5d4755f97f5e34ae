package dev.byodt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.byodt.cli.OnnxModels.FLOAT;
import static dev.byodt.cli.OnnxModels.ints;
import static dev.byodt.cli.OnnxModels.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --conv-algorithm reaches the code the commands compile: compile's IR changes for a 3x3 convolution, bench measures
 * Winograd's model, says so and finds it within its tolerance of ONNX Runtime; training, whose weights are inputs,
 * refuses it, and an unknown algorithm is a one-line usage error.
 */
class ConvAlgorithmOptionTest {
    @TempDir
    Path dir;

    @Test
    void compileTakesWinogradsTransformsOnlyWhenAsked() throws IOException {
        Path model = convolution();
        Path winograd = dir.resolve("winograd.ll"), direct = dir.resolve("direct.ll");
        assertEquals(0, CommandLineRun.of("compile", model.toString(), "--emit", "llvm", "--conv-algorithm", "winograd", "-o", winograd.toString()).exitCode());
        assertEquals(0, CommandLineRun.of("compile", model.toString(), "--emit", "llvm", "-o", direct.toString()).exitCode());
        assertNotEquals(Files.readString(direct), Files.readString(winograd));
    }

    @Test
    void benchMeasuresWinogradsModelAndChecksItsAgreement() throws IOException {
        CommandLineRun run = CommandLineRun.of("bench", convolution().toString(), "--threads", "1", "--batch", "1", "--seconds", "0.05",
            "--conv-algorithm", "winograd");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().startsWith("float32 (multiply-add separate, conv-algorithm winograd)"), run.out());
    }

    @Test
    void anUnknownAlgorithmIsAOneLineUsageError() throws IOException {
        CommandLineRun run = CommandLineRun.of("compile", convolution().toString(), "--emit", "llvm", "--conv-algorithm", "fft",
            "-o", dir.resolve("x.ll").toString());
        assertEquals(Main.USAGE_ERROR, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("unknown --conv-algorithm 'fft' (direct or winograd)"), run.err());
    }

    @Test
    void trainingRefusesItsWeightsBeingInputs() {
        Path untrained = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("lenet5-fashion-untrained.onnx");
        CommandLineRun run = CommandLineRun.of("train", untrained.toString(), "--conv-algorithm", "winograd", "--out", dir.resolve("t").toString());
        assertEquals(Main.USAGE_ERROR, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("--conv-algorithm winograd computes convolutions whose weights are constants"), run.err());
    }

    /** A 3x3 convolution of 8 channels to 16 maps at 12x12, padded, weights that differ from map to map. */
    private Path convolution() throws IOException {
        float[] weights = new float[16 * 8 * 9];
        for (int i = 0; i < weights.length; i++) weights[i] = ((i * 37) % 19 - 9) / 16f;
        return OnnxModels.graph()
            .input("image", FLOAT, 1, 8, 12, 12)
            .output("y", FLOAT, 1, 16, 12, 12)
            .floatValues("w", new long[] {16, 8, 3, 3}, weights)
            .node(node("Conv", "conv", new String[] {"image", "w"}, "y").addAttribute(ints("pads", 1, 1, 1, 1)))
            .write(dir.resolve("conv.onnx"));
    }
}
