package dev.byodt.compiler.toolchain;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

class BundledToolsTest {
    private static final String HOST = "x86_64-unknown-linux-gnu";
    private static final String ADD_ONE = "int add_one(int x) { return x + 1; }\n";

    @TempDir
    Path cache;

    @Test
    void clangAndLldRunWithTheVersionedLibraryLinks() {
        BundledTools tools = BundledTools.locate(cache);
        assertTrue(tools.clangVersion().startsWith("clang version 20."), tools.clangVersion());
        ProcessResult lld = tools.run(List.of(tools.lld().toString(), "--version"));
        assertTrue(lld.succeeded(), lld.stderr());
        assertTrue(lld.stdout().startsWith("LLD 20."), lld.stdout());
    }

    @Test
    void compilesToBitcodeOnceAndThenHitsTheCache() throws IOException {
        BundledTools tools = BundledTools.locate(cache);
        long start = System.nanoTime();
        Path first = tools.compileToBitcode(ADD_ONE, "add_one.c", HOST, List.of());
        long compiled = System.nanoTime();
        Path second = tools.compileToBitcode(ADD_ONE, "add_one.c", HOST, List.of());
        long hit = System.nanoTime();
        System.out.printf("bitcode: compile %.1f ms, cached hit %.2f ms%n", (compiled - start) / 1e6, (hit - compiled) / 1e6);

        byte[] bitcode = Files.readAllBytes(first);
        // LLVM bitcode files begin with 'B' 'C' 0xC0DE.
        assertArrayEquals(new byte[] {'B', 'C', (byte) 0xC0, (byte) 0xDE}, java.util.Arrays.copyOf(bitcode, 4));
        assertEquals(first, second);
        assertTrue(first.startsWith(cache), first.toString());
    }

    @Test
    void theCacheKeyCoversSourceTripleAndFlags() {
        BundledTools tools = BundledTools.locate(cache);
        Path host = tools.compileToBitcode(ADD_ONE, "add_one.c", HOST, List.of());
        Path riscv = tools.compileToBitcode(ADD_ONE, "add_one.c", "riscv64-unknown-elf", List.of());
        Path flagged = tools.compileToBitcode(ADD_ONE, "add_one.c", HOST, List.of("-O3"));
        Path changed = tools.compileToBitcode("int add_one(int x) { return x + 2; }\n", "add_one.c", HOST, List.of());
        assertEquals(4, Stream.of(host, riscv, flagged, changed).distinct().count());
    }

    @Test
    void aCompileErrorNamesFileAndLineAndLeavesNothingInTheCache() throws IOException {
        BundledTools tools = BundledTools.locate(cache);
        String broken = "int f(void) {\n  return 0;\n  undeclared_name = 1;\n}\n";
        ByodtException error = assertThrows(ByodtException.class,
            () -> tools.compileToBitcode(broken, "lib/broken.c", HOST, List.of()));
        assertTrue(error.getMessage().contains("lib/broken.c:3:"), error.getMessage());
        assertTrue(error.getMessage().contains("error:"), error.getMessage());
        assertFalse(error.getMessage().contains("\n"), error.getMessage());
        try (Stream<Path> files = Files.walk(cache)) {
            List<Path> left = files.filter(path -> !path.startsWith(cache.resolve("toolchain")))
                .filter(Files::isRegularFile).toList();
            assertEquals(List.of(), left);
        }
    }

    @Test
    void compilesASourceFileAndNamesItInErrors(@TempDir Path sources) throws IOException {
        BundledTools tools = BundledTools.locate(cache);
        Path good = Files.writeString(sources.resolve("good.c"), ADD_ONE);
        assertTrue(Files.size(tools.compileToBitcode(good, HOST, List.of())) > 0);
        Path bad = Files.writeString(sources.resolve("bad.c"), "int g(void) { return }\n");
        ByodtException error = assertThrows(ByodtException.class, () -> tools.compileToBitcode(bad, HOST, List.of()));
        assertTrue(error.getMessage().contains(bad + ":1:"), error.getMessage());
    }
}
