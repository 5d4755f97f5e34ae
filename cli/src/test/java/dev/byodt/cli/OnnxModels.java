package dev.byodt.cli;

import com.google.protobuf.ByteString;
import dev.byodt.onnx.Onnx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small ONNX models written by hand, malformed on purpose where a test needs it. */
final class OnnxModels {
    static final int FLOAT = 1, INT64 = 7, STRING = 8;

    private final Onnx.GraphProto.Builder graph = Onnx.GraphProto.newBuilder().setName("g");
    private long opset = 17;

    static OnnxModels graph() { return new OnnxModels(); }

    OnnxModels opset(long version) {
        opset = version;
        return this;
    }

    OnnxModels input(String name, int elementType, long... dims) {
        graph.addInput(valueInfo(name, elementType, dims));
        return this;
    }

    /** An input whose dimensions are each a Long (fixed) or a String (symbolic, named). */
    OnnxModels symbolicInput(String name, int elementType, Object... dims) {
        Onnx.TensorShapeProto.Builder shape = Onnx.TensorShapeProto.newBuilder();
        for (Object d : dims) {
            Onnx.TensorShapeProto.Dimension.Builder dim = Onnx.TensorShapeProto.Dimension.newBuilder();
            if (d instanceof String symbol) dim.setDimParam(symbol);
            else dim.setDimValue((Long) d);
            shape.addDim(dim);
        }
        graph.addInput(Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
            .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(elementType).setShape(shape))));
        return this;
    }

    OnnxModels output(String name, int elementType, long... dims) {
        graph.addOutput(valueInfo(name, elementType, dims));
        return this;
    }

    /** An output declared with its element type only. */
    OnnxModels output(String name) {
        graph.addOutput(Onnx.ValueInfoProto.newBuilder().setName(name)
            .setType(Onnx.TypeProto.newBuilder().setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(FLOAT))));
        return this;
    }

    /** A value_info: the type the model declares for a tensor between nodes. */
    OnnxModels declared(String name, int elementType, long... dims) {
        graph.addValueInfo(valueInfo(name, elementType, dims));
        return this;
    }

    OnnxModels node(Onnx.NodeProto.Builder node) {
        graph.addNode(node);
        return this;
    }

    /** An initializer of the given shape, every element {@code value}. */
    OnnxModels floats(String name, float value, long... dims) {
        long count = 1;
        for (long d : dims) count *= d;
        ByteBuffer data = ByteBuffer.allocate(Math.toIntExact(count * Float.BYTES)).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < count; i++) data.putFloat(value);
        graph.addInitializer(tensor(name, FLOAT, dims).setRawData(ByteString.copyFrom(data.array())));
        return this;
    }

    /** An initializer of the given shape holding {@code values}, in row-major order. */
    OnnxModels floatValues(String name, long[] dims, float... values) {
        ByteBuffer data = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) data.putFloat(v);
        graph.addInitializer(tensor(name, FLOAT, dims).setRawData(ByteString.copyFrom(data.array())));
        return this;
    }

    OnnxModels longs(String name, long... values) {
        ByteBuffer data = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) data.putLong(v);
        graph.addInitializer(tensor(name, INT64, values.length).setRawData(ByteString.copyFrom(data.array())));
        return this;
    }

    /** An initializer that declares its dims and holds no data at all. */
    OnnxModels declaredOnly(String name, long... dims) {
        graph.addInitializer(tensor(name, FLOAT, dims));
        return this;
    }

    Path write(Path file) throws IOException {
        Onnx.ModelProto model = Onnx.ModelProto.newBuilder().setIrVersion(8)
            .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset))
            .setGraph(graph).build();
        return Files.write(file, model.toByteArray());
    }

    static Onnx.NodeProto.Builder node(String opType, String name, String[] inputs, String... outputs) {
        Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder().setOpType(opType).setName(name);
        for (String input : inputs) node.addInput(input);
        for (String output : outputs) node.addOutput(output);
        return node;
    }

    static Onnx.AttributeProto ints(String name, long... values) {
        Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long v : values) a.addInts(v);
        return a.build();
    }

    static Onnx.AttributeProto integer(String name, long value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INT).setI(value).build();
    }

    private static Onnx.TensorProto.Builder tensor(String name, int elementType, long... dims) {
        Onnx.TensorProto.Builder t = Onnx.TensorProto.newBuilder().setName(name).setDataType(elementType);
        for (long d : dims) t.addDims(d);
        return t;
    }

    private static Onnx.ValueInfoProto valueInfo(String name, int elementType, long... dims) {
        Onnx.TensorShapeProto.Builder shape = Onnx.TensorShapeProto.newBuilder();
        for (long d : dims) shape.addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
            .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(elementType).setShape(shape))).build();
    }
}
