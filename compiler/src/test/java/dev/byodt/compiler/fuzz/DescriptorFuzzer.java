package dev.byodt.compiler.fuzz;

import dev.byodt.compiler.dtype.plugin.DatatypeDescriptor;

import java.nio.file.Path;

/** The YAML datatype descriptor parser, up to the datatype definition it builds (no C is compiled). */
public final class DescriptorFuzzer {
    private static final Path FILE = FuzzInputs.file("datatype.yaml");

    private DescriptorFuzzer() {}

    public static void fuzzerTestOneInput(byte[] data) {
        FuzzInputs.readAs(FILE, data, DatatypeDescriptor::read);
    }
}
