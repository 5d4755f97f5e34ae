package dev.byodt.runtime;

import java.util.Map;

/** Names of the POSIX signals that end a crashed program, as byodt's one-line errors print them. */
public final class Signals {
    /** Linux's numbers (the same on x86-64 and RISC-V) of the signals a crash or a stop ends in. */
    private static final Map<Integer, String> DESCRIPTIONS = Map.of(
        4, "SIGILL (an illegal instruction)",
        5, "SIGTRAP (a trap instruction)",
        6, "SIGABRT",
        7, "SIGBUS (a misaligned or unmapped memory access)",
        8, "SIGFPE (an arithmetic fault such as a division by zero)",
        9, "SIGKILL",
        11, "SIGSEGV (an invalid memory access)");

    private Signals() {}

    /** "SIGSEGV (an invalid memory access)", or "signal N" for a number without a description here. */
    public static String describe(int signal) { return DESCRIPTIONS.getOrDefault(signal, "signal " + signal); }

    /** The same for a signal named as the JVM's crash report names it ("SIGSEGV"), or the name itself. */
    public static String describe(String name) {
        return DESCRIPTIONS.values().stream().filter(d -> d.equals(name) || d.startsWith(name + " ")).findFirst().orElse(name);
    }
}
