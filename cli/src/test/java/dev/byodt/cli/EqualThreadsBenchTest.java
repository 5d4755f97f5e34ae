package dev.byodt.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * `byodt bench --threads 2` on LeNet-5, briefly: one row per batch size (1 runs the model compiled for two threads,
 * 2 the batch spread over two threads), each with both engines' throughput and the outputs' agreement.
 */
class EqualThreadsBenchTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("lenet5-fashion.onnx");
    private static final Pattern ROW = Pattern.compile(
        "lenet5-fashion +(\\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+)x +([0-9.]+) +([0-9.]+e[-+][0-9]+)");

    @Test
    void printsOneRowPerBatchWithBothEnginesAndTheirAgreement() {
        CommandLineRun run = CommandLineRun.of("bench", LENET.toString(), "--threads", "2", "--batch", "1,2", "--seconds", "0.05");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("on 2 threads each"), run.out());
        List<Integer> batches = ROW.matcher(run.out()).results().map(m -> Integer.parseInt(m.group(1))).toList();
        assertEquals(List.of(1, 2), batches, run.out());
        for (Matcher m = ROW.matcher(run.out()); m.find(); ) {
            assertTrue(Double.parseDouble(m.group(2)) > 0 && Double.parseDouble(m.group(3)) > 0, m.group());
            assertTrue(Double.parseDouble(m.group(6)) <= BenchCommand.TOLERANCE, "outputs agree: " + m.group());
        }
    }

    @Test
    void refusesSeveralModelsWithoutThreads() {
        CommandLineRun run = CommandLineRun.of("bench", LENET.toString(), LENET.toString());
        assertTrue(run.exitCode() != 0);
        assertTrue(run.err().contains("several models need --threads"), run.err());
    }
}
