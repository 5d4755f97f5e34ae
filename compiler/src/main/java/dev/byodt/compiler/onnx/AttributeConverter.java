package dev.byodt.compiler.onnx;

import com.google.protobuf.ByteString;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.onnx.Onnx.AttributeProto;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;

import java.util.Locale;

/** AttributeProto to Attribute. Tensor attributes of element types byodt does not support are errors. */
final class AttributeConverter {
    private AttributeConverter() {}

    /** @param context how errors name the attribute, e.g. "attribute 'value' of Constant node 'c' in m.onnx" */
    static Attribute convert(AttributeProto proto, String context) {
        if (!proto.getRefAttrName().isEmpty()) return new Attribute.Unsupported("reference to " + proto.getRefAttrName());
        return switch (kindOf(proto)) {
            case FLOAT -> new Attribute.FloatAttr(proto.getF());
            case INT -> new Attribute.IntAttr(proto.getI());
            case STRING -> new Attribute.StringAttr(proto.getS().toStringUtf8());
            case TENSOR -> {
                // Operators see a tensor attribute (a Constant's value, ConstantOfShape's fill) in the type it computes in.
                Tensor value = TensorProtos.fromProto(proto.getT(), context);
                yield new Attribute.TensorAttr(value.convertedTo(value.type().computed()));
            }
            case FLOATS -> {
                float[] values = new float[proto.getFloatsCount()];
                for (int i = 0; i < values.length; i++) values[i] = proto.getFloats(i);
                yield new Attribute.FloatsAttr(values);
            }
            case INTS -> new Attribute.IntsAttr(proto.getIntsList().stream().mapToLong(Long::longValue).toArray());
            case STRINGS -> new Attribute.StringsAttr(proto.getStringsList().stream().map(ByteString::toStringUtf8).toList());
            case AttributeProto.AttributeType kind -> new Attribute.Unsupported(kind.name().toLowerCase(Locale.ROOT));
        };
    }

    /** The declared kind; models from before IR 2 leave it out, and then the field that is set tells. */
    private static AttributeProto.AttributeType kindOf(AttributeProto proto) {
        if (proto.getType() != AttributeProto.AttributeType.UNDEFINED) return proto.getType();
        if (proto.hasF()) return AttributeProto.AttributeType.FLOAT;
        if (proto.hasI()) return AttributeProto.AttributeType.INT;
        if (proto.hasS()) return AttributeProto.AttributeType.STRING;
        if (proto.hasT()) return AttributeProto.AttributeType.TENSOR;
        if (proto.hasG()) return AttributeProto.AttributeType.GRAPH;
        if (proto.getFloatsCount() > 0) return AttributeProto.AttributeType.FLOATS;
        if (proto.getIntsCount() > 0) return AttributeProto.AttributeType.INTS;
        if (proto.getStringsCount() > 0) return AttributeProto.AttributeType.STRINGS;
        return AttributeProto.AttributeType.UNDEFINED;
    }
}
