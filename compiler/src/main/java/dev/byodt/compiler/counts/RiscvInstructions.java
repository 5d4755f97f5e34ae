package dev.byodt.compiler.counts;

import java.util.ArrayList;
import java.util.List;

/**
 * RISC-V machine code split into instructions: 16-bit compressed ones (low two bits not 11) and 32-bit
 * ones (low two bits 11; byodt's targets emit no longer encodings). The fields of a 32-bit word:
 * opcode = bits 6..0, funct3 = bits 14..12, funct7 = bits 31..25.
 */
public final class RiscvInstructions {
    private RiscvInstructions() {}

    /** Each instruction as an int: the 32-bit word, or the 16-bit parcel of a compressed instruction. */
    public static List<Integer> split(byte[] code) {
        List<Integer> instructions = new ArrayList<>();
        int at = 0;
        while (at + 1 < code.length) {
            int low = (code[at] & 0xFF) | (code[at + 1] & 0xFF) << 8;
            if ((low & 3) != 3) {
                instructions.add(low);
                at += 2;
            } else {
                if (at + 3 >= code.length) break;
                instructions.add(low | (code[at + 2] & 0xFF) << 16 | (code[at + 3] & 0xFF) << 24);
                at += 4;
            }
        }
        return instructions;
    }

    public static boolean isCompressed(int instruction) { return (instruction & 3) != 3; }

    public static int opcode(int word) { return word & 0x7F; }

    public static int funct3(int word) { return (word >>> 12) & 7; }

    public static int funct7(int word) { return word >>> 25; }
}
