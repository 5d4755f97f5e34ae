package dev.byodt.compiler.toolchain;

import java.util.List;

/** What a bundled tool did: the command line it ran, its exit code and everything it printed. */
public record ProcessResult(List<String> command, int exitCode, String stdout, String stderr) {
    public ProcessResult {
        command = List.copyOf(command);
    }

    public boolean succeeded() { return exitCode == 0; }

    /**
     * The line of the tool's output a user needs first: clang's and lld's first "error:" line (which names
     * file:line:column), or else the first non-blank line, or else the exit code.
     */
    public String firstErrorLine() {
        String[] lines = (stderr + "\n" + stdout).split("\n");
        for (String line : lines) {
            if (line.contains("error:")) return line.strip();
        }
        for (String line : lines) {
            if (!line.isBlank()) return line.strip();
        }
        return "exit code " + exitCode;
    }
}
