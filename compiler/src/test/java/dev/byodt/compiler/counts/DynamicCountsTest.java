package dev.byodt.compiler.counts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Counting from qemu's in_asm/exec log: block sizes times executions, per function, retranslation included. */
class DynamicCountsTest {
    @TempDir
    Path work;

    @Test
    void executionsTimesBlockSizesPerFunction() throws Exception {
        Path log = Files.writeString(work.resolve("q.log"), """
            IN: kernel
            0x0000000000010000:  00000513          addi                    a0,zero,0
            0x0000000000010004:  0505              addi                    a0,a0,1
            0x0000000000010006:  fea54ce3          blt                     a0,a0,-8

            Trace 0: 0x7f0000000100 [0000000000000000/0000000000010000/00207600/00000200] kernel
            Trace 0: 0x7f0000000100 [0000000000000000/0000000000010000/00207600/00000200] kernel
            IN: kernel
            0x0000000000010000:  00000513          addi                    a0,zero,0
            0x0000000000010004:  0505              addi                    a0,a0,1
            0x0000000000010006:  fea54ce3          blt                     a0,a0,-8

            Trace 0: 0x7f0000000100 [0000000000000000/0000000000010000/00207600/00000200] kernel
            IN: main
            0x0000000000020000:  8082              ret

            Trace 0: 0x7f0000000200 [0000000000000000/0000000000020000/00207600/00000200] main
            """);
        DynamicCounts.Executed executed = DynamicCounts.read(log);
        assertEquals(Map.of("kernel", 9L, "main", 1L), executed.perFunction());
        assertEquals(10, executed.total());
        assertEquals(0, executed.undecodable());
        assertEquals(0, executed.emulation());
    }

    @Test
    void emulatedPInstructionsCountOnceAndTheEmulationApart() throws Exception {
        Path log = Files.writeString(work.resolve("p.log"), """
            IN: kernel
            0x0000000000010000:  00000513          addi                    a0,zero,0
            0x0000000000010004:  10a28577          illegal

            Trace 0: 0x7f0000000100 [0000000000000000/0000000000010000/00207600/00000200] kernel
            IN: byodt_p_emulation_handler
            0x0000000000011000:  8082              ret

            Trace 0: 0x7f0000000200 [0000000000000000/0000000000011000/00207600/00000200] byodt_p_emulation_handler
            IN:
            0x0000004000801000:  08b00893          addi                    a7,zero,139
            0x0000004000801004:  00000073          ecall

            Trace 0: 0x7f0000000300 [0000000000000000/0000004000801000/00207600/00000200]\s
            IN: kernel
            0x0000000000010008:  8082              ret

            Trace 0: 0x7f0000000400 [0000000000000000/0000000000010008/00207600/00000200] kernel
            Trace 0: 0x7f0000000100 [0000000000000000/0000000000010000/00207600/00000200] kernel
            """);
        DynamicCounts.Executed executed = DynamicCounts.read(log);
        assertEquals(Map.of("kernel", 5L), executed.perFunction());
        assertEquals(2, executed.undecodable());
        assertEquals(3, executed.emulation());
    }
}
