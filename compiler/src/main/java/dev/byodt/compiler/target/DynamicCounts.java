package dev.byodt.compiler.target;

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
 */
public final class DynamicCounts {
    /** The qemu options that make the log this class reads, written to {@code log}. */
    public static List<String> qemuOptions(Path log) {
        return List.of("-d", "in_asm,exec,nochain", "-D", log.toString());
    }

    private DynamicCounts() {}

    /** Executed instructions per function (by qemu's symbol name; "?" where it knows none), in first-seen order. */
    public static Map<String, Long> read(Path log) {
        Map<Long, Integer> blockSize = new HashMap<>();
        Map<Long, Long> executions = new LinkedHashMap<>();
        Map<Long, String> functionOf = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(log, java.nio.charset.StandardCharsets.ISO_8859_1)) {
            String line;
            Long block = null;
            int size = 0;
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
                    }
                    // A block translated again starts from zero, so the last translation's size wins.
                    blockSize.put(block, ++size);
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
        executions.forEach((pc, times) -> {
            String function = functionOf.get(pc);
            byFunction.merge(function.isEmpty() ? "?" : function, times * blockSize.getOrDefault(pc, 0), Long::sum);
        });
        return byFunction;
    }
}
