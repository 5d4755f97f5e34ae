package dev.byodt.cli;

import dev.byodt.cli.train.EpochRecord;
import dev.byodt.cli.train.TrainingHistory;
import dev.byodt.compiler.train.StepStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** byodt train-report on training histories: the table, the CSV, the chart, and a folder that holds none. */
class TrainReportCommandTest {
    @TempDir
    Path temp;

    private Path history(String folder, String dtype, boolean master, String epsilon, double... testTop1) {
        Map<String, String> configuration = new LinkedHashMap<>();
        configuration.put("model", "models/lenet5-fashion-untrained.onnx");
        configuration.put("dtype", dtype);
        configuration.put("optimizer", "adam, lr 0.001, betas 0.9 0.999, epsilon " + epsilon);
        if (master) configuration.put("master", "float32 weights and optimizer state");
        TrainingHistory history = new TrainingHistory(configuration);
        for (int e = 0; e < testTop1.length; e++) {
            history.add(new EpochRecord(e + 1, 1.0 / (e + 1), testTop1[e] - 1, testTop1[e], 1800.4 + e, new StepStatistics.Counts(e, 0, 2 * e, 0)));
        }
        Path out = temp.resolve(folder);
        history.write(out);
        return out;
    }

    @Test
    void comparesTheRunsEpochByEpochWithTheSettingsThatDiffer() throws IOException {
        Path f32 = history("f32", "float32", false, "1.0E-8", 83.63, 85.1, 86.0);
        Path p8 = history("p8", "custom[posit]8", true, "1.0E-8", 70.5);
        Path f16 = history("f16", "float16", false, "6.103515625E-5", 80, 81.25);
        Path report = temp.resolve("report");
        CommandLineRun run = CommandLineRun.of("train-report", f32.toString(), p8.toString(), f16.toString(), "--out", report.toString());
        assertEquals(0, run.exitCode(), run.err());
        String table = """
            | run | optimizer | epoch 1 | epoch 2 | epoch 3 | time |
            |---|---|---|---|---|---|
            | float32 | adam, lr 0.001, betas 0.9 0.999, epsilon 1.0E-8 | 83.63% | 85.10% | 86.00% | 1 h 30 min |
            | custom[posit]8, float32 master weights | adam, lr 0.001, betas 0.9 0.999, epsilon 1.0E-8 | 70.50% | | | 30 min 00 s |
            | float16 | adam, lr 0.001, betas 0.9 0.999, epsilon 6.103515625E-5 | 80.00% | 81.25% | | 1 h 00 min |
            """;
        assertEquals(table, Files.readString(report.resolve("training.md")));
        assertTrue(run.out().startsWith(table), run.out());
        List<String> csv = Files.readAllLines(report.resolve("training.csv"));
        assertEquals(List.of("run,dtype,master_weights,optimizer,epoch,loss,train_top1,test_top1,seconds",
            "float32,float32,,\"adam, lr 0.001, betas 0.9 0.999, epsilon 1.0E-8\",1,1.000000,82.6300,83.6300,1800.400",
            "float32,float32,,\"adam, lr 0.001, betas 0.9 0.999, epsilon 1.0E-8\",2,0.500000,84.1000,85.1000,1801.400",
            "float32,float32,,\"adam, lr 0.001, betas 0.9 0.999, epsilon 1.0E-8\",3,0.333333,85.0000,86.0000,1802.400",
            "\"custom[posit]8, float32 master weights\",custom[posit]8,float32,\"adam, lr 0.001, betas 0.9 0.999, epsilon 1.0E-8\",1,1.000000,69.5000,70.5000,1800.400",
            "float16,float16,,\"adam, lr 0.001, betas 0.9 0.999, epsilon 6.103515625E-5\",1,1.000000,79.0000,80.0000,1800.400",
            "float16,float16,,\"adam, lr 0.001, betas 0.9 0.999, epsilon 6.103515625E-5\",2,0.500000,80.2500,81.2500,1801.400"), csv);
        byte[] png = Files.readAllBytes(report.resolve("test-accuracy.png"));
        assertEquals((byte) 0x89, png[0]);
        assertEquals("PNG", new String(png, 1, 3));
        String svg = Files.readString(report.resolve("test-accuracy.svg"));
        assertTrue(svg.contains("Test top-1 after each epoch") && svg.contains("custom[posit]8, float32 master weights"), svg);
    }

    @Test
    void runsOfTheSameNameAreToldApartByTheirFolders() throws IOException {
        Path a = history("eps-a", "float16", false, "1.0E-4", 70);
        Path b = history("eps-b", "float16", false, "1.0E-4", 71);
        Path report = temp.resolve("report");
        CommandLineRun run = CommandLineRun.of("train-report", a.toString(), b.toString(), "--out", report.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("| float16 (eps-a) | 70.00% | 30 min 00 s |\n| float16 (eps-b) | 71.00% | 30 min 00 s |"), run.out());
    }

    @Test
    void aFolderWithoutHistoryIsOneLine() {
        CommandLineRun run = CommandLineRun.of("train-report", temp.toString(), "--out", temp.resolve("r").toString());
        assertEquals(Main.MODEL_ERROR, run.exitCode(), run.out());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains("no training history " + temp.resolve("history.json")), run.err());
    }

    @Test
    void aHistoryThatIsNotOneIsOneLine() throws IOException {
        Files.writeString(temp.resolve("history.json"), "{\"epochs\": 3}");
        CommandLineRun run = CommandLineRun.of("train-report", temp.toString(), "--out", temp.resolve("r").toString());
        assertEquals(Main.MODEL_ERROR, run.exitCode(), run.out());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().contains(temp.resolve("history.json") + " is not a training history"), run.err());
    }

    /** A history missing a field names the field and the epoch, not the Java exception that found it missing. */
    @Test
    void aHistoryMissingAFieldNamesIt() throws IOException {
        Files.writeString(temp.resolve("history.json"), "{\"configuration\": {\"dtype\": \"float32\"}, \"epochs\": ["
            + "{\"epoch\": 1, \"loss\": 0.5, \"train_top1\": 80, \"test_top1\": 81, \"seconds\": 2}]}");
        CommandLineRun run = CommandLineRun.of("train-report", temp.toString(), "--out", temp.resolve("r").toString());
        assertEquals(Main.MODEL_ERROR, run.exitCode(), run.out());
        assertTrue(run.oneLineError(), run.err());
        assertTrue(run.err().endsWith(temp.resolve("history.json") + " is not a training history: epoch entry 1 has no \"zero_gradients\"\n"), run.err());
    }
}
