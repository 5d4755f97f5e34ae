package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** One node built by hand, for the operator behaviours the ONNX node cases do not reach (old opsets, errors). */
final class NodeCase {
    /** custom[t16]16 (a test datatype: float32 rounded to its top 16 bits), every sum rounded. */
    static final CompileOptions T16 = CompileOptions.host()
        .withDatatypes(DatatypeChoice.float32().withDatatype("custom[t16]16").withAccumulation(AccumulationMode.DTYPE));

    private final String opType;
    private final int opset;
    private final Map<String, Attribute> attributes = new LinkedHashMap<>();
    private final List<Value> inputs = new ArrayList<>();
    private final List<Value> runtimeInputs = new ArrayList<>();
    private final List<Tensor> runtimeValues = new ArrayList<>();
    private int outputCount = 1;

    NodeCase(String opType, int opset) {
        this.opType = opType;
        this.opset = opset;
    }

    NodeCase attr(String name, Object value) {
        attributes.put(name, switch (value) {
            case Float f -> new Attribute.FloatAttr(f);
            case Long l -> new Attribute.IntAttr(l);
            case Integer i -> new Attribute.IntAttr(i);
            case String s -> new Attribute.StringAttr(s);
            case long[] l -> new Attribute.IntsAttr(l);
            case float[] f -> new Attribute.FloatsAttr(f);
            case String[] strings -> new Attribute.StringsAttr(List.of(strings));
            case Tensor t -> new Attribute.TensorAttr(t);
            default -> throw new IllegalArgumentException(value.toString());
        });
        return this;
    }

    /**
     * An input only known at run time. As the loader has it, the value keeps its own type as the declared one and
     * is fed in the type it is computed in (an int8 tensor as int32).
     */
    NodeCase input(Tensor value) {
        Value v = new Value("in" + inputs.size());
        v.setType(new TensorType(value.type().computed(), value.shape()));
        v.setDeclaredType(value.type());
        inputs.add(v);
        runtimeInputs.add(v);
        runtimeValues.add(value.convertedTo(value.type().computed()));
        return this;
    }

    /** An input known at compile time (a weight, or a folded value). */
    NodeCase constant(Tensor value) {
        Value v = new Value("c" + inputs.size());
        v.setConstant(value);
        inputs.add(v);
        return this;
    }

    NodeCase omitted() {
        inputs.add(null);
        return this;
    }

    NodeCase outputs(int count) {
        outputCount = count;
        return this;
    }

    /** Infers the types, then runs the node's kernel in the interpreter on the run-time inputs. */
    List<Tensor> run() { return run(GraphInterpreter::run); }

    /** Infers the types, then runs the one-node graph with this executor on the run-time inputs. */
    List<Tensor> run(GraphExecutor executor) {
        Node node = typedNode();
        return executor.run(new Graph("case", runtimeInputs, node.outputs(), List.of(node)), runtimeValues);
    }

    Tensor runOne() { return run().getFirst(); }

    /** Infers the types, then compiles the node with these options and runs it on the run-time inputs. */
    float[] compileAndRun(CompileOptions options) { return run(GraphExecutor.compiled(options)).getFirst().toFloatArray(); }

    /** The node's kernel, after shape inference. */
    Kernel kernel() {
        Map<Value, Buffer> buffers = new HashMap<>();
        return NodeLowering.lower(typedNode(), v -> buffers.computeIfAbsent(v,
            x -> new Buffer(x.name(), ScalarType.of(x.type().elementType()), x.type().shape())));
    }

    /** The node with the output types its operator infers, as the loader leaves every node. */
    private Node typedNode() {
        List<Value> outputs = new ArrayList<>();
        for (int k = 0; k < outputCount; k++) outputs.add(new Value("out" + k));
        Node node = new Node(opType.toLowerCase(), opType, "", opset, inputs, outputs, attributes);
        List<TensorType> types = Operators.lookup(opType).inferTypes(node);
        assertEquals(outputCount, types.size(), opType + " output types inferred");
        for (int k = 0; k < types.size(); k++) node.output(k).setType(types.get(k));
        return node;
    }

    /** The value of a float in custom[t16]16: its top 16 bits, rounded to nearest even on the bit pattern. */
    static float t16(float v) {
        int bits = Float.floatToRawIntBits(v);
        return Float.intBitsToFloat((bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000);
    }

    static Tensor floats(long[] shape, float... values) { return Tensor.ofFloats(shape, values); }

    static Tensor floats(float... values) { return Tensor.ofFloats(new long[] {values.length}, values); }

    static Tensor longs(long... values) { return Tensor.ofLongs(new long[] {values.length}, values); }

    static Tensor longs(long[] shape, long... values) { return Tensor.ofLongs(shape, values); }
}
