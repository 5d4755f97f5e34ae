package dev.byodt.compiler.onnx;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.compiler.ops.Operator;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.onnx.Onnx.AttributeProto;
import dev.byodt.onnx.Onnx.GraphProto;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.NodeProto;
import dev.byodt.onnx.Onnx.TensorProto;
import dev.byodt.onnx.Onnx.ValueInfoProto;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.MemoryLimit;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns a parsed model into a Graph: values for weights, inputs and node outputs; static types for all of
 * them, node by node in graph order; and compile-time evaluation of every node whose kernel reads only
 * constants, which folds shape computations (Shape, Gather, Concat feeding Reshape) and weight transforms.
 *
 * <p>Malformed models (a value used before it is defined, defined twice, an output nothing defines) are
 * errors at once. What byodt merely does not support is collected as {@link ImportProblem}s and the import
 * goes on around it, so that one run can list every unsupported operator; nodes that depend on an
 * unsupported one are left untyped, and only what can be checked without types is reported of them.
 */
final class GraphImporter {
    /** The import's outcome: the graph is complete only when there are no problems. */
    record Result(Graph graph, List<ImportProblem> problems) {}

    private final Path file;
    private final ModelProto model;
    private final Map<String, Long> opsets;
    private final Map<String, Value> values = new HashMap<>();
    /** Weights and inputs byodt cannot hold, with the reason; their consumers are reported against them. */
    private final Map<Value, String> unsupportedValues = new IdentityHashMap<>();
    private final Map<Value, Buffer> buffers = new IdentityHashMap<>();
    private final Map<Buffer, Value> valueOfBuffer = new IdentityHashMap<>();
    private final List<ImportProblem> problems = new ArrayList<>();
    private final Set<Node> skipped = Collections.newSetFromMap(new IdentityHashMap<>());
    /** ONNX element type codes of the tensors the model declares (value_info and graph outputs), by name. */
    private final Map<String, Integer> declaredElementTypes = new HashMap<>();

    GraphImporter(Path file, ModelProto model) {
        this.file = file;
        this.model = model;
        this.opsets = ModelReader.opsetImports(model);
    }

    Result run(Map<String, long[]> shapeOverrides, Map<String, Tensor> boundInputs) {
        GraphValidator validator = new GraphValidator(file);
        validator.check(model);
        GraphProto graph = model.getGraph();
        if (graph.getSparseInitializerCount() > 0) {
            throw new ByodtException(file + " has sparse initializers (for example '"
                + graph.getSparseInitializer(0).getValues().getName() + "'), which byodt does not support");
        }
        for (ValueInfoProto info : graph.getValueInfoList()) declareElementType(info);
        for (ValueInfoProto info : graph.getOutputList()) declareElementType(info);
        addInitializers(graph);
        List<Value> inputs = addInputs(graph, shapeOverrides, boundInputs);
        List<Node> nodes = buildNodes(graph);
        findMissingOperators(nodes);
        List<Node> remaining = inferAndFold(nodes);
        List<Value> outputs = new ArrayList<>();
        for (ValueInfoProto output : graph.getOutputList()) {
            Value value = values.get(output.getName());
            if (value == null) {
                throw new ByodtException("graph output '" + output.getName() + "' of " + file
                    + " is not defined by any node, input or initializer");
            }
            outputs.add(value);
        }
        validator.checkOutputs(graph.getOutputList(), outputs);
        String name = graph.getName().isEmpty() ? String.valueOf(file.getFileName()) : graph.getName();
        return new Result(new Graph(name, List.copyOf(inputs), List.copyOf(outputs), List.copyOf(remaining)),
            List.copyOf(problems));
    }

    private void declareElementType(ValueInfoProto info) {
        if (info.getType().hasTensorType() && info.getType().getTensorType().getElemType() != 0) {
            declaredElementTypes.put(info.getName(), info.getType().getTensorType().getElemType());
        }
    }

