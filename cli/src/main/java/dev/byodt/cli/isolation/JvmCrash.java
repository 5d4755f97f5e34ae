package dev.byodt.cli.isolation;

import dev.byodt.runtime.Signals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a crashed child JVM left behind: its error report (-XX:ErrorFile) gives the signal and the faulting
 * address, and the child's record of where its compiled functions start names the function the address is in.
 */
record JvmCrash(String signal, Optional<String> function) {
    /** "#  SIGSEGV (0xb) at pc=0x00007f5057fd8270, pid=21431, tid=21629" */
    private static final Pattern SIGNAL_LINE = Pattern.compile("#\\s+(SIG[A-Z0-9]+) \\(0x[0-9a-f]+\\) at pc=0x([0-9a-f]+)");
    /** "k3.Tanh.NODE", or "k3.Tanh.NODE (+7 identical)" for code that seven other nodes run too (LlvmCodegen). */
    private static final Pattern KERNEL_NAME = Pattern.compile("k\\d+\\.([^.]+)\\.(.+?)(?: \\(\\+(\\d+) identical\\))?");
    /** A function longer than this is unlikely: an address further past the nearest start lies elsewhere. */
    private static final long LONGEST_FUNCTION = 1 << 24;

    /** The crash described by {@code report}, if the JVM wrote one; {@code functions} is the child's address list. */
    static Optional<JvmCrash> read(Path report, Path functions) {
        if (!Files.isRegularFile(report)) return Optional.empty();
        String text = readOrEmpty(report);
        Matcher m = SIGNAL_LINE.matcher(text);
        if (!m.find()) return Optional.of(new JvmCrash("an internal JVM error", Optional.empty()));
        long pc = Long.parseUnsignedLong(m.group(2), 16);
        return Optional.of(new JvmCrash(Signals.describe(m.group(1)), functionAt(pc, readOrEmpty(functions))));
    }

    /**
     * "in node 'conv1' (Tanh)" for a kernel (the code generator names them kINDEX.OP.NODE), "in node 'a' (Tanh)
     * or one of 7 identical nodes that run its code" for a shared one, else "in NAME".
     */
    String where() {
        return function.map(name -> {
            Matcher kernel = KERNEL_NAME.matcher(name);
            if (!kernel.matches()) return "in " + name;
            String node = "in node '" + kernel.group(2) + "' (" + kernel.group(1) + ")";
            return kernel.group(3) == null ? node : node + " or one of " + kernel.group(3) + " identical nodes that run its code";
        }).orElse("");
    }

    /** The function whose code starts nearest below {@code pc}, from "ADDRESS NAME" lines. */
    static Optional<String> functionAt(long pc, String functions) {
        TreeMap<Long, String> starts = new TreeMap<>(Long::compareUnsigned);
        for (String line : functions.split("\n")) {
            int space = line.indexOf(' ');
            if (space > 0) starts.put(Long.parseUnsignedLong(line.substring(0, space), 16), line.substring(space + 1));
        }
        Map.Entry<Long, String> below = starts.floorEntry(pc);
        return below == null || pc - below.getKey() > LONGEST_FUNCTION ? Optional.empty() : Optional.of(below.getValue());
    }

    private static String readOrEmpty(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }
}
