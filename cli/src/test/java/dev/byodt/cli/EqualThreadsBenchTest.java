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
 * 2 and 8 the batch spread over two threads, 8 a share of 4 images a call or one image a call, whichever was
 * faster), each with the images a call, both engines' throughput and the outputs' agreement.
 */
class EqualThreadsBenchTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("lenet5-fashion.onnx");
    private static final Pattern ROW = Pattern.compile(
        "lenet5-fashion +(\\d+) +(\\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+)x +([0-9.]+) +([0-9.]+e[-+][0-9]+)");

    @Test
    void printsOneRowPerBatchWithBothEnginesAndTheirAgreement() {
        CommandLineRun run = CommandLineRun.of("bench", LENET.toString(), "--threads", "2", "--batch", "1,2,8", "--seconds", "0.05");
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("on 2 threads each"), run.out());
        List<Integer> batches = ROW.matcher(run.out()).results().map(m -> Integer.parseInt(m.group(1))).toList();
        assertEquals(List.of(1, 2, 8), batches, run.out());
        for (Matcher m = ROW.matcher(run.out()); m.find(); ) {
            int batch = Integer.parseInt(m.group(1)), perCall = Integer.parseInt(m.group(2));
            assertTrue(batch == 8 ? perCall == 4 || perCall == 1 : perCall == 1, "a share or one image a call: " + m.group());
            assertTrue(Double.parseDouble(m.group(3)) > 0 && Double.parseDouble(m.group(4)) > 0, m.group());
            assertTrue(Double.parseDouble(m.group(7)) <= BenchCommand.TOLERANCE, "outputs agree: " + m.group());
        }
    }

    @Test
    void refusesSeveralModelsWithoutThreads() {
        CommandLineRun run = CommandLineRun.of("bench", LENET.toString(), LENET.toString());
        assertTrue(run.exitCode() != 0);
        assertTrue(run.err().contains("several models need --threads"), run.err());
    }
}