    private void addInitializers(GraphProto graph) {
        for (TensorProto initializer : graph.getInitializerList()) {
            String name = initializer.getName();
            Value value = define(name, "an initializer");
            try {
                value.setConstant(TensorProtos.fromProto(initializer, "initializer '" + name + "' of " + file));
            } catch (ByodtException e) {
                unsupportedValues.put(value, e.getMessage());
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_TENSOR, null, "initializer '" + name + "'", e));
            }
        }
    }

    /**
     * The run-time inputs: graph inputs that are not initializers (IR 3 lists weights among the inputs too)
     * and not bound to a value at compile time.
     */
    private List<Value> addInputs(GraphProto graph, Map<String, long[]> shapeOverrides, Map<String, Tensor> boundInputs) {
        TreeMap<String, long[]> unused = new TreeMap<>(shapeOverrides);
        TreeMap<String, Tensor> unbound = new TreeMap<>(boundInputs);
        List<Value> inputs = new ArrayList<>();
        List<String> boundNames = new ArrayList<>();
        for (ValueInfoProto input : graph.getInputList()) {
            if (values.containsKey(input.getName())) {
                if (unused.containsKey(input.getName()) || unbound.containsKey(input.getName())) {
                    throw new ByodtException("a " + (unused.containsKey(input.getName()) ? "shape" : "value") + " is given for '"
                        + input.getName() + "', which is a weight of " + file + ", not a run-time input");
                }
                continue;
            }
            Value value = define(input.getName(), "a graph input");
            Tensor bound = unbound.remove(input.getName());
            if (bound != null) {
                bind(value, input, bound, unused.remove(input.getName()));
                boundNames.add(input.getName());
                continue;
            }
            inputs.add(value);
            long[] override = unused.remove(input.getName());
            if (override != null) {
                value.setType(InputTypes.resolve(input, override, file.toString()));
                value.setDeclaredType(InputTypes.declared(input));
                continue;
            }
            try {
                value.setType(InputTypes.resolve(input, null, file.toString()));
                value.setDeclaredType(InputTypes.declared(input));
            } catch (ByodtException e) {
                unsupportedValues.put(value, e.getMessage());
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_TENSOR, null, "input '" + input.getName() + "'", e));
            }
        }
        String runTimeNames = String.join(", ", inputs.stream().map(Value::name).toList());
        String inputNames = boundNames.isEmpty() ? runTimeNames
            : (runTimeNames.isEmpty() ? "none at run time" : runTimeNames) + "; bound at compile time: " + String.join(", ", boundNames);
        if (!unused.isEmpty()) {
            throw new ByodtException("a shape is given for '" + unused.firstKey() + "', which is not an input of " + file
                + " (its inputs: " + inputNames + ")");
        }
        if (!unbound.isEmpty()) {
            throw new ByodtException("a value is given for '" + unbound.firstKey() + "', which is not an input of " + file
                + " (its inputs: " + inputNames + ")");
        }
        return inputs;
    }

    /**
     * Fixes an input to a value known at compile time, which must fit the input's declared type and the shape
     * --shape gives it, if any (naming a bound input's shape is allowed, so one command line serves both ways).
     */
    private void bind(Value value, ValueInfoProto input, Tensor bound, long[] givenShape) {
        if (givenShape != null && !Arrays.equals(givenShape, bound.shape())) {
            throw new ByodtException("the shape given for '" + input.getName() + "' (" + Shapes.format(givenShape)
                + ") differs from that of the value bound to it at compile time (" + Shapes.format(bound.shape()) + ")");
        }
        InputTypes.resolveBound(input, bound.shape(), file.toString());
        ElementType declared = InputTypes.declared(input);
        if (declared != bound.type()) {
            throw new ByodtException("the value bound to input '" + input.getName() + "' of " + file + " is " + bound.type()
                + ", but the input is " + declared);
        }
        value.setConstant(bound);
    }

    private List<Node> buildNodes(GraphProto graph) {
        Set<String> definedByNodes = new HashSet<>();
        for (NodeProto proto : graph.getNodeList()) definedByNodes.addAll(proto.getOutputList());
        List<Node> nodes = new ArrayList<>();
        for (int index = 0; index < graph.getNodeCount(); index++) {
            NodeProto proto = graph.getNode(index);
            // Unnamed nodes are common (the ONNX node tests name none); the position finds them in a viewer.
            String name = proto.getName().isEmpty() ? proto.getOpType() + "_" + index : proto.getName();
            String describe = proto.getOpType() + " node '" + name + "' of " + file;
            List<Value> inputs = new ArrayList<>();
            for (String input : proto.getInputList()) {
                if (input.isEmpty()) {
                    inputs.add(null);
                    continue;
                }
                Value value = values.get(input);
                if (value == null) {
                    throw new ByodtException(describe + (definedByNodes.contains(input)
                        ? " uses '" + input + "' before it is defined (ONNX requires nodes in topological order)"
                        : " uses '" + input + "', which nothing in the model defines"));
                }
                inputs.add(value);
            }
            Map<String, Attribute> attributes = new LinkedHashMap<>();
            ByodtException attributeError = null;
            for (AttributeProto attribute : proto.getAttributeList()) {
                try {
                    attributes.put(attribute.getName(), AttributeConverter.convert(attribute,
                        "attribute '" + attribute.getName() + "' of " + describe));
                } catch (ByodtException e) {
                    attributeError = e;
                }
            }
            // Omitted optional outputs at the end are dropped; one omitted before a used output still gets a
            // value, so operators see their outputs at the positions ONNX gives them.
            int outputCount = proto.getOutputCount();
            while (outputCount > 0 && proto.getOutput(outputCount - 1).isEmpty()) outputCount--;
            List<Value> outputs = new ArrayList<>();
            for (int i = 0; i < outputCount; i++) {
                String output = proto.getOutput(i);
                outputs.add(output.isEmpty() ? new Value(name + "/unused_output_" + i) : define(output, "node '" + name + "'"));
            }
            String domain = ModelReader.normalizeDomain(proto.getDomain());
            Node node = new Node(name, proto.getOpType(), domain, opsetVersion(domain, describe), Collections.unmodifiableList(inputs),
                List.copyOf(outputs), Collections.unmodifiableMap(attributes));
            if (attributeError != null) {
                skipped.add(node);
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_TENSOR, node.opType(), "node '" + name + "'", attributeError));
            }
            nodes.add(node);
        }
        return nodes;
    }

    private int opsetVersion(String domain, String describe) {
        Long version = opsets.get(domain);
        if (version != null) return Math.toIntExact(version);
        if (domain.isEmpty()) throw new ByodtException(describe + " needs the ONNX operator set, which the model does not import");
        return 0;
    }

    /** Every node whose operator byodt lacks, all found before any shape is inferred so one error can list them. */
    private void findMissingOperators(List<Node> nodes) {
        for (Node node : nodes) {
            if (!node.domain().isEmpty()) {
                skipped.add(node);
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_DOMAIN, node.domain() + "." + node.opType(),
                    "node '" + node.name() + "'", node.error("operator domain '" + node.domain() + "' is not supported")));
            } else if (!isConstantNode(node) && Operators.lookup(node.opType()) == null) {
                skipped.add(node);
                problems.add(new ImportProblem(ImportProblem.Kind.NOT_IMPLEMENTED, node.opType(),
                    "node '" + node.name() + "'", node.error("operator " + node.opType() + " is not supported")));
            }
        }
    }

    /** Types every node's outputs in graph order and evaluates what is known at compile time; returns the rest. */
    private List<Node> inferAndFold(List<Node> nodes) {
        List<Node> remaining = new ArrayList<>();
        for (Node node : nodes) {
            if (skipped.contains(node) || !inputsTyped(node)) {
                checkUntyped(node);
                continue;
            }
            try {
                if (isConstantNode(node)) {
                    if (node.outputs().size() != 1) throw node.error("has " + node.outputs().size() + " outputs, not 1");
                    node.output(0).setConstant(ConstantNodes.valueOf(node));
                } else if (!inferAndMaybeFold(node)) {
                    remaining.add(node);
                }
            } catch (ByodtException e) {
                for (Value output : node.outputs()) output.setType(null);
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_USE, node.opType(), "node '" + node.name() + "'", e));
            } catch (ArithmeticException e) {
                // Sizes computed from attributes and shapes (pads, strides, dims) are checked with exact arithmetic.
                throw node.error("its sizes overflow 64-bit integers (" + e.getMessage() + "): check its attributes and input shapes");
            } catch (RuntimeException e) {
                throw new IllegalStateException("internal error on " + node.describe() + " of " + file + ": " + e, e);
            }
        }
        return remaining;
    }

    /**
     * A node byodt cannot type, being unsupported itself or behind one: lists what can be known without types,
     * the attributes its operator checks ({@link Operator#checkAttributes}) and each output the model declares
     * (value_info, graph outputs) of an element type byodt lacks, so that one inspection finds every problem.
     */
    private void checkUntyped(Node node) {
        Operator operator = node.domain().isEmpty() ? Operators.lookup(node.opType()) : null;
        if (operator != null && !skipped.contains(node)) {
            try {
                operator.checkAttributes(node);
            } catch (ByodtException e) {
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_USE, node.opType(), "node '" + node.name() + "'", e));
            }
        }
        for (Value output : node.outputs()) {
            Integer declared = declaredElementTypes.get(output.name());
            if (declared == null || ElementType.fromOnnx(declared) != null) continue;
            problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_TENSOR, null, "tensor '" + output.name() + "'",
                node.error("output '" + output.name() + "' is declared " + ElementType.onnxName(declared) + ", which byodt does not support")));
        }
    }

    /** Whether the node's inputs are typed; reports a node that reads an unsupported weight or input. */
    private boolean inputsTyped(Node node) {
        for (Value input : node.inputs()) {
            if (input == null || input.type() != null) continue;
            String reason = unsupportedValues.get(input);
            if (reason != null) {
                problems.add(new ImportProblem(ImportProblem.Kind.UNSUPPORTED_TENSOR, node.opType(), "node '" + node.name() + "'",
                    node.error("reads '" + input.name() + "', which byodt cannot hold (" + reason + ")")));
            }
            return false;
        }
        return true;
    }

    /** @return whether the node was evaluated at compile time (and so leaves the graph) */
    private boolean inferAndMaybeFold(Node node) {
        GraphValidator.checkTypedNode(node);
        Operator operator = Operators.lookup(node.opType());
        List<TensorType> types = operator.inferTypes(node);
        if (types.size() != node.outputs().size()) {
            // ONNX allows the node these outputs (the validator checked), but byodt computes fewer of them.
            throw node.error("byodt computes " + types.size() + " output" + (types.size() == 1 ? "" : "s") + " of "
                + node.opType() + ", not the " + node.outputs().size() + " the node asks for");
        }
        for (int i = 0; i < types.size(); i++) {
            MemoryLimit.requireBuffer(types.get(i).shape(), types.get(i).elementType().byteSize(), outputName(node, i));
            node.output(i).setType(types.get(i));
        }
        Kernel kernel = NodeLowering.lower(node, this::bufferOf);
        for (Buffer loaded : kernel.loadedBuffers()) {
            // What the kernel keeps to itself, scratch rows and constants it derived, is no value of the graph.
            if (kernel.scratch().contains(loaded) || kernel.constants().containsKey(loaded)) continue;
            Value value = valueOfBuffer.get(loaded);
            // A kernel may read back what it wrote to its own outputs (a softmax normalising in place, say).
            if (!value.isConstant() && !node.outputs().contains(value)) return false;
        }
        for (int i = 0; i < types.size(); i++) {
            MemoryLimit.requireTensor(types.get(i).shape(), types.get(i).elementType().byteSize(), "folding " + outputName(node, i));
        }
        List<Tensor> constants = new ArrayList<>();
        for (Value input : node.inputs()) constants.add(input == null ? null : input.constant());
        List<Tensor> results = Interpreter.run(kernel, constants);
        for (int i = 0; i < results.size(); i++) node.output(i).setConstant(results.get(i));
        return true;
    }

    private static String outputName(Node node, int i) {
        return "output '" + node.output(i).name() + "' of " + node.describe();
    }

    private Buffer bufferOf(Value value) {
        return buffers.computeIfAbsent(value, v -> {
            Buffer buffer = new Buffer(v.name(), ScalarType.of(v.type().elementType()), v.type().shape());
            valueOfBuffer.put(buffer, v);
            return buffer;
        });
    }

    private Value define(String name, String definer) {
        if (name.isEmpty()) throw new ByodtException(file + " has " + definer + " with an empty name");
        if (values.containsKey(name)) throw new ByodtException(file + " defines '" + name + "' twice (again in " + definer + ")");
        Value value = new Value(name);
        values.put(name, value);
        return value;
    }

    private static boolean isConstantNode(Node node) {
        return node.domain().isEmpty() && node.opType().equals(ConstantNodes.OP_TYPE);
    }
}
