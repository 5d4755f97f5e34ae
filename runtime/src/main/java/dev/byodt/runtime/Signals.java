package dev.byodt.runtime;

import java.util.Map;

/** Names of the POSIX signals that end a crashed program, as byodt's one-line errors print them. */
public final class Signals {
    private static final Map<String, Integer> NUMBERS = Map.of("SIGILL", 4, "SIGTRAP", 5, "SIGABRT", 6, "SIGBUS", 7,
        "SIGFPE", 8, "SIGKILL", 9, "SIGSEGV", 11, "SIGXCPU", 24);

    private Signals() {}

    /** "SIGSEGV (an invalid memory access)", "SIGFPE (an arithmetic fault such as a division by zero)", or the number. */
    public static String describe(int signal) {
        return switch (signal) {
            case 4 -> "SIGILL (an illegal instruction)";
            case 5 -> "SIGTRAP (a trap instruction)";
            case 6 -> "SIGABRT";
            case 7 -> "SIGBUS (a misaligned or unmapped memory access)";
            case 8 -> "SIGFPE (an arithmetic fault such as a division by zero)";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV (an invalid memory access)";
            default -> "signal " + signal;
        };
    }

    /** The same for a signal named as the JVM's crash report names it ("SIGSEGV"). */
    public static String describe(String name) {
        Integer number = NUMBERS.get(name);
        return number == null ? name : describe(number);
    }
}
