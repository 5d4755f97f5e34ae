package dev.byodt.compiler.onnx;

import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.ops.TestOperators;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.OperatorSetIdProto;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.onnx.Models.COMPLEX64;
import static dev.byodt.compiler.onnx.Models.FLOAT;
import static dev.byodt.compiler.onnx.Models.INT64;
import static dev.byodt.compiler.onnx.Models.NODE_TESTS;
import static dev.byodt.compiler.onnx.Models.floatAttr;
import static dev.byodt.compiler.onnx.Models.floatTensor;
import static dev.byodt.compiler.onnx.Models.floats;
import static dev.byodt.compiler.onnx.Models.graph;
import static dev.byodt.compiler.onnx.Models.intAttr;
import static dev.byodt.compiler.onnx.Models.ints;
import static dev.byodt.compiler.onnx.Models.longTensor;
import static dev.byodt.compiler.onnx.Models.model;
import static dev.byodt.compiler.onnx.Models.node;
import static dev.byodt.compiler.onnx.Models.tensor;
import static dev.byodt.compiler.onnx.Models.tensorAttr;
import static dev.byodt.compiler.onnx.Models.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnnxLoaderTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void registerTestOperators() {
        TestOperators.install();
    }

    /** y = x + x with a symbolic batch dimension. */
    private Path addModel() {
        return write(dir, "add.onnx", model(graph()
            .addInput(tensor("x", FLOAT, "N", 3L))
            .addOutput(tensor("y", FLOAT, "N", 3L))
            .addNode(node("TestAdd", "add", List.of("x", "x"), List.of("y")))));
    }

    @Test
    void symbolicDimensionsDefaultToOneOrTakeTheGivenShape() {
        Graph graph = OnnxLoader.load(addModel());
        assertEquals(1, graph.inputs().size());
        assertEquals(new TensorType(ElementType.FLOAT32, new long[] {1, 3}), graph.inputs().getFirst().type());
        assertEquals(new TensorType(ElementType.FLOAT32, new long[] {1, 3}), graph.outputs().getFirst().type());
        assertEquals(1, graph.nodes().size());
        Node add = graph.nodes().getFirst();
        assertSame(graph.inputs().getFirst(), add.input(0));
        assertSame(graph.outputs().getFirst(), add.output(0));
        assertEquals(13, add.opsetVersion());
        assertEquals("", add.domain());

        Graph four = OnnxLoader.load(addModel(), Map.of("x", new long[] {4, 3}));
        assertArrayEquals(new long[] {4, 3}, four.outputs().getFirst().type().shape());
    }

    @Test
    void shapesThatDisagreeWithTheModelAreErrors() {
        Path file = addModel();
        ByodtException rank = assertThrows(ByodtException.class, () -> OnnxLoader.load(file, Map.of("x", new long[] {4})));
        assertEquals("shape 4 given for input 'x' of " + file + " has rank 1, but the model's input has rank 2 (Nx3)",
            rank.getMessage());
        ByodtException fixed = assertThrows(ByodtException.class, () -> OnnxLoader.load(file, Map.of("x", new long[] {4, 5})));
        assertEquals("shape 4x5 given for input 'x' of " + file + " disagrees with the model's Nx3 in dimension 1",
            fixed.getMessage());
        ByodtException unknown = assertThrows(ByodtException.class, () -> OnnxLoader.load(file, Map.of("z", new long[] {1})));
        assertEquals("a shape is given for 'z', which is not an input of " + file + " (its inputs: x)", unknown.getMessage());
        assertThrows(ByodtException.class, () -> OnnxLoader.load(file, Map.of("x", new long[] {0, 3})));
    }

    /** Shape -> (+ Constant) -> Reshape folds to one Reshape whose target shape is a constant. */
    @Test
    void shapeComputationsFoldAtCompileTime() {
        Path file = write(dir, "reshape.onnx", model(graph()
            .addInput(tensor("in/x:0", FLOAT, 2L, 3L, 4L))
            .addOutput(tensor("y", FLOAT, 2L, 4L, 3L))
            .addNode(node("TestShape", "shape", List.of("in/x:0"), List.of("s")))
            .addNode(node("Constant", "delta", List.of(), List.of("d"), ints("value_ints", 0, 1, -1)))
            .addNode(node("TestAdd", "target", List.of("s", "d"), List.of("t")))
            .addNode(node("TestReshape", "reshape", List.of("in/x:0", "t"), List.of("y")))));
        Graph graph = OnnxLoader.load(file);
        assertEquals(List.of("reshape"), graph.nodes().stream().map(Node::name).toList());
        Value target = graph.nodes().getFirst().input(1);
        assertTrue(target.isConstant());
        assertArrayEquals(new long[] {2, 4, 3}, target.constant().toLongArray());
        assertArrayEquals(new long[] {2, 4, 3}, graph.outputs().getFirst().type().shape());
        assertEquals("in/x:0", graph.inputs().getFirst().name());
    }

    /** The library's own shape operators fold the same way: x flattened to [x.shape[0], -1]. */
    @Test
    void shapeSubgraphOfLibraryOperatorsFoldsIntoReshape() {
        Path file = write(dir, "flatten.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L, 3L, 4L))
            .addOutput(tensor("y", FLOAT, 2L, 12L))
            .addInitializer(longTensor("zero", new long[0], 0))
            .addInitializer(longTensor("axes", new long[] {1}, 0))
            .addInitializer(longTensor("minusOne", new long[] {1}, -1))
            .addNode(node("Shape", "shape", List.of("x"), List.of("s")))
            .addNode(node("Gather", "first", List.of("s", "zero"), List.of("n")))
            .addNode(node("Unsqueeze", "vector", List.of("n", "axes"), List.of("nv")))
            .addNode(node("Concat", "target", List.of("nv", "minusOne"), List.of("t"), intAttr("axis", 0)))
            .addNode(node("Reshape", "reshape", List.of("x", "t"), List.of("y")))));
        Graph graph = OnnxLoader.load(file);
        assertEquals(List.of("reshape"), graph.nodes().stream().map(Node::name).toList());
        assertArrayEquals(new long[] {2, -1}, graph.nodes().getFirst().input(1).constant().toLongArray());
        assertArrayEquals(new long[] {2, 12}, graph.outputs().getFirst().type().shape());
        float[] values = new float[24];
        for (int i = 0; i < values.length; i++) values[i] = i;
        Tensor y = GraphInterpreter.run(graph, List.of(Tensor.ofFloats(new long[] {2, 3, 4}, values))).getFirst();
        assertArrayEquals(values, y.toFloatArray());
    }

    /** Constant arithmetic on floats folds too, and a constant graph output keeps its value. */
    @Test
    void constantOutputsAreKept() {
        Path file = write(dir, "const.onnx", model(graph()
            .addOutput(tensor("z", FLOAT, 2L))
            .addInitializer(floatTensor("w", new long[] {2}, 1.5f, -2f))
            .addNode(node("Constant", "c", List.of(), List.of("c"), floats("value_floats", 0.25f, 4f)))
            .addNode(node("TestAdd", "sum", List.of("w", "c"), List.of("z")))));
        Graph graph = OnnxLoader.load(file);
        assertTrue(graph.nodes().isEmpty());
        assertTrue(graph.inputs().isEmpty());
        assertArrayEquals(new float[] {1.75f, 2f}, graph.outputs().getFirst().constant().toFloatArray());
    }

    @Test
    void everyKindOfConstantNode() {
        Path file = write(dir, "constants.onnx", model(graph()
            .addOutput(tensor("f", FLOAT)).addOutput(tensor("fs", FLOAT, 2L)).addOutput(tensor("i", INT64))
            .addOutput(tensor("is", INT64, 3L)).addOutput(tensor("t", FLOAT, 1L, 2L))
            .addNode(node("Constant", "", List.of(), List.of("f"), floatAttr("value_float", 0.5f)))
            .addNode(node("Constant", "", List.of(), List.of("fs"), floats("value_floats", 1f, 2f)))
            .addNode(node("Constant", "", List.of(), List.of("i"), intAttr("value_int", -7)))
            .addNode(node("Constant", "", List.of(), List.of("is"), ints("value_ints", 1, 2, 3)))
            .addNode(node("Constant", "", List.of(), List.of("t"),
                tensorAttr("value", floatTensor("", new long[] {1, 2}, 3f, 4f))))));
        List<Value> out = OnnxLoader.load(file).outputs();
        assertEquals(new TensorType(ElementType.FLOAT32, new long[] {}), out.get(0).type());
        assertEquals(0.5f, out.get(0).constant().getFloat(0));
        assertArrayEquals(new float[] {1f, 2f}, out.get(1).constant().toFloatArray());
        assertEquals(new TensorType(ElementType.INT64, new long[] {}), out.get(2).type());
        assertEquals(-7, out.get(2).constant().getLong(0));
        assertArrayEquals(new long[] {1, 2, 3}, out.get(3).constant().toLongArray());
        assertArrayEquals(new long[] {1, 2}, out.get(4).type().shape());
        assertArrayEquals(new float[] {3f, 4f}, out.get(4).constant().toFloatArray());
    }

    /** IR 3 lists weights among the graph inputs; they stay constants, not run-time inputs. */
    @Test
    void initializersListedAsInputsAreWeights() {
        ModelProto ir3 = model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addInput(tensor("w", FLOAT, 2L))
            .addOutput(tensor("y", FLOAT, 2L))
            .addInitializer(floatTensor("w", new long[] {2}, 1f, 2f))
            .addNode(node("TestAdd", "add", List.of("x", "w"), List.of("y"))))
            .toBuilder().setIrVersion(3).clearOpsetImport()
            .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("ai.onnx").setVersion(7)).build();
        Graph graph = OnnxLoader.load(write(dir, "ir3.onnx", ir3));
        assertEquals(List.of("x"), graph.inputs().stream().map(Value::name).toList());
        Node add = graph.nodes().getFirst();
        assertTrue(add.input(1).isConstant());
        assertEquals(7, add.opsetVersion());
        ByodtException e = assertThrows(ByodtException.class,
            () -> OnnxLoader.load(dir.resolve("ir3.onnx"), Map.of("w", new long[] {2})));
        assertTrue(e.getMessage().contains("'w', which is a weight"), e.getMessage());
    }

    @Test
    void omittedOptionalInputsAreNullAndOmittedOutputsAreSkippedOrKeepTheirPlace() {
        Path file = write(dir, "optional.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L))
            .addOutput(tensor("y", FLOAT, 2L)).addOutput(tensor("second", FLOAT, 2L))
            .addNode(node("TestAdd", "add", List.of("x", "x", ""), List.of("y", "")))
            .addNode(node("TestPair", "pair", List.of("y"), List.of("", "second")))));
        Graph graph = OnnxLoader.load(file);
        Node add = graph.nodes().get(0);
        assertEquals(3, add.inputCount());
        assertNull(add.input(2));
        assertEquals(1, add.outputs().size());
        Node pair = graph.nodes().get(1);
        assertEquals(2, pair.outputs().size());
        assertArrayEquals(new long[] {2}, pair.output(0).type().shape());
        assertSame(graph.outputs().get(1), pair.output(1));
    }

    @Test
    void unsupportedOperatorsAreListedInOneLine() {
        Path file = write(dir, "unsupported.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L))
            .addOutput(tensor("y", FLOAT, 2L))
            .addNode(node("Foo", "a", List.of("x"), List.of("a")))
            .addNode(node("Bar", "b", List.of("a"), List.of("b")))
            .addNode(node("Foo", "c", List.of("b"), List.of("c")))
            .addNode(node("TestAdd", "d", List.of("c", "c"), List.of("y")))
            .addNode(node("FusedConv", "e", List.of("x"), List.of("e")).toBuilder().setDomain("com.microsoft").build())));
        ByodtException e = assertThrows(ByodtException.class, () -> OnnxLoader.load(file));
        assertEquals("model " + file + " uses unsupported operators: Foo (node 'a' and 1 more), Bar (node 'b'), "
            + "com.microsoft.FusedConv (node 'e')", e.getMessage());
    }

    @Test
    void anOperatorRefusingItsAttributesIsReportedByNode() {
        Path file = write(dir, "rejects.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L))
            .addOutput(tensor("y", FLOAT, 2L))
            .addNode(node("TestRejects", "r", List.of("x"), List.of("y"),
                Models.tensorAttr("unused", floatTensor("", new long[] {1}, 1f))))));
        ByodtException e = assertThrows(ByodtException.class, () -> OnnxLoader.load(file));
        assertEquals("TestRejects node 'r': attribute mode=none is not supported (only 'none' is implemented)", e.getMessage());
    }

    @Test
    void unsupportedElementTypesNameTheTensor() {
        String supported = "(float32, int32, int64, bool, int8, uint8, int16, uint16, uint32, uint64, float16, bfloat16, double, "
            + "float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1, float8e8m0, uint4, int4, uint2, int2)";
        Path input = write(dir, "complex-input.onnx", model(graph()
            .addInput(tensor("x", COMPLEX64, 2L)).addOutput(tensor("y", COMPLEX64, 2L))
            .addNode(node("TestAdd", "add", List.of("x", "x"), List.of("y")))));
        assertEquals("input 'x' of " + input + " has element type complex64, which byodt does not support " + supported,
            assertThrows(ByodtException.class, () -> OnnxLoader.load(input)).getMessage());
        Path weight = write(dir, "complex-weight.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 1L)).addOutput(tensor("y", FLOAT, 1L))
            .addInitializer(dev.byodt.onnx.Onnx.TensorProto.newBuilder().setName("w").setDataType(COMPLEX64).addDims(1).addFloatData(1).addFloatData(0))
            .addNode(node("TestAdd", "add", List.of("x", "w"), List.of("y")))));
        assertEquals("initializer 'w' of " + weight + " has element type complex64, which byodt does not support " + supported,
            assertThrows(ByodtException.class, () -> OnnxLoader.load(weight)).getMessage());
        Path output = write(dir, "complex-output.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 1L)).addOutput(tensor("y", COMPLEX64, 1L))
            .addNode(node("TestAdd", "add", List.of("x", "x"), List.of("y")))));
        assertEquals("graph output 'y' of " + output + " has element type complex64, which byodt does not support " + supported,
            assertThrows(ByodtException.class, () -> OnnxLoader.load(output)).getMessage());
    }

    @Test
    void filesThatAreNotModelsAreOneLineErrors() throws IOException {
        Path missing = dir.resolve("missing.onnx");
        assertEquals("no such file: " + missing, assertThrows(ByodtException.class, () -> OnnxLoader.load(missing)).getMessage());

        Path text = Files.writeString(dir.resolve("readme.onnx"), "ir_version: 8\ngraph { name: \"g\" }\n");
        ByodtException notOnnx = assertThrows(ByodtException.class, () -> OnnxLoader.load(text));
        assertTrue(notOnnx.getMessage().startsWith(text + " is not an ONNX model ("), notOnnx.getMessage());

        byte[] real = Files.readAllBytes(NODE_TESTS.resolve("test_conv_with_strides_padding/model.onnx"));
        Path half = Files.write(dir.resolve("half.onnx"), Arrays.copyOf(real, real.length / 2));
        ByodtException truncated = assertThrows(ByodtException.class, () -> OnnxLoader.load(half));
        assertTrue(truncated.getMessage().startsWith(half + " is not an ONNX model ("), truncated.getMessage());
        assertFalse(truncated.getMessage().contains("\n"));

        Path ir2 = write(dir, "ir2.onnx", model(graph()).toBuilder().setIrVersion(2).build());
        assertEquals(ir2 + " has IR version 2; byodt reads IR versions 3 to 13",
            assertThrows(ByodtException.class, () -> OnnxLoader.load(ir2)).getMessage());
        Path ir14 = write(dir, "ir14.onnx", model(graph()).toBuilder().setIrVersion(14).build());
        assertThrows(ByodtException.class, () -> OnnxLoader.load(ir14));
        Path noGraph = write(dir, "nograph.onnx", model(graph()).toBuilder().clearGraph().build());
        assertEquals(noGraph + " has no graph", assertThrows(ByodtException.class, () -> OnnxLoader.load(noGraph)).getMessage());
    }

    @Test
    void malformedGraphsAreErrors() {
        Path outOfOrder = write(dir, "order.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addOutput(tensor("z", FLOAT, 2L))
            .addNode(node("TestAdd", "second", List.of("y", "y"), List.of("z")))
            .addNode(node("TestAdd", "first", List.of("x", "x"), List.of("y")))));
        assertEquals("TestAdd node 'second' of " + outOfOrder + " uses 'y' before it is defined (ONNX requires nodes in "
            + "topological order)", assertThrows(ByodtException.class, () -> OnnxLoader.load(outOfOrder)).getMessage());

        Path undefined = write(dir, "undefined.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addOutput(tensor("z", FLOAT, 2L))
            .addNode(node("TestAdd", "", List.of("x", "ghost"), List.of("z")))));
        assertEquals("TestAdd node 'TestAdd_0' of " + undefined + " uses 'ghost', which nothing in the model defines",
            assertThrows(ByodtException.class, () -> OnnxLoader.load(undefined)).getMessage());

        Path twice = write(dir, "twice.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addOutput(tensor("x", FLOAT, 2L))
            .addNode(node("TestAdd", "a", List.of("x", "x"), List.of("x")))));
        assertThrows(ByodtException.class, () -> OnnxLoader.load(twice));

        Path noOutput = write(dir, "nooutput.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addOutput(tensor("nowhere", FLOAT, 2L))
            .addNode(node("TestAdd", "a", List.of("x", "x"), List.of("y")))));
        assertEquals("graph output 'nowhere' of " + noOutput + " is not defined by any node, input or initializer",
            assertThrows(ByodtException.class, () -> OnnxLoader.load(noOutput)).getMessage());

        Path noOpset = write(dir, "noopset.onnx", model(graph()
            .addInput(tensor("x", FLOAT, 2L)).addOutput(tensor("y", FLOAT, 2L))
            .addNode(node("TestAdd", "a", List.of("x", "x"), List.of("y")))).toBuilder().clearOpsetImport().build());
        assertThrows(ByodtException.class, () -> OnnxLoader.load(noOpset));
    }

    @Test
    void aRealNodeTestModelParsesWithItsInputTypes() {
        Path conv = NODE_TESTS.resolve("test_conv_with_strides_padding/model.onnx");
        GraphImporter.Result result = new GraphImporter(conv, ModelReader.read(conv)).run(Map.of(), Map.of());
        List<Value> inputs = result.graph().inputs();
        assertEquals(List.of("x", "W"), inputs.stream().map(Value::name).toList());
        assertEquals(new TensorType(ElementType.FLOAT32, new long[] {1, 1, 7, 5}), inputs.get(0).type());
        assertEquals(new TensorType(ElementType.FLOAT32, new long[] {1, 1, 3, 3}), inputs.get(1).type());
        Node convNode = result.graph().nodes().isEmpty() ? null : result.graph().nodes().getFirst();
        if (convNode != null) {
            assertArrayEquals(new long[] {1, 1, 4, 3}, convNode.output(0).type().shape());
        } else {
            assertEquals(ImportProblem.Kind.NOT_IMPLEMENTED, result.problems().getFirst().kind());
        }
    }
}
