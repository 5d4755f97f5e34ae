package dev.byodt.compiler.onnx;

import dev.byodt.compiler.ops.Operators;
import dev.byodt.compiler.ops.TestOperators;
import dev.byodt.onnx.Onnx.OperatorSetIdProto;
import dev.byodt.onnx.Onnx.TensorProto;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.onnx.Models.COMPLEX64;
import static dev.byodt.compiler.onnx.Models.FLOAT;
import static dev.byodt.compiler.onnx.Models.NODE_TESTS;
import static dev.byodt.compiler.onnx.Models.STRING;
import static dev.byodt.compiler.onnx.Models.floatTensor;
import static dev.byodt.compiler.onnx.Models.graph;
import static dev.byodt.compiler.onnx.Models.intAttr;
import static dev.byodt.compiler.onnx.Models.model;
import static dev.byodt.compiler.onnx.Models.node;
import static dev.byodt.compiler.onnx.Models.tensor;
import static dev.byodt.compiler.onnx.Models.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ModelSummaryTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void registerTestOperators() {
        TestOperators.install();
    }

    @Test
    void summarisesAModelWithEveryKindOfProblem() {
        Path file = write(dir, "mixed.onnx", model(graph()
            .addInput(tensor("x", FLOAT, "batch", 4L))
            .addInput(tensor("d", COMPLEX64, 4L))
            .addOutput(tensor("y", FLOAT, "batch", 4L))
            .addInitializer(floatTensor("w", new long[] {2, 3}, 1, 2, 3, 4, 5, 6))
            .addInitializer(TensorProto.newBuilder().setName("wd").setDataType(COMPLEX64).addDims(5).addAllDoubleData(List.of(1.0, 2.0, 3.0, 4.0, 5.0)))
            .addNode(node("TestAdd", "a", List.of("x", "x"), List.of("a")))
            .addNode(node("Foo", "f1", List.of("a"), List.of("f1")))
            .addNode(node("Foo", "f2", List.of("f1"), List.of("f2")))
            .addNode(node("TestRejects", "r", List.of("a"), List.of("r")))
            .addNode(node("TestAdd", "dd", List.of("d", "d"), List.of("dd")))
            .addNode(node("Gather", "g", List.of("a"), List.of("g")).toBuilder().setDomain("com.example").build())
            .addNode(node("TestAdd", "y", List.of("a", "a"), List.of("y"))))
            .toBuilder().addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("com.example").setVersion(1)).build());
        ModelSummary s = ModelSummary.of(file);
        assertEquals(8, s.irVersion());
        assertEquals(Map.of("ai.onnx", 13L, "com.example", 1L), s.opsets());
        assertEquals("byodt-tests 1", s.producer());
        assertEquals(List.of(new ModelSummary.TensorInfo("x", "float32", "batchx4"), new ModelSummary.TensorInfo("d", "complex64", "4")),
            s.inputs());
        assertEquals(List.of(new ModelSummary.TensorInfo("y", "float32", "batchx4")), s.outputs());
        assertEquals(Map.of("TestAdd", 3, "Foo", 2, "TestRejects", 1, "com.example.Gather", 1), s.operators());
        assertEquals(11, s.parameterCount());
        assertEquals(6 * 4 + 5 * 8, s.parameterBytes());

        List<String> rows = s.unsupported().stream().map(u -> u.subject() + " " + u.where() + " " + u.count() + " " + u.reason()).toList();
        assertEquals(List.of(
            "- initializer 'wd' 1 unsupported tensor type",
            "- input 'd' 1 unsupported tensor type",
            "Foo node 'f1' 2 not implemented",
            "com.example.Gather node 'g' 1 unsupported domain",
            "TestRejects node 'r' 1 unsupported attribute or input",
            "TestAdd node 'dd' 1 unsupported tensor type"), rows);

        String text = s.render();
        assertTrue(text.contains("IR version  8\n"), text);
        assertTrue(text.contains("parameters  11 (64 B)\n"), text);
        assertTrue(text.matches("(?s).*\n  x  float32 +batchx4\n.*"), text);
        assertTrue(text.matches("(?s).*\n  Foo +node 'f1' and 1 more +not implemented\n.*"), text);
        assertTrue(text.matches("(?s).*\n  TestRejects +node 'r' +unsupported attribute or input: TestRejects node 'r': "
            + "attribute mode=none is not supported \\(only 'none' is implemented\\)\n.*"), text);
    }

    /**
     * Nodes behind an unsupported one are never typed, but what they name themselves is still listed: a Cast to
     * string, and a tensor the model declares of an element type byodt lacks.
     */
    @Test
    void problemsBehindAnUnsupportedNodeAreListed() {
        Path file = write(dir, "behind.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 4L))
            .addOutput(tensor("y", FLOAT, 4L))
            .addValueInfo(tensor("flags", STRING, 4L))
            .addNode(node("Mystery", "mystery", List.of("x"), List.of("m")).toBuilder().setDomain("com.example").build())
            .addNode(node("Cast", "to_string", List.of("m"), List.of("flags"), intAttr("to", STRING)))
            .addNode(node("Cast", "to_float", List.of("flags"), List.of("y"), intAttr("to", FLOAT))))
            .toBuilder().addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("com.example").setVersion(1)).build());
        List<String> rows = ModelSummary.of(file).unsupported().stream()
            .map(u -> u.subject() + " " + u.where() + " " + u.count() + " " + u.reason()).toList();
        assertEquals(List.of(
            "com.example.Mystery node 'mystery' 1 unsupported domain",
            "Cast node 'to_string' 1 unsupported attribute or input",
            "- tensor 'flags' 1 unsupported tensor type"), rows);
        String text = ModelSummary.of(file).render();
        assertTrue(text.contains("Cast node 'to_string': casting to string is not supported"), text);
        assertTrue(text.contains("output 'flags' is declared string, which byodt does not support"), text);
    }

    @Test
    void aModelWithoutProblemsSaysSo() {
        Path file = write(dir, "fine.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addOutput(tensor("y", FLOAT, 2L))
            .addNode(node("TestAdd", "a", List.of("x", "x"), List.of("y")))));
        ModelSummary s = ModelSummary.of(file);
        assertTrue(s.unsupported().isEmpty());
        assertTrue(s.render().contains("every operator, weight and input is supported"), s.render());
    }

    @Test
    void summarisesANodeTestModel() {
        Path conv = NODE_TESTS.resolve("test_conv_with_strides_padding/model.onnx");
        ModelSummary s = ModelSummary.of(conv);
        assertEquals(List.of(new ModelSummary.TensorInfo("x", "float32", "1x1x7x5"), new ModelSummary.TensorInfo("W", "float32", "1x1x3x3")),
            s.inputs());
        assertEquals(List.of(new ModelSummary.TensorInfo("y", "float32", "1x1x4x3")), s.outputs());
        assertEquals(Map.of("Conv", 1), s.operators());
        assertEquals(0, s.parameterCount());
        boolean convMissing = Operators.lookup("Conv") == null;
        assertEquals(convMissing, s.unsupported().stream().anyMatch(u -> u.subject().equals("Conv") && u.reason().equals("not implemented")));
    }

    @Test
    void unreadableFilesAreStillErrors() {
        assertThrows(ByodtException.class, () -> ModelSummary.of(dir.resolve("missing.onnx")));
    }
}
