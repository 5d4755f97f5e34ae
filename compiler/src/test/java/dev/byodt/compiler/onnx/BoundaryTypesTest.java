package dev.byodt.compiler.onnx;

import com.google.protobuf.ByteString;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.DataSetRun;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.conformance.TestCase;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.onnx.Onnx.TensorProto;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.onnx.Models.BOOL;
import static dev.byodt.compiler.onnx.Models.FLOAT;
import static dev.byodt.compiler.onnx.Models.FLOAT16;
import static dev.byodt.compiler.onnx.Models.INT64;
import static dev.byodt.compiler.onnx.Models.UINT8;
import static dev.byodt.compiler.onnx.Models.floatTensor;
import static dev.byodt.compiler.onnx.Models.graph;
import static dev.byodt.compiler.onnx.Models.intAttr;
import static dev.byodt.compiler.onnx.Models.model;
import static dev.byodt.compiler.onnx.Models.node;
import static dev.byodt.compiler.onnx.Models.tensor;
import static dev.byodt.compiler.onnx.Models.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A model whose inputs and outputs are float16, int64, bool and uint8: inside it the reals compute in the
 * chosen datatype and the integers in int64, and callers exchange the declared types, converted at the
 * boundary; the values are ones float16 and posit16 both hold exactly.
 */
class BoundaryTypesTest {
    @TempDir
    Path dir;

    /** y = float16(x + n), positive = (x + n > 0) and flag, q = uint8(n). */
    private Path boundaryModel() {
        return write(dir, "boundary.onnx", model(graph()
            .addInput(tensor("x", FLOAT16, 4L)).addInput(tensor("n", INT64, 4L)).addInput(tensor("flag", BOOL, 4L))
            .addOutput(tensor("y", FLOAT16, 4L)).addOutput(tensor("positive", BOOL, 4L)).addOutput(tensor("q", UINT8, 4L))
            .addInitializer(floatTensor("zero", new long[] {1}, 0))
            .addNode(node("Cast", "xf", List.of("x"), List.of("xf"), intAttr("to", FLOAT)))
            .addNode(node("Cast", "nf", List.of("n"), List.of("nf"), intAttr("to", FLOAT)))
            .addNode(node("Add", "s", List.of("xf", "nf"), List.of("s")))
            .addNode(node("Cast", "y", List.of("s"), List.of("y"), intAttr("to", FLOAT16)))
            .addNode(node("Greater", "gt", List.of("s", "zero"), List.of("gt")))
            .addNode(node("And", "positive", List.of("gt", "flag"), List.of("positive")))
            .addNode(node("Cast", "q", List.of("n"), List.of("q"), intAttr("to", UINT8)))));
    }

