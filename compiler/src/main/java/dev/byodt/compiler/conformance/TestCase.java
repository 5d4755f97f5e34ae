package dev.byodt.compiler.conformance;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.TensorProtos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * An ONNX test-data layout: a model.onnx beside test_data_set_N folders, or a single folder holding
 * input_N.pb and output_N.pb. Inputs and outputs are ordered by N, which is how they match the graph.
 */
public record TestCase(String name, Path model, List<DataSet> dataSets) {

    public record DataSet(Path dir, List<NamedTensor> inputs, List<NamedTensor> outputs) {}

    /** Reads a case folder of the ONNX backend tests (model.onnx and test_data_set_*). */
    public static TestCase load(Path caseDir) {
        Path model = caseDir.resolve("model.onnx");
        if (!Files.isRegularFile(model)) throw new ByodtException(caseDir + ": no model.onnx in this test case folder");
        List<DataSet> sets = readDataSetFolders(caseDir);
        if (sets.isEmpty()) throw new ByodtException(caseDir + ": no test_data_set_N folder");
        return new TestCase(caseDir.getFileName().toString(), model, sets);
    }

    /** The data sets of a folder: its test_data_set_N subfolders if it has any, else the folder itself. */
    public static List<DataSet> readDataSets(Path dir) {
        List<DataSet> sets = readDataSetFolders(dir);
        return sets.isEmpty() ? List.of(readDataSet(dir)) : sets;
    }

    private static List<DataSet> readDataSetFolders(Path dir) {
        List<DataSet> sets = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path set : entries.filter(p -> p.getFileName().toString().startsWith("test_data_set_")).sorted().toList()) {
                sets.add(readDataSet(set));
            }
        } catch (IOException e) {
            throw new ByodtException(dir + ": cannot list the folder (" + e.getMessage() + ")");
        }
        return sets;
    }

    /** Reads input_N.pb and output_N.pb of one folder, in N order. */
    public static DataSet readDataSet(Path dir) {
        List<NamedTensor> inputs = readNumbered(dir, "input_");
        if (inputs.isEmpty()) throw new ByodtException(dir + ": no input_0.pb");
        return new DataSet(dir, inputs, readNumbered(dir, "output_"));
    }

    private static List<NamedTensor> readNumbered(Path dir, String prefix) {
        List<NamedTensor> tensors = new ArrayList<>();
        for (int n = 0; Files.exists(dir.resolve(prefix + n + ".pb")); n++) {
            tensors.add(TensorProtos.read(dir.resolve(prefix + n + ".pb")));
        }
        return tensors;
    }
}
