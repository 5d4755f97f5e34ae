package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import dev.byodt.runtime.MinifloatFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exact accumulator widths the registry gives code generation are the widths the C libraries use:
 * a mismatch would let a library write past the accumulator byodt allocated. Each library is run through
 * the bundled clang's preprocessor, which states the width as a macro.
 */
@Execution(ExecutionMode.CONCURRENT)
class AccumulatorWidthsTest {
    private static final Pattern DEFINE = Pattern.compile("#define (\\w+) (\\d+)");

    @Test
    void positQuiresMatchPositC() throws IOException {
        for (int es = 0; es <= 3; es++) {
            for (int n = 2; n <= 32; n++) {
                int width = macro("dev/byodt/datatypes/posit/posit.c", "POSIT_ACC_BITS",
                    List.of("POSIT_N=" + n, "POSIT_ES=" + es, "BYODT_PREFIX=p"));
                assertEquals(width, PositDatatypes.quireBits(n, es), "posit" + n + " es " + es);
            }
        }
    }

    @Test
    void minifloatAccumulatorsMatchMinifloatC() throws IOException {
        List<MinifloatFormat> formats = new ArrayList<>();
        for (int e = 2; e <= 8; e++) {
            for (int m = 1; m <= 23 && 1 + e + m <= 32; m += 2) formats.add(MinifloatFormat.ieee(e, m));
        }
        formats.add(new MinifloatFormat(4, 3, MinifloatFormat.Specials.FN, false));    // fp8e4m3
        formats.add(new MinifloatFormat(4, 3, MinifloatFormat.Specials.FN, true));     // ue4m3
        formats.add(new MinifloatFormat(8, 0, MinifloatFormat.Specials.FN, true));     // e8m0
        formats.add(new MinifloatFormat(4, 3, MinifloatFormat.Specials.FNUZ, false));  // fp8e4m3fnuz
        formats.add(new MinifloatFormat(5, 2, MinifloatFormat.Specials.FNUZ, false));  // fp8e5m2fnuz
        formats.add(new MinifloatFormat(3, 2, MinifloatFormat.Specials.NONE, false));  // fp6e3m2
        formats.add(new MinifloatFormat(2, 3, MinifloatFormat.Specials.NONE, false));  // fp6e2m3
        formats.add(new MinifloatFormat(2, 1, MinifloatFormat.Specials.NONE, false));  // fp4e2m1
        for (MinifloatFormat format : formats) {
            List<String> defines = new ArrayList<>(MinifloatLibrary.defines(format, RoundingMode.NEAREST_EVEN.defines()));
            defines.add("BYODT_PREFIX=p");
            // MF_ACC_BITS is 64 * ACC_WORDS, and the preprocessor lists the words as a number.
            int width = 64 * macro("dev/byodt/datatypes/minifloat/minifloat.c", "ACC_WORDS", defines);
            assertEquals(width, MinifloatLibrary.exactAccumulatorBits(format), format.toString());
        }
    }

    /** The value of a macro after preprocessing the library with these definitions (clang -E -dM). */
    private static int macro(String resource, String name, List<String> defines) throws IOException {
        Path source = Files.createTempFile("library", ".c");
        try (InputStream in = AccumulatorWidthsTest.class.getClassLoader().getResourceAsStream(resource)) {
            Files.write(source, in.readAllBytes());
            BundledTools tools = BundledTools.get();
            List<String> command = new ArrayList<>(List.of(tools.clang().toString(), "-E", "-dM", "-ffreestanding"));
            defines.forEach(d -> command.add("-D" + d));
            command.add(source.toString());
            ProcessResult result = tools.run(command);
            assertTrue(result.succeeded(), result.stderr());
            Matcher m = DEFINE.matcher(result.stdout());
            while (m.find()) {
                if (m.group(1).equals(name)) return Integer.parseInt(m.group(2));
            }
            throw new AssertionError(name + " not defined by " + resource + " with " + defines);
        } finally {
            Files.delete(source);
        }
    }
}
