package dev.byodt.compiler.counts;

import dev.byodt.runtime.ByodtException;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Dynamic instruction counts of a run under qemu-user, per function, from qemu's own log: Debian's
 * qemu-user has the TCG plugin interface (-plugin) but ships no plugin (no libinsn.so) and no qemu-plugin.h
 * to build one, so byodt asks qemu to log each translated block's instructions (in_asm) and each block
 * execution (exec, with chaining off so that every execution is logged), and multiplies.
 * The log is large (about 200 MB for one LeNet-5 image), so count one small run.
 * On a P target the executable emulates P (qemu has none): each P instruction counts as one, where qemu
 * logs it as an undecodable word, and the emulation's own instructions are counted apart.
 */
public final class DynamicCounts {
    /** The qemu options that make the log this class reads, written to {@code log}. */
    public static List<String> qemuOptions(Path log) {
        return List.of("-d", "in_asm,exec,nochain", "-D", log.toString());
    }

    private DynamicCounts() {}

    /** The name of the emulation's functions on P targets (runtime-c/harness/p_emulation.c). */
    private static final String P_EMULATION_PREFIX = "byodt_p_emulation";
    /** How qemu's disassembler shows a word it cannot decode, such as a P instruction. */
    private static final String UNDECODABLE = "illegal";

    /**
     * What a run executed: instructions per function (qemu's symbol name) in first-seen order, how many of
     * them qemu could not decode (on a P target, the P instructions the emulation ran), and how many the
     * emulation itself took (its handler, and qemu's signal trampoline, the only code without a symbol),
     * which are not in {@code perFunction}: a P core runs each P instruction as one.
     */
    public record Executed(Map<String, Long> perFunction, long undecodable, long emulation) {
        public long total() { return perFunction.values().stream().mapToLong(Long::longValue).sum(); }
    }

    /** Reads the log a run with {@link #qemuOptions} wrote. */
    public static Executed read(Path log) {
        Map<Long, Integer> blockSize = new HashMap<>();
        Map<Long, Integer> blockUndecodable = new HashMap<>();
        Map<Long, Long> executions = new LinkedHashMap<>();
        Map<Long, String> functionOf = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(log, java.nio.charset.StandardCharsets.ISO_8859_1)) {
            String line;
            Long block = null;
            int size = 0, undecodable = 0;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("IN:")) {
                    block = null;
                    continue;
                }
                if (line.startsWith("0x") && line.indexOf(':') > 2) {
                    long address = Long.parseUnsignedLong(line.substring(2, line.indexOf(':')), 16);
                    if (block == null) {
                        block = address;
                        size = 0;
                        undecodable = 0;
                    }
                    if (isUndecodable(line)) undecodable++;
                    // A block translated again starts from zero, so the last translation's size wins.
                    blockSize.put(block, ++size);
                    blockUndecodable.put(block, undecodable);
                    continue;
                }
                if (line.isBlank()) {
                    block = null;
                    continue;
                }
                if (line.startsWith("Trace ")) {
                    int open = line.indexOf('['), close = line.indexOf(']');
                    if (open < 0 || close < open) continue;
                    String[] fields = line.substring(open + 1, close).split("/");
                    if (fields.length < 2) continue;
                    long pc = Long.parseUnsignedLong(fields[1], 16);
                    executions.merge(pc, 1L, Long::sum);
                    functionOf.putIfAbsent(pc, line.substring(close + 1).strip());
                }
            }
        } catch (IOException e) {
            throw new ByodtException("cannot read qemu's log " + log + ": " + e.getMessage(), e);
        }
        Map<String, Long> byFunction = new LinkedHashMap<>();
        long undecodable = 0, emulation = 0;
        boolean emulated = functionOf.values().stream().anyMatch(name -> name.startsWith(P_EMULATION_PREFIX));
        for (Map.Entry<Long, Long> block : executions.entrySet()) {
            long pc = block.getKey(), times = block.getValue();
            String function = functionOf.get(pc);
            long instructions = times * blockSize.getOrDefault(pc, 0);
            if (emulated && (function.isEmpty() || function.startsWith(P_EMULATION_PREFIX))) {
                emulation += instructions;
                continue;
            }
            byFunction.merge(function.isEmpty() ? "?" : function, instructions, Long::sum);
            undecodable += times * blockUndecodable.getOrDefault(pc, 0);
        }
        return new Executed(byFunction, undecodable, emulation);
    }

    /** A disassembly line "0x...:  WORD  illegal": the mnemonic column is the third field. */
    private static boolean isUndecodable(String line) {
        String[] fields = line.strip().split("\\s+");
        return fields.length >= 3 && fields[2].equals(UNDECODABLE);
    }
}
