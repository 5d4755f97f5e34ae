package dev.byodt.compiler.onnx;

import dev.byodt.compiler.graph.TensorType;
import dev.byodt.onnx.Onnx.TensorShapeProto;
import dev.byodt.onnx.Onnx.TypeProto;
import dev.byodt.onnx.Onnx.ValueInfoProto;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.List;

/**
 * The static type of a graph input. byodt compiles for one shape, so every dimension the model leaves
 * symbolic ("N", "batch_size") or unnamed is fixed at compile time: to the caller's override for that
 * input if there is one, else to 1. An override must agree with the model wherever the model fixes a size.
 */
final class InputTypes {
    private InputTypes() {}

    /** @param override the shape the caller asks for, or null */
    static TensorType resolve(ValueInfoProto input, long[] override, String modelName) {
        return resolve(input, override, false, modelName);
    }

    /** The type of an input bound to a value: like an override, but empty dimensions are allowed. */
    static TensorType resolveBound(ValueInfoProto input, long[] valueShape, String modelName) {
        return resolve(input, valueShape, true, modelName);
    }

    private static TensorType resolve(ValueInfoProto input, long[] override, boolean emptyAllowed, String modelName) {
        String what = "input '" + input.getName() + "' of " + modelName;
        TypeProto type = input.getType();
        if (type.getValueCase() != TypeProto.ValueCase.TENSOR_TYPE) {
            throw new ByodtException(what + " is " + describeNonTensor(type) + "; byodt supports tensors only");
        }
        TypeProto.Tensor tensor = type.getTensorType();
        ElementType elementType = ElementType.fromOnnx(tensor.getElemType());
        if (elementType == null) {
            throw new ByodtException(what + " has element type " + ElementType.onnxName(tensor.getElemType())
                + ", which byodt does not support (" + ElementType.supportedList() + ")");
        }
        if (!tensor.hasShape()) {
            if (override == null) throw new ByodtException(what + " has no shape in the model; give its shape explicitly");
            if (!emptyAllowed) requirePositive(override, what);
            return new TensorType(elementType.computed(), override);
        }
        List<TensorShapeProto.Dimension> dims = tensor.getShape().getDimList();
        if (override != null) {
            if (!emptyAllowed) requirePositive(override, what);
            if (override.length != dims.size()) {
                throw new ByodtException("shape " + Shapes.format(override) + " given for " + what + " has rank "
                    + override.length + ", but the model's input has rank " + dims.size() + " (" + describe(dims) + ")");
            }
        }
        long[] shape = new long[dims.size()];
        for (int d = 0; d < shape.length; d++) {
            TensorShapeProto.Dimension dim = dims.get(d);
            if (dim.hasDimValue()) {
                if (dim.getDimValue() < 0) throw new ByodtException(what + " has a negative dimension " + dim.getDimValue());
                if (override != null && override[d] != dim.getDimValue()) {
                    throw new ByodtException("shape " + Shapes.format(override) + " given for " + what
                        + " disagrees with the model's " + describe(dims) + " in dimension " + d);
                }
                shape[d] = dim.getDimValue();
            } else {
                shape[d] = override != null ? override[d] : 1;
            }
        }
        return new TensorType(elementType.computed(), shape);
    }

    /** The element type the model declares for a graph input it has typed (one {@link #resolve} accepted). */
    static ElementType declared(ValueInfoProto input) {
        return ElementType.fromOnnx(input.getType().getTensorType().getElemType());
    }

    /** "Nx1x28x28": the model's dimensions, symbolic ones by name and unnamed ones as "?". */
    static String describe(List<TensorShapeProto.Dimension> dims) {
        List<String> parts = new ArrayList<>();
        for (TensorShapeProto.Dimension dim : dims) parts.add(dimensionName(dim));
        return parts.isEmpty() ? "scalar" : String.join("x", parts);
    }

    static String dimensionName(TensorShapeProto.Dimension dim) {
        if (dim.hasDimValue()) return Long.toString(dim.getDimValue());
        return dim.hasDimParam() && !dim.getDimParam().isEmpty() ? dim.getDimParam() : "?";
    }

    static String describeNonTensor(TypeProto type) {
        return switch (type.getValueCase()) {
            case SEQUENCE_TYPE -> "a sequence";
            case OPTIONAL_TYPE -> "an optional";
            case VALUE_NOT_SET -> "of no declared type";
            default -> "a " + type.getValueCase().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static void requirePositive(long[] override, String what) {
        for (long d : override) {
            if (d < 1) throw new ByodtException("shape " + Shapes.format(override) + " given for " + what + " has a dimension below 1");
        }
    }
}
