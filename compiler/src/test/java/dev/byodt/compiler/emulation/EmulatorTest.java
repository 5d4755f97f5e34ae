package dev.byodt.compiler.emulation;

import dev.byodt.compiler.Targets;
import dev.byodt.compiler.toolchain.BundledTools;
import dev.byodt.compiler.toolchain.ProcessResult;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Running RISC-V executables under qemu-user: a missing emulator, a crash and a run past the time limit. */
class EmulatorTest {
    @TempDir
    Path work;

    /** A freestanding riscv64 program made of {@code body} as the entry point's code. */
    private Path program(String name, String body) throws Exception {
        BundledTools tools = BundledTools.get();
        Path source = Files.writeString(work.resolve(name + ".c"), "void _start(void) {\n" + body + "\n}\n");
        Path object = work.resolve(name + ".o"), executable = work.resolve(name);
        List<String> compile = new java.util.ArrayList<>(List.of(tools.clang().toString(), "--target=riscv64-unknown-linux-gnu"));
        compile.addAll(Targets.named("riscv64").clangFlags());
        compile.addAll(List.of("-O1", "-ffreestanding", "-nostdlib", "-c", source.toString(), "-o", object.toString()));
        ProcessResult compiled = tools.run(compile);
        assertTrue(compiled.succeeded(), compiled.firstErrorLine());
        ProcessResult linked = tools.run(List.of(tools.lld().toString(), "-static", "-e", "_start", "-o", executable.toString(), object.toString()));
        assertTrue(linked.succeeded(), linked.firstErrorLine());
        return executable;
    }

    @Test
    void aMissingEmulatorIsNamedWithThePackageToInstall() throws Exception {
        Path empty = Files.createDirectory(work.resolve("empty-path"));
        ByodtException e = assertThrows(ByodtException.class,
            () -> Emulator.forTarget(Targets.named("riscv32"), Duration.ofSeconds(5), empty.toString()));
        assertTrue(e.getMessage().contains("qemu-riscv32 not found on the PATH"), e.getMessage());
        assertTrue(e.getMessage().contains("qemu-user"), e.getMessage());
    }

    @Test
    void aCrashIsReportedWithItsSignal() throws Exception {
        Path crash = program("crash", "*(volatile int *) 16 = 1; for (;;) {}");
        Emulator emulator = Emulator.forTarget(Targets.named("riscv64"), Duration.ofSeconds(30));
        ByodtException e = assertThrows(ByodtException.class, () -> emulator.run(crash, List.of(), List.of(), work));
        assertTrue(e.getMessage().contains("crash was killed by signal SIGSEGV"), e.getMessage());
    }

    @Test
    void aRunPastTheTimeLimitIsStopped() throws Exception {
        Path loop = program("loop", "for (volatile int i = 0;; i++) {}");
        Emulator emulator = Emulator.forTarget(Targets.named("riscv64"), Duration.ofSeconds(1));
        long start = System.nanoTime();
        ByodtException e = assertThrows(ByodtException.class, () -> emulator.run(loop, List.of(), List.of(), work));
        assertTrue(e.getMessage().contains("ran past the time limit of 1 s"), e.getMessage());
        assertTrue(System.nanoTime() - start < 20e9, "stopped promptly");
    }

    @Test
    void aFailingExitStatusIsReported() throws Exception {
        Path fails = program("fails", "register long a0 __asm__(\"a0\") = 3; register long a7 __asm__(\"a7\") = 93;"
            + " __asm__ volatile(\"ecall\" : : \"r\"(a0), \"r\"(a7)); for (;;) {}");
        Emulator emulator = Emulator.forTarget(Targets.named("riscv64"), Duration.ofSeconds(30));
        ByodtException e = assertThrows(ByodtException.class, () -> emulator.run(fails, List.of(), List.of(), work));
        assertTrue(e.getMessage().contains("fails exited with status 3"), e.getMessage());
    }
}
