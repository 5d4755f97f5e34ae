package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.onnx.Onnx;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One ONNX node test case (model.onnx with a single node, test_data_set_0/input_N.pb and output_N.pb), read
 * with the generated protobuf classes into the compiler's graph model. A test-only reader: it keeps to what
 * the node tests use, so the operators can be checked before and independently of the model loader.
 *
 * <p>Integer inputs (the axes of a reduction, say) are made compile-time constants, as they are in real
 * models, where they are initializers or Constant outputs.
 */
record OnnxNodeCase(String name, Node node, List<Tensor> inputs, List<Tensor> expected, String unsupportedType) {

    /** The op_type of the case's only node, or "" when the model has several nodes. */
    static String singleOpType(Path dir) {
        Onnx.GraphProto graph = readModel(dir).getGraph();
        return graph.getNodeCount() == 1 ? graph.getNode(0).getOpType() : "";
    }

    static OnnxNodeCase read(Path dir) {
        Onnx.ModelProto model = readModel(dir);
        Onnx.GraphProto graph = model.getGraph();
        Onnx.NodeProto proto = graph.getNode(0);
        String unsupported = null;
        Map<String, Value> values = new HashMap<>();
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < graph.getInputCount(); i++) {
            Onnx.ValueInfoProto info = graph.getInput(i);
            int code = info.getType().getTensorType().getElemType();
            Value value = new Value(info.getName());
            values.put(info.getName(), value);
            if (ElementType.fromOnnx(code) == null) {
                unsupported = ElementType.onnxName(code);
                inputs.add(null);
                continue;
            }
            Tensor data = tensor(readTensor(dir.resolve("test_data_set_0/input_" + i + ".pb")));
            if (data.type().isInteger()) value.setConstant(data);
            else value.setType(new TensorType(data.type(), data.shape()));
            inputs.add(data);
        }
        for (Onnx.TensorProto init : graph.getInitializerList()) {
            Value value = values.computeIfAbsent(init.getName(), Value::new);
            value.setConstant(tensor(init));
        }
        List<Tensor> expected = new ArrayList<>();
        for (int i = 0; i < graph.getOutputCount(); i++) {
            Onnx.TensorProto out = readTensor(dir.resolve("test_data_set_0/output_" + i + ".pb"));
            if (ElementType.fromOnnx(out.getDataType()) == null) unsupported = ElementType.onnxName(out.getDataType());
            else expected.add(tensor(out));
        }
        List<Value> nodeInputs = new ArrayList<>();
        List<Tensor> kernelInputs = new ArrayList<>();
        for (String in : proto.getInputList()) {
            nodeInputs.add(in.isEmpty() ? null : values.get(in));
            int graphIndex = indexOf(graph.getInputList(), in);
            kernelInputs.add(graphIndex < 0 ? (in.isEmpty() ? null : values.get(in).constant()) : inputs.get(graphIndex));
        }
        List<Value> outputs = proto.getOutputList().stream().map(Value::new).toList();
        Map<String, Attribute> attributes = new LinkedHashMap<>();
        for (Onnx.AttributeProto a : proto.getAttributeList()) attributes.put(a.getName(), attribute(a));
        int opset = model.getOpsetImportList().stream()
            .filter(o -> o.getDomain().isEmpty() || o.getDomain().equals("ai.onnx"))
            .mapToInt(o -> (int) o.getVersion()).findFirst().orElseThrow();
        Node node = new Node(proto.getName().isEmpty() ? dir.getFileName().toString() : proto.getName(), proto.getOpType(),
            proto.getDomain(), opset, nodeInputs, outputs, attributes);
        return new OnnxNodeCase(dir.getFileName().toString(), node, kernelInputs, expected, unsupported);
    }

    private static int indexOf(List<Onnx.ValueInfoProto> infos, String name) {
        for (int i = 0; i < infos.size(); i++) if (infos.get(i).getName().equals(name)) return i;
        return -1;
    }

    private static Attribute attribute(Onnx.AttributeProto a) {
        return switch (a.getType()) {
            case FLOAT -> new Attribute.FloatAttr(a.getF());
            case INT -> new Attribute.IntAttr(a.getI());
            case STRING -> new Attribute.StringAttr(a.getS().toStringUtf8());
            case FLOATS -> {
                float[] f = new float[a.getFloatsCount()];
                for (int i = 0; i < f.length; i++) f[i] = a.getFloats(i);
                yield new Attribute.FloatsAttr(f);
            }
            case INTS -> new Attribute.IntsAttr(a.getIntsList().stream().mapToLong(Long::longValue).toArray());
            case TENSOR -> new Attribute.TensorAttr(tensor(a.getT()));
            default -> new Attribute.Unsupported(a.getType().name());
        };
    }

    private static Tensor tensor(Onnx.TensorProto proto) {
        ElementType type = ElementType.fromOnnx(proto.getDataType());
        long[] shape = proto.getDimsList().stream().mapToLong(Long::longValue).toArray();
        Tensor t = Tensor.zeros(type, shape);
        int count = (int) t.elementCount();
        ByteBuffer raw = proto.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        boolean hasRaw = proto.hasRawData();
        for (int i = 0; i < count; i++) {
            switch (type) {
                case FLOAT32 -> t.setFloat(i, hasRaw ? raw.getFloat(4 * i) : proto.getFloatData(i));
                case INT32 -> t.setLong(i, hasRaw ? raw.getInt(4 * i) : proto.getInt32Data(i));
                case INT64 -> t.setLong(i, hasRaw ? raw.getLong(8 * i) : proto.getInt64Data(i));
            }
        }
        return t;
    }

    private static Onnx.ModelProto readModel(Path dir) {
        try (InputStream in = Files.newInputStream(dir.resolve("model.onnx"))) {
            return Onnx.ModelProto.parseFrom(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + dir.resolve("model.onnx"), e);
        }
    }

    private static Onnx.TensorProto readTensor(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return Onnx.TensorProto.parseFrom(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }
}
