package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.onnx.Onnx;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.io.IOException;
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
 * A small test-only reader of ONNX models and TensorProto files, so the operators can be tested on the ONNX
 * node cases independently of the real loader. Like the loader it rejects element types byodt does not
 * have (ByodtException), turns initializers and Constant nodes into constant Values, and leaves graph
 * input types to be set from the test's input files.
 */
final class TestModels {
    private TestModels() {}

    /** The graph, and the op_type of every node the model has (Constant nodes included). */
    record Model(Graph graph, List<String> opTypes) {}

    static Model read(Path file) throws IOException {
        Onnx.ModelProto proto = Onnx.ModelProto.parseFrom(Files.readAllBytes(file));
        int opset = 1;
        for (Onnx.OperatorSetIdProto id : proto.getOpsetImportList()) {
            if (id.getDomain().isEmpty() || id.getDomain().equals("ai.onnx")) opset = (int) id.getVersion();
        }
        Onnx.GraphProto g = proto.getGraph();
        Map<String, Value> values = new HashMap<>();
        for (Onnx.TensorProto t : g.getInitializerList()) value(values, t.getName()).setConstant(tensor(t));
        for (Onnx.ValueInfoProto info : concat(g.getInputList(), g.getOutputList(), g.getValueInfoList())) checkType(info);
        List<Value> inputs = new ArrayList<>();
        for (Onnx.ValueInfoProto info : g.getInputList()) {
            Value v = value(values, info.getName());
            if (!v.isConstant()) inputs.add(v);
        }
        List<Node> nodes = new ArrayList<>();
        List<String> opTypes = new ArrayList<>();
        for (Onnx.NodeProto n : g.getNodeList()) {
            opTypes.add(n.getOpType());
            if (n.getOpType().equals("Constant")) {
                value(values, n.getOutput(0)).setConstant(constantOf(n));
                continue;
            }
            Map<String, Attribute> attributes = new LinkedHashMap<>();
            for (Onnx.AttributeProto a : n.getAttributeList()) attributes.put(a.getName(), attribute(a));
            List<Value> in = new ArrayList<>();
            for (String name : n.getInputList()) in.add(name.isEmpty() ? null : value(values, name));
            int outputCount = n.getOutputCount();
            while (outputCount > 0 && n.getOutput(outputCount - 1).isEmpty()) outputCount--;
            List<Value> out = new ArrayList<>();
            for (int i = 0; i < outputCount; i++) out.add(value(values, n.getOutput(i)));
            nodes.add(new Node(n.getName().isEmpty() ? n.getOutput(0) : n.getName(), n.getOpType(), n.getDomain(),
                opset, in, out, attributes));
        }
        List<Value> outputs = g.getOutputList().stream().map(info -> value(values, info.getName())).toList();
        return new Model(new Graph(g.getName(), inputs, outputs, nodes), opTypes);
    }

    static Tensor readTensor(Path file) throws IOException {
        return tensor(Onnx.TensorProto.parseFrom(Files.readAllBytes(file)));
    }

    static Tensor tensor(Onnx.TensorProto t) {
        ElementType type = ElementType.fromOnnx(t.getDataType());
        if (type == null) throw unsupported(t.getDataType(), t.getName());
        long[] shape = t.getDimsList().stream().mapToLong(Long::longValue).toArray();
        Tensor out = Tensor.zeros(type, shape);
        int n = (int) out.elementCount();
        if (!t.getRawData().isEmpty()) {
            ByteBuffer raw = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                switch (type) {
                    case FLOAT32 -> out.setFloat(i, raw.getFloat());
                    case INT32 -> out.setLong(i, raw.getInt());
                    case INT64 -> out.setLong(i, raw.getLong());
                }
            }
            return out;
        }
        for (int i = 0; i < n; i++) {
            switch (type) {
                case FLOAT32 -> out.setFloat(i, t.getFloatData(i));
                case INT32 -> out.setLong(i, t.getInt32Data(i));
                case INT64 -> out.setLong(i, t.getInt64Data(i));
            }
        }
        return out;
    }

    private static Tensor constantOf(Onnx.NodeProto n) {
        for (Onnx.AttributeProto a : n.getAttributeList()) {
            switch (a.getName()) {
                case "value" -> { return tensor(a.getT()); }
                case "value_float" -> { return Tensor.ofFloats(new long[0], new float[] {a.getF()}); }
                case "value_floats" -> {
                    float[] f = new float[a.getFloatsCount()];
                    for (int i = 0; i < f.length; i++) f[i] = a.getFloats(i);
                    return Tensor.ofFloats(new long[] {f.length}, f);
                }
                case "value_int" -> { return Tensor.ofLongs(new long[0], new long[] {a.getI()}); }
                case "value_ints" -> {
                    long[] l = a.getIntsList().stream().mapToLong(Long::longValue).toArray();
                    return Tensor.ofLongs(new long[] {l.length}, l);
                }
                default -> { }
            }
        }
        throw new ByodtException("Constant node '" + n.getName() + "' has no value this reader understands");
    }

    private static Attribute attribute(Onnx.AttributeProto a) {
        return switch (a.getType()) {
            case FLOAT -> new Attribute.FloatAttr(a.getF());
            case INT -> new Attribute.IntAttr(a.getI());
            case STRING -> new Attribute.StringAttr(a.getS().toStringUtf8());
            case TENSOR -> new Attribute.TensorAttr(tensor(a.getT()));
            case FLOATS -> {
                float[] f = new float[a.getFloatsCount()];
                for (int i = 0; i < f.length; i++) f[i] = a.getFloats(i);
                yield new Attribute.FloatsAttr(f);
            }
            case INTS -> new Attribute.IntsAttr(a.getIntsList().stream().mapToLong(Long::longValue).toArray());
            case STRINGS -> new Attribute.StringsAttr(a.getStringsList().stream().map(s -> s.toStringUtf8()).toList());
            default -> new Attribute.Unsupported(a.getType().name());
        };
    }

    private static void checkType(Onnx.ValueInfoProto info) {
        Onnx.TypeProto type = info.getType();
        if (!type.hasTensorType()) throw new ByodtException("tensor '" + info.getName() + "' is not a tensor (sequence, optional or map)");
        int code = type.getTensorType().getElemType();
        if (ElementType.fromOnnx(code) == null) throw unsupported(code, info.getName());
    }

    private static ByodtException unsupported(int code, String name) {
        return new ByodtException("tensor '" + name + "' has element type " + ElementType.onnxName(code) + ", which byodt does not support");
    }

    private static Value value(Map<String, Value> values, String name) {
        return values.computeIfAbsent(name, Value::new);
    }

    @SafeVarargs
    private static <T> List<T> concat(List<T>... lists) {
        List<T> out = new ArrayList<>();
        for (List<T> l : lists) out.addAll(l);
        return out;
    }
}
