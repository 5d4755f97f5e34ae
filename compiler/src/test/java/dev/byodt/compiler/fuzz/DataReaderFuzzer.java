package dev.byodt.compiler.fuzz;

import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.TensorProtos;
import dev.byodt.runtime.data.ImagePreprocessing;
import dev.byodt.runtime.data.NpyArray;

import java.nio.file.Path;

/**
 * The data readers, each on the same bytes (each tells its format by its magic): ONNX TensorProto files,
 * .npy arrays, IDX images and labels, PNG and JPEG images.
 */
public final class DataReaderFuzzer {
    private static final Path FILE = FuzzInputs.file("data");
    private static final ImagePreprocessing IMAGES = new ImagePreprocessing(1, 28, 28);

    private DataReaderFuzzer() {}

    public static void fuzzerTestOneInput(byte[] data) {
        FuzzInputs.readAs(FILE, data, TensorProtos::read);
        FuzzInputs.readAs(FILE, data, NpyArray::read);
        FuzzInputs.readAs(FILE, data, IdxReader::readImages);
        FuzzInputs.readAs(FILE, data, IdxReader::readLabels);
        FuzzInputs.readAs(FILE, data, IMAGES::read);
    }
}
