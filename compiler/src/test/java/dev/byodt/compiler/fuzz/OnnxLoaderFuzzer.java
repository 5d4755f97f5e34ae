package dev.byodt.compiler.fuzz;

import dev.byodt.compiler.onnx.OnnxLoader;

import java.nio.file.Path;

/** The ONNX loader and importer: protobuf parsing, validation, type inference and constant folding. */
public final class OnnxLoaderFuzzer {
    private static final Path FILE = FuzzInputs.file("model.onnx");

    private OnnxLoaderFuzzer() {}

    public static void fuzzerTestOneInput(byte[] data) {
        FuzzInputs.readAs(FILE, data, OnnxLoader::load);
    }
}
