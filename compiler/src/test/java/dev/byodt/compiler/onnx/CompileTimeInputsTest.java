package dev.byodt.compiler.onnx;

import dev.byodt.compiler.conformance.DataSetRun;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.conformance.TestCase;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.byodt.compiler.onnx.Models.FLOAT;
import static dev.byodt.compiler.onnx.Models.graph;
import static dev.byodt.compiler.onnx.Models.model;
import static dev.byodt.compiler.onnx.Models.node;
import static dev.byodt.compiler.onnx.Models.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Test data for a float input that an operator needs at compile time (Resize's scales, as the ONNX node tests
 * feed it) is bound like an integer input, and only that input: the image stays a run-time input.
 */
class CompileTimeInputsTest {
    @TempDir
    Path dir;

    @Test
    void resizeScalesFromTestDataAreBoundAndTheImageIsFedAtRunTime() {
        Path file = Models.write(dir, "resize.onnx", model(graph()
            .addInput(tensor("X", FLOAT, 1L, 1L, 1L, 2L))
            .addInput(tensor("scales", FLOAT, 4L))
            .addOutput(tensor("Y", FLOAT, 1L, 1L, 1L, 4L))
            .addNode(node("Resize", "up", List.of("X", "", "scales"), List.of("Y")))));
        assertEquals(Set.of("scales"), OnnxLoader.compileTimeInputs(file));
        TestCase.DataSet set = new TestCase.DataSet(dir, List.of(
            new NamedTensor("X", Tensor.ofFloats(new long[] {1, 1, 1, 2}, new float[] {5, 7})),
            new NamedTensor("scales", Tensor.ofFloats(new long[] {4}, new float[] {1, 1, 1, 2}))), List.of());
        List<NamedTensor> outputs = DataSetRun.outputs(file, Map.of(), Map.of(), GraphInterpreter::run, set);
        assertArrayEquals(new float[] {5, 5, 7, 7}, outputs.getFirst().tensor().toFloatArray());
    }
}
