package dev.byodt.cli;

import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** --shape name=1x1x28x28 (or 1,1,28,28): fixes symbolic input dimensions at compile time. */
final class ShapeOptions {
    @Option(names = "--shape", paramLabel = "NAME=DIMS",
        description = "Static shape for an input whose dimensions are symbolic, e.g. image=64x1x28x28 or input_ids=1,16 "
            + "(repeatable). Symbolic dimensions not given here are fixed to 1. An input bound at compile time (--bind, "
            + "or an integer input of --test-data) may be named too: its shape must then be the bound value's.")
    List<String> shapes = List.of();

    Map<String, long[]> parse() {
        Map<String, long[]> result = new LinkedHashMap<>();
        for (String spec : shapes) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) {
                throw new UsageException("--shape " + spec + ": expected NAME=DIMS, e.g. image=1x1x28x28");
            }
            String[] parts = spec.substring(eq + 1).split("[x,]", -1);
            long[] dims = new long[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    dims[i] = Long.parseLong(parts[i].trim());
                } catch (NumberFormatException e) {
                    throw new UsageException("--shape " + spec + ": '" + parts[i] + "' is not a dimension");
                }
                if (dims[i] <= 0) throw new UsageException("--shape " + spec + ": dimensions must be positive");
            }
            result.put(spec.substring(0, eq), dims);
        }
        return result;
    }
}