    private static final Tensor X = declared(ElementType.FLOAT16, 0.5, -2.25, 1.5, 3);
    private static final Tensor N = declared(ElementType.INT64, 1, 1, -5, 300);
    private static final Tensor FLAG = declared(ElementType.BOOL, 1, 1, 1, 0);

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16"})
    void callersExchangeTheDeclaredTypes(String datatype) {
        Graph graph = OnnxLoader.load(boundaryModel());
        assertEquals(List.of(ElementType.FLOAT32, ElementType.INT64, ElementType.BOOL),
            graph.inputs().stream().map(v -> v.type().elementType()).toList(), "the types computed in");
        List<Tensor> inputs = List.of(X, N, FLAG).stream().map(t -> t.convertedTo(t.type().computed())).toList();
        for (GraphExecutor executor : List.of(GraphInterpreter::run, GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype)))) {
            List<Tensor> outputs = graph.declaredOutputs(executor.run(graph, inputs));
            assertEquals(List.of(ElementType.FLOAT16, ElementType.BOOL, ElementType.UINT8), outputs.stream().map(Tensor::type).toList());
            assertArrayEquals(new double[] {1.5, -1.25, -3.5, 303}, doubles(outputs.get(0)));
            assertArrayEquals(new double[] {1, 0, 0, 0}, doubles(outputs.get(1)));
            assertArrayEquals(new double[] {1, 1, 251, 44}, doubles(outputs.get(2)), "uint8 wraps");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16"})
    void testDataOfTheDeclaredTypesReadsAndCompares(String datatype) throws IOException {
        Path set = Files.createDirectory(dir.resolve("test_data_set_0"));
        List<Tensor> inputs = List.of(X, N, FLAG);
        List<String> names = List.of("x", "n", "flag");
        for (int i = 0; i < inputs.size(); i++) TensorProtos.write(set.resolve("input_" + i + ".pb"), new NamedTensor(names.get(i), inputs.get(i)));
        TensorProtos.write(set.resolve("output_0.pb"), new NamedTensor("y", declared(ElementType.FLOAT16, 1.5, -1.25, -3.5, 303)));
        TensorProtos.write(set.resolve("output_1.pb"), new NamedTensor("positive", declared(ElementType.BOOL, 1, 0, 0, 0)));
        TensorProtos.write(set.resolve("output_2.pb"), new NamedTensor("q", declared(ElementType.UINT8, 1, 1, 251, 44)));
        List<DataSetRun.OutputCheck> checks = DataSetRun.run(boundaryModel(), Map.of(), Map.of(),
            CompileOptions.host().withDatatype(datatype), TestCase.readDataSet(set), 0, 0);
        assertEquals(3, checks.size());
        for (DataSetRun.OutputCheck check : checks) assertTrue(check.diff().withinTolerance(), check.name() + ": " + check.diff().describe());
    }

    /**
     * y = float8e5m2(float(x) * float(w)) without saturation, z = int4(int64(w) * 3), x float8e4m3fn, w an int4
     * weight packed in raw_data: [1, -8] is 0x81, [7, -1] is 0xF7.
     */
    private Path smallTypesModel() {
        int float8e4m3fn = ElementType.FLOAT8E4M3FN.onnxCode(), float8e5m2 = ElementType.FLOAT8E5M2.onnxCode();
        int int4 = ElementType.INT4.onnxCode();
        return write(dir, "small.onnx", model(graph()
            .addInput(tensor("x", float8e4m3fn, 4L)).addOutput(tensor("y", float8e5m2, 4L)).addOutput(tensor("z", int4, 4L))
            .addInitializer(TensorProto.newBuilder().setName("w").setDataType(int4).addDims(4)
                .setRawData(ByteString.copyFrom(new byte[] {(byte) 0x81, (byte) 0xF7})))
            .addInitializer(TensorProto.newBuilder().setName("three").setDataType(INT64).addDims(1).addInt64Data(3))
            .addNode(node("Cast", "xf", List.of("x"), List.of("xf"), intAttr("to", FLOAT)))
            .addNode(node("Cast", "wf", List.of("w"), List.of("wf"), intAttr("to", FLOAT)))
            .addNode(node("Mul", "p", List.of("xf", "wf"), List.of("p")))
            .addNode(node("Cast", "y", List.of("p"), List.of("y"), intAttr("to", float8e5m2), intAttr("saturate", 0)))
            .addNode(node("Cast", "wl", List.of("w"), List.of("wl"), intAttr("to", INT64)))
            .addNode(node("Mul", "t", List.of("wl", "three"), List.of("t")))
            .addNode(node("Cast", "z", List.of("t"), List.of("z"), intAttr("to", int4))), 21));
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16"})
    void eightFourAndTwoBitTypesCrossTheBoundaryAndCastsRoundInside(String datatype) {
        Graph graph = OnnxLoader.load(smallTypesModel());
        List<Tensor> inputs = List.of(declared(ElementType.FLOAT8E4M3FN, 0.5, -2, 448, 3).convertedTo(ElementType.FLOAT32));
        for (GraphExecutor executor : List.of(GraphInterpreter::run, GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype)))) {
            List<Tensor> outputs = graph.declaredOutputs(executor.run(graph, inputs));
            assertEquals(List.of(ElementType.FLOAT8E5M2, ElementType.INT4), outputs.stream().map(Tensor::type).toList());
            // 448 * 7 = 3136 rounds to 3072 = 1.5 * 2^11 in e5m2's two fraction bits.
            assertArrayEquals(new double[] {0.5, 16, 3072, -3}, doubles(outputs.get(0)));
            assertArrayEquals(new double[] {3, -8, 5, -3}, doubles(outputs.get(1)), "int4 wraps");
        }
    }

    private static Tensor declared(ElementType type, double... values) {
        Tensor t = Tensor.zeros(type, new long[] {values.length});
        for (int i = 0; i < values.length; i++) t.setDouble(i, values[i]);
        return t;
    }

    private static double[] doubles(Tensor t) {
        double[] out = new double[(int) t.elementCount()];
        for (int i = 0; i < out.length; i++) out[i] = t.getDouble(i);
        return out;
    }
}
