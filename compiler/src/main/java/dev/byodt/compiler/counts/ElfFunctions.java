package dev.byodt.compiler.counts;

import dev.byodt.runtime.ByodtException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The functions of a little-endian ELF relocatable object or executable (32- or 64-bit): each defined
 * function symbol with the bytes of its code, read from the symbol table and the section it lives in.
 * Enough to count and decode RISC-V instructions without a disassembler (the LLVM jar's llvm-objdump is
 * not executable as extracted).
 */
public final class ElfFunctions {
    /** One function: its name and its machine code. */
    public record Function(String name, byte[] code) {}

    private static final int SHT_SYMTAB = 2;
    private static final int STT_FUNC = 2;

    private ElfFunctions() {}

    public static List<Function> read(byte[] elf, String what) {
        if (elf.length < 52 || elf[0] != 0x7f || elf[1] != 'E' || elf[2] != 'L' || elf[3] != 'F') {
            throw new ByodtException(what + " is not an ELF file");
        }
        if (elf[5] != 1) throw new ByodtException(what + " is not a little-endian ELF file");
        boolean is64 = elf[4] == 2;
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        long sectionTable = is64 ? b.getLong(0x28) : Integer.toUnsignedLong(b.getInt(0x20));
        int entrySize = Short.toUnsignedInt(b.getShort(is64 ? 0x3A : 0x2E));
        int count = Short.toUnsignedInt(b.getShort(is64 ? 0x3C : 0x30));
        List<long[]> sections = new ArrayList<>();   // type, offset, size, link, entry size, address
        for (int i = 0; i < count; i++) {
            int at = (int) (sectionTable + (long) i * entrySize);
            if (is64) {
                sections.add(new long[]{b.getInt(at + 4), b.getLong(at + 0x18), b.getLong(at + 0x20), b.getInt(at + 0x28),
                    b.getLong(at + 0x38), b.getLong(at + 0x10)});
            } else {
                sections.add(new long[]{b.getInt(at + 4), Integer.toUnsignedLong(b.getInt(at + 0x10)),
                    Integer.toUnsignedLong(b.getInt(at + 0x14)), b.getInt(at + 0x18), Integer.toUnsignedLong(b.getInt(at + 0x24)),
                    Integer.toUnsignedLong(b.getInt(at + 0x0C))});
            }
        }
        boolean relocatable = b.getShort(0x10) == 1;
        List<Function> functions = new ArrayList<>();
        for (long[] symtab : sections) {
            if (symtab[0] != SHT_SYMTAB) continue;
            long[] strings = sections.get((int) symtab[3]);
            int symbolSize = (int) symtab[4];
            for (long at = symtab[1]; at + symbolSize <= symtab[1] + symtab[2]; at += symbolSize) {
                int p = (int) at;
                int nameOffset = b.getInt(p);
                int info = Byte.toUnsignedInt(b.get(p + (is64 ? 4 : 12)));
                int sectionIndex = Short.toUnsignedInt(b.getShort(p + (is64 ? 6 : 14)));
                long value = is64 ? b.getLong(p + 8) : Integer.toUnsignedLong(b.getInt(p + 4));
                long size = is64 ? b.getLong(p + 16) : Integer.toUnsignedLong(b.getInt(p + 8));
                if ((info & 0xF) != STT_FUNC || size == 0 || sectionIndex == 0 || sectionIndex >= sections.size()) continue;
                long[] section = sections.get(sectionIndex);
                long offset = section[1] + (relocatable ? value : value - section[5]);
                byte[] code = new byte[(int) size];
                System.arraycopy(elf, (int) offset, code, 0, (int) size);
                functions.add(new Function(string(elf, (int) (strings[1] + nameOffset)), code));
            }
        }
        return functions;
    }

    private static String string(byte[] elf, int at) {
        int end = at;
        while (elf[end] != 0) end++;
        return new String(elf, at, end - at, StandardCharsets.US_ASCII);
    }
}
