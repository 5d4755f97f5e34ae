package dev.byodt.compiler.onnx;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.onnx.Onnx.AttributeProto;
import dev.byodt.onnx.Onnx.GraphProto;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.NodeProto;
import dev.byodt.onnx.Onnx.TypeProto;
import dev.byodt.onnx.Onnx.ValueInfoProto;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Refuses a malformed model as ONNX's checker would, before byodt imports it, so that it gets one line
 * naming what is wrong instead of being compiled into something meaningless or failing deep inside:
 * graph inputs, outputs and initializers named once each, at least one node and one output, every node
 * with the number of inputs and outputs its operator takes ({@link OperatorArity}), operator set versions
 * byodt knows, and the ranges of the window attributes of convolutions and pooling.
 *
 * <p>What needs types is checked as the importer reaches it: a convolution's weight with no elements, a
 * Reshape that both keeps zeros (allowzero) and infers a dimension, and graph outputs whose declared element
 * type or rank differs from the computed one.
 */
final class GraphValidator {
    /** The newest ONNX operator set of the node tests byodt passes (../shared/onnx-node goes to 25). */
    static final long NEWEST_OPSET = 25;
    /** Window sizes, strides, dilations and pads beyond this are no image's: refused rather than overflowing. */
    private static final long LARGEST_WINDOW_ATTRIBUTE = Integer.MAX_VALUE;
    private static final Set<String> WINDOW_OPERATORS = Set.of("Conv", "ConvTranspose", "ConvInteger", "QLinearConv",
        "AveragePool", "MaxPool", "LpPool", "MaxUnpool");
    private static final Set<String> POOLING_OPERATORS = Set.of("AveragePool", "MaxPool", "LpPool");
    private static final Set<String> CONVOLUTIONS = Set.of("Conv", "ConvTranspose");

    private final Path file;

    GraphValidator(Path file) {
        this.file = file;
    }

    /** Checks what needs no types: names, counts, operator sets and attributes. */
    void check(ModelProto model) {
        Map<String, Long> opsets = ModelReader.opsetImports(model);
        Long onnxOpset = opsets.get("");
        if (onnxOpset != null && (onnxOpset < 1 || onnxOpset > NEWEST_OPSET)) {
            throw new ByodtException(file + " imports ONNX operator set " + onnxOpset + "; byodt knows operator sets 1 to "
                + NEWEST_OPSET);
        }
        GraphProto graph = model.getGraph();
        if (graph.getOutputCount() == 0) throw new ByodtException(file + " has no graph output");
        if (graph.getNodeCount() == 0) throw new ByodtException(file + " has no nodes: its graph computes nothing");
        requireUnique(graph.getInputList().stream().map(ValueInfoProto::getName).toList(), "graph input");
        requireUnique(graph.getOutputList().stream().map(ValueInfoProto::getName).toList(), "graph output");
        requireUnique(graph.getInitializerList().stream().map(t -> t.getName()).toList(), "initializer");
        for (int index = 0; index < graph.getNodeCount(); index++) {
            NodeProto node = graph.getNode(index);
            String describe = node.getOpType() + " node '" + (node.getName().isEmpty() ? node.getOpType() + "_" + index : node.getName())
                + "' of " + file;
            checkNode(node, describe, ModelReader.normalizeDomain(node.getDomain()).isEmpty() ? onnxOpset : null);
        }
    }

