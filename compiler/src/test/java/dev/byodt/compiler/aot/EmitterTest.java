package dev.byodt.compiler.aot;

import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class EmitterTest {
    private static final ProgramSignature ADD_ONE = new ProgramSignature("byodt_model",
        List.of(new TensorSpec("x", ElementType.FLOAT32, new long[] {1, 4})),
        List.of(new TensorSpec("y", ElementType.FLOAT32, new long[] {1, 4})), 0);

    @TempDir
    static Path cache;
    private static BundledTools tools;

    @TempDir
    Path out;

    @BeforeAll
    static void locateTools() {
        tools = BundledTools.locate(cache);
    }

    private List<Path> emit(EmitKind kind, String ir, ProgramSignature signature, Path output) {
        try (HandWrittenModule model = new HandWrittenModule(ir)) {
            return new Emitter(tools).emit(kind, model.module, model.machine, signature, output);
        }
    }

    @Test
    void writesLlvmIrAndAssembly() throws IOException {
        emit(EmitKind.LLVM, HandWrittenModule.ADD_ONE, ADD_ONE, out.resolve("model.ll"));
        assertTrue(Files.readString(out.resolve("model.ll")).contains("define void @byodt_model(ptr noalias %x"));
        emit(EmitKind.ASM, HandWrittenModule.ADD_ONE, ADD_ONE, out.resolve("model.s"));
        assertTrue(Files.readString(out.resolve("model.s")).contains("byodt_model:"));
    }

    @Test
    void anObjectComesWithAHeaderThatDeclaresTheEntry() throws IOException {
        List<Path> written = emit(EmitKind.OBJ, HandWrittenModule.ADD_ONE, ADD_ONE, out.resolve("model.o"));
        assertEquals(List.of(out.resolve("model.o"), out.resolve("model.h")), written);
        byte[] object = Files.readAllBytes(out.resolve("model.o"));
        assertEquals("\u007FELF", new String(object, 0, 4, StandardCharsets.ISO_8859_1));
        String header = Files.readString(out.resolve("model.h"));
        assertTrue(header.contains("#ifndef BYODT_MODEL_H_\n#define BYODT_MODEL_H_\n"), header);
        assertTrue(header.contains("#include <stdint.h>"), header);
        assertTrue(header.contains("#define BYODT_MODEL_WORKSPACE_BYTES 0\n"), header);
        assertTrue(header.contains("    const float *x, /* input 0 'x': float32[1x4], 16 bytes */\n"), header);
        assertTrue(header.contains("    float *y, /* output 0 'y': float32[1x4], 16 bytes */\n"), header);
        assertTrue(header.contains("    void *workspace); /* 0 bytes of scratch memory */\n"), header);
    }

    @Test
    void aCProgramIncludesTheHeaderAndLinksTheObject() throws Exception {
        emit(EmitKind.OBJ, HandWrittenModule.ADD_ONE, ADD_ONE, out.resolve("model.o"));
        Path program = Files.writeString(out.resolve("main.c"), """
            #include <stdio.h>
            #include "model.h"
            int main(void) {
                float x[4] = {1.0f, 2.5f, -3.0f, 0.0f}, y[4];
                static unsigned char workspace[BYODT_MODEL_WORKSPACE_BYTES + 1];
                byodt_model(x, y, workspace);
                printf("%g %g %g %g\\n", y[0], y[1], y[2], y[3]);
                return 0;
            }
            """);
        // The bundled clang as a hosted compiler driver: the system's C library and start files, the bundled ld.lld.
        ProcessResult built = tools.run(List.of(tools.clang().toString(), "-fuse-ld=lld", program.toString(),
            out.resolve("model.o").toString(), "-o", out.resolve("main").toString()), out);
        assertTrue(built.succeeded(), built.stderr());
        Process process = new ProcessBuilder(out.resolve("main").toString()).start();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals("2 3.5 -2 1\n", new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void aSharedLibraryLoadsAndRunsThroughTheForeignFunctionApi() throws Throwable {
        List<Path> written = emit(EmitKind.SO, HandWrittenModule.ADD_ONE, ADD_ONE, out.resolve("libmodel.so"));
        assertTrue(written.contains(out.resolve("libmodel.h")));
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup library = SymbolLookup.libraryLookup(out.resolve("libmodel.so"), arena);
            MethodHandle entry = Linker.nativeLinker().downcallHandle(library.findOrThrow("byodt_model"),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            MemorySegment x = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 10f, 20f, 30f, 40f);
            MemorySegment y = arena.allocate(ValueLayout.JAVA_FLOAT, 4);
            entry.invokeExact(x, y, MemorySegment.NULL);
            assertArrayEquals(new float[] {11f, 21f, 31f, 41f}, y.toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    @Test
    void aFailedEmitLeavesNoFileAndKeepsTheOldOne() throws IOException {
        String callsMissing = """
            declare float @not_in_any_library(float)
            define void @byodt_model(ptr %x, ptr %y, ptr %workspace) {
              %v = load float, ptr %x
              %r = call float @not_in_any_library(float %v)
              store float %r, ptr %y
              ret void
            }
            """;
        ProgramSignature scalar = new ProgramSignature("byodt_model",
            List.of(new TensorSpec("x", ElementType.FLOAT32, new long[] {})),
            List.of(new TensorSpec("y", ElementType.FLOAT32, new long[] {})), 0);
        ByodtException error = assertThrows(ByodtException.class,
            () -> emit(EmitKind.EXE, callsMissing, scalar, out.resolve("model")));
        assertTrue(error.getMessage().contains("undefined symbol: not_in_any_library"), error.getMessage());

        Path existing = Files.writeString(out.resolve("kept"), "the previous build");
        assertThrows(ByodtException.class, () -> emit(EmitKind.EXE, callsMissing, scalar, existing));
        assertEquals("the previous build", Files.readString(existing));
        try (var files = Files.list(out)) {
            assertEquals(List.of(existing), files.toList(), "no partial or temporary file is left");
        }
    }

    @Test
    void anInvalidEntrySymbolFailsBeforeAnythingIsWritten() throws IOException {
        ProgramSignature bad = new ProgramSignature("not-a-c-name", ADD_ONE.inputs(), ADD_ONE.outputs(), 0);
        ByodtException error = assertThrows(ByodtException.class,
            () -> emit(EmitKind.OBJ, HandWrittenModule.ADD_ONE, bad, out.resolve("model.o")));
        assertEquals("entry symbol 'not-a-c-name' is not a C identifier", error.getMessage());
        try (var files = Files.list(out)) {
            assertEquals(List.of(), files.toList());
        }
    }

    @Test
    void theHeaderCannotReplaceTheOutput() {
        assertThrows(ByodtException.class, () -> Emitter.headerPath(Path.of("model.h")));
        assertEquals(Path.of("dir/libnet.h"), Emitter.headerPath(Path.of("dir/libnet.so")));
        assertEquals(Path.of("model.h"), Emitter.headerPath(Path.of("model")));
    }

    @Test
    void emitKindsParseFromTheirOptionNames() {
        assertEquals(EmitKind.LLVM, EmitKind.parse("llvm"));
        assertEquals(EmitKind.EXE, EmitKind.parse("EXE"));
        assertEquals(List.of(".ll", ".s", ".o", ".so", ""), java.util.Arrays.stream(EmitKind.values()).map(EmitKind::fileExtension).toList());
        ByodtException error = assertThrows(ByodtException.class, () -> EmitKind.parse("wasm"));
        assertEquals("unknown output kind 'wasm': expected one of llvm|asm|obj|so|exe", error.getMessage());
    }
}
