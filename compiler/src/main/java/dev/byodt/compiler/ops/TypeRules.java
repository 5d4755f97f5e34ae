package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ElementType;

import java.util.List;
import java.util.Objects;

/** The element-type constraints of ONNX operator schemas ("T in tensor(float)", "A and B have type T"). */
final class TypeRules {
    private TypeRules() {}

    /** The element type all the (present) inputs share, or an error naming the first one that differs. */
    static ElementType common(Node node, List<Value> inputs) {
        List<Value> present = inputs.stream().filter(Objects::nonNull).toList();
        ElementType type = present.getFirst().type().elementType();
        for (Value v : present) {
            if (v.type().elementType() != type) {
                throw node.error("input '" + v.name() + "' is " + v.type().elementType() + " but '"
                    + present.getFirst().name() + "' is " + type + "; they must have the same type");
            }
        }
        return type;
    }

    /** Rejects integer tensors for operators ONNX defines on floating-point tensors only. */
    static void requireFloat(Node node, Value input) {
        if (input.type().elementType() != ElementType.FLOAT32) {
            throw node.error("input '" + input.name() + "' is " + input.declaredType()
                + ", but " + node.opType() + " is defined on floating-point tensors only");
        }
    }

    /** Rejects anything but bool, for the logical operators and Where's condition. */
    static void requireBool(Node node, Value input) {
        if (input.type().elementType() != ElementType.BOOL) {
            throw node.error("input '" + input.name() + "' is " + input.declaredType() + ", but must be bool");
        }
    }

    /** Rejects anything but int32/int64 for index inputs. */
    static void requireInteger(Node node, Value input, String role) {
        if (!input.type().elementType().isInteger()) {
            throw node.error(role + " input '" + input.name() + "' must be an integer tensor, not " + input.declaredType());
        }
    }
}