    private void requireUnique(List<String> names, String what) {
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) throw new ByodtException(file + " has two " + what + "s named '" + name + "'");
        }
    }

    /** @param opset the operator set of an ONNX operator, null for other domains (whose operators byodt does not know) */
    private static void checkNode(NodeProto node, String describe, Long opset) {
        if (node.getOutputList().stream().allMatch(String::isEmpty)) throw new ByodtException(describe + " has no outputs");
        if (opset != null) {
            OperatorArity.Arity arity = OperatorArity.of(node.getOpType(), opset);
            if (arity != null) {
                requireCount(describe, node.getInputCount(), arity.minInputs(), arity.maxInputs(), "input", node.getOpType(), opset);
                requireCount(describe, node.getOutputCount(), arity.minOutputs(), arity.maxOutputs(), "output", node.getOpType(), opset);
            } else if (OperatorArity.knows(node.getOpType())) {
                throw new ByodtException(describe + ": ONNX has no " + node.getOpType() + " in operator set " + opset);
            }
            if (WINDOW_OPERATORS.contains(node.getOpType())) checkWindow(node, describe);
        }
    }

    private static void requireCount(String describe, int count, int min, int max, String what, String opType, long opset) {
        if (count >= min && (max < 0 || count <= max)) return;
        String allowed = max < 0 ? "at least " + min : min == max ? String.valueOf(min) : min + " to " + max;
        throw new ByodtException(describe + " has " + count + " " + what + (count == 1 ? "" : "s") + "; " + opType
            + " (operator set " + opset + ") takes " + allowed);
    }

    /** kernel_shape, strides and dilations positive, pads not negative, pooling pads smaller than the window. */
    private static void checkWindow(NodeProto node, String describe) {
        long[] kernel = null;
        long[] pads = null;
        for (AttributeProto attribute : node.getAttributeList()) {
            long smallest = switch (attribute.getName()) {
                case "kernel_shape", "strides", "dilations" -> 1;
                case "pads", "output_padding" -> 0;
                default -> -1;
            };
            if (smallest < 0) continue;
            long[] values = attribute.getIntsList().stream().mapToLong(Long::longValue).toArray();
            for (long v : values) {
                if (v < smallest || v > LARGEST_WINDOW_ATTRIBUTE) {
                    throw new ByodtException(describe + ": attribute " + attribute.getName() + " has " + v + "; it takes "
                        + smallest + " to " + LARGEST_WINDOW_ATTRIBUTE);
                }
            }
            if (attribute.getName().equals("kernel_shape")) kernel = values;
            if (attribute.getName().equals("pads")) pads = values;
        }
        if (kernel != null && pads != null && pads.length != 2 * kernel.length) {
            throw new ByodtException(describe + ": attribute pads has " + pads.length + " values for a " + kernel.length
                + "-dimensional window; it takes " + 2 * kernel.length + " (begin and end of each axis)");
        }
        if (POOLING_OPERATORS.contains(node.getOpType()) && kernel != null && pads != null) {
            for (int i = 0; i < pads.length; i++) {
                if (pads[i] >= kernel[i % kernel.length]) {
                    throw new ByodtException(describe + ": pad " + pads[i] + " of axis " + i % kernel.length + " is not smaller than the "
                        + "window (" + kernel[i % kernel.length] + "), so some windows would hold padding only");
                }
            }
        }
    }

    /** Checks a node's inputs once their types (and constants) are known, before its own types are inferred. */
    static void checkTypedNode(Node node) {
        if (!node.domain().isEmpty()) return;
        if (CONVOLUTIONS.contains(node.opType()) && node.input(1) != null && node.input(1).type() != null
            && node.input(1).type().elementCount() == 0) {
            throw node.error("weight '" + node.input(1).name() + "' has no elements (shape " + node.input(1).type() + ")");
        }
        if (node.opType().equals("Reshape") && node.intAttr("allowzero", 0) == 1 && node.input(1) != null && node.input(1).isConstant()) {
            Tensor shape = node.input(1).constant();
            boolean zero = false, inferred = false;
            for (long i = 0; i < shape.elementCount(); i++) {
                zero |= shape.getLong(i) == 0;
                inferred |= shape.getLong(i) == -1;
            }
            if (zero && inferred) {
                throw node.error("with allowzero=1 its shape cannot hold both 0 (an empty dimension) and -1 (a dimension to infer)");
            }
        }
    }

    /** Each graph output's declared element type and rank, where the model declares them, against the computed ones. */
    void checkOutputs(List<ValueInfoProto> declared, List<Value> computed) {
        for (int i = 0; i < declared.size(); i++) {
            TensorType type = computed.get(i).type();
            TypeProto proto = declared.get(i).getType();
            if (type == null || proto.getValueCase() != TypeProto.ValueCase.TENSOR_TYPE) continue;
            TypeProto.Tensor tensor = proto.getTensorType();
            String what = "graph output '" + declared.get(i).getName() + "' of " + file;
            if (tensor.getElemType() != 0) {
                ElementType declaredType = ElementType.fromOnnx(tensor.getElemType());
                if (declaredType == null) {
                    throw new ByodtException(what + " has element type " + ElementType.onnxName(tensor.getElemType())
                        + ", which byodt does not support (" + ElementType.supportedList() + ")");
                }
                if (declaredType.computed() != type.elementType()) {
                    throw new ByodtException(what + " is declared " + declaredType + " but computed " + type.elementType());
                }
                computed.get(i).setDeclaredType(declaredType);
            }
            if (tensor.hasShape() && tensor.getShape().getDimCount() != type.rank()) {
                throw new ByodtException(what + " is declared of rank " + tensor.getShape().getDimCount() + " but computed "
                    + type + " (rank " + type.rank() + ")");
            }
        }
    }
}
