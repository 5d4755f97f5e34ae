package dev.byodt.compiler.onnx;

import dev.byodt.onnx.Onnx.AttributeProto;
import dev.byodt.onnx.Onnx.GraphProto;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.NodeProto;
import dev.byodt.onnx.Onnx.OperatorSetIdProto;
import dev.byodt.onnx.Onnx.TensorProto;
import dev.byodt.onnx.Onnx.TensorShapeProto;
import dev.byodt.onnx.Onnx.TypeProto;
import dev.byodt.onnx.Onnx.ValueInfoProto;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Builds small ONNX models for front-end tests, the way an exporter would write them. */
final class Models {
    static final int FLOAT = 1, UINT8 = 2, INT16 = 5, INT64 = 7, STRING = 8, BOOL = 9, FLOAT16 = 10, DOUBLE = 11, COMPLEX64 = 14;
    /** The ONNX backend node cases, for tests that need real exported models. */
    static final Path NODE_TESTS = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));

    private Models() {}

    /** A tensor ValueInfo; each dim is a Long (fixed), a String (symbolic) or null (unknown). */
    static ValueInfoProto tensor(String name, int elemType, Object... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (Object d : dims) {
            TensorShapeProto.Dimension.Builder dim = TensorShapeProto.Dimension.newBuilder();
            if (d instanceof Number n) dim.setDimValue(n.longValue());
            else if (d instanceof String s) dim.setDimParam(s);
            shape.addDim(dim);
        }
        return ValueInfoProto.newBuilder().setName(name)
            .setType(TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(elemType).setShape(shape)))
            .build();
    }

    static NodeProto node(String opType, String name, List<String> inputs, List<String> outputs, AttributeProto... attributes) {
        return NodeProto.newBuilder().setOpType(opType).setName(name).addAllInput(inputs).addAllOutput(outputs)
            .addAllAttribute(List.of(attributes)).build();
    }

    static AttributeProto ints(String name, long... values) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
        for (long v : values) a.addInts(v);
        return a.build();
    }

    static AttributeProto floats(String name, float... values) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.FLOATS);
        for (float v : values) a.addFloats(v);
        return a.build();
    }

    static AttributeProto intAttr(String name, long value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INT).setI(value).build();
    }

    static AttributeProto floatAttr(String name, float value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.FLOAT).setF(value).build();
    }

    static AttributeProto tensorAttr(String name, TensorProto value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.TENSOR).setT(value).build();
    }

    static TensorProto floatTensor(String name, long[] dims, float... values) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(FLOAT);
        for (long d : dims) t.addDims(d);
        for (float v : values) t.addFloatData(v);
        return t.build();
    }

    static TensorProto longTensor(String name, long[] dims, long... values) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(INT64);
        for (long d : dims) t.addDims(d);
        for (long v : values) t.addInt64Data(v);
        return t.build();
    }

    static GraphProto.Builder graph() { return GraphProto.newBuilder().setName("g"); }

    /** IR 8 with the default operator set at version 13. */
    static ModelProto model(GraphProto.Builder graph) { return model(graph, 13); }

    /** IR 8 with the default operator set at {@code opset}. */
    static ModelProto model(GraphProto.Builder graph, long opset) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("byodt-tests").setProducerVersion("1")
            .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).setGraph(graph).build();
    }

    static Path write(Path dir, String name, ModelProto model) {
        try {
            return Files.write(dir.resolve(name), model.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
