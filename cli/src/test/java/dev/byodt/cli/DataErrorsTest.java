package dev.byodt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad data and bad sweep specs: one line naming the problem, the right exit code, and no report written. */
class DataErrorsTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");

    @TempDir
    Path tmp;

    private CommandLineRun runWithJson(String... dataArgs) {
        String[] args = new String[dataArgs.length + 6];
        System.arraycopy(new String[] {"run", LENET.toString(), "--dtype", "fxp16_10", "--json", tmp.resolve("r.json").toString()}, 0, args, 0, 6);
        System.arraycopy(dataArgs, 0, args, 6, dataArgs.length);
        return CommandLineRun.of(args);
    }

    private void assertOneLine(CommandLineRun run, int code, String... mentions) {
        assertEquals(code, run.exitCode(), run.err());
        assertTrue(run.oneLineError(), "expected one line, got:\n" + run.err());
        for (String m : mentions) assertTrue(run.err().contains(m), "'" + m + "' not in: " + run.err());
        assertFalse(Files.exists(tmp.resolve("r.json")), "a report was written for a run that failed");
    }

    @Test
    void itemsThatDoNotMatchTheInputShape() throws IOException {
        Path data = NpyFiles.floats(tmp.resolve("x.npy"), new long[] {2, 1, 20, 20}, new float[800]);
        assertOneLine(runWithJson("--data", data.toString()), 1, "input 'image' has shape 1x1x28x28", "1x20x20");
    }

    @Test
    void labelsOutOfRangeOrMissingOrOfTheWrongCount() throws IOException {
        Path data = NpyFiles.floats(tmp.resolve("x.npy"), new long[] {2, 1, 28, 28}, new float[2 * 784]);
        Path tooLarge = NpyFiles.longs(tmp.resolve("big.npy"), 3, 10);
        assertOneLine(runWithJson("--data", data.toString(), "--labels", tooLarge.toString()), 1, "item 1 has label 10", "10 classes");
        Path tooFew = NpyFiles.longs(tmp.resolve("few.npy"), 3);
        assertOneLine(runWithJson("--data", data.toString(), "--labels", tooFew.toString()), 1, "needs 2 labels");
        assertOneLine(runWithJson("--data", data.toString(), "--min-accuracy", "50"), 1, "need labelled data");
    }

    @Test
    void anUnreadableImage() throws IOException {
        Path folder = Files.createDirectories(tmp.resolve("images"));
        Files.writeString(folder.resolve("broken.png"), "not a png");
        assertOneLine(runWithJson("--data", folder.toString()), 1, "cannot read image", "broken.png");
    }

    @Test
    void anEmptyDataSet() throws IOException {
        Path folder = Files.createDirectories(tmp.resolve("empty"));
        assertOneLine(runWithJson("--data", folder.toString()), 1, "holds no PNG or JPEG images");
        Path noItems = NpyFiles.floats(tmp.resolve("none.npy"), new long[] {0, 1, 28, 28}, new float[0]);
        assertOneLine(runWithJson("--data", noItems.toString()), 1, "holds no items");
        assertOneLine(runWithJson("--data", tmp.resolve("absent").toString()), 1, "no such file or folder");
    }

    @Test
    void sweepSpecsThatNameNothingOrAnUnknownDatatype() {
        Path out = tmp.resolve("sweep");
        CommandLineRun nothing = CommandLineRun.of("sweep", LENET.toString(), "--dtypes", " , ", "--out", out.toString());
        assertEquals(2, nothing.exitCode(), nothing.err());
        assertTrue(nothing.err().contains("--dtypes"), nothing.err());
        CommandLineRun unknown = CommandLineRun.of("sweep", LENET.toString(), "--dtypes", "fxp16_8..9,posit16", "--out", out.toString());
        assertEquals(2, unknown.exitCode(), unknown.err());
        assertTrue(unknown.oneLineError() && unknown.err().contains("malformed datatype 'posit16'"), unknown.err());
        CommandLineRun range = CommandLineRun.of("sweep", LENET.toString(), "--dtypes", "fxp16_15..8", "--out", out.toString());
        assertTrue(range.exitCode() == 2 && range.err().contains("runs backwards"), range.err());
        assertFalse(Files.exists(out), "the sweep folder was created for a sweep that never ran");
    }
}
