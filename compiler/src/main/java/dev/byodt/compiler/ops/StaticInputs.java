package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;

/**
 * Inputs that decide output shapes (Reshape's shape, Slice's starts, Pad's pads...). byodt's shapes are
 * static, so these must be known at compile time: weights, or values the loader folded.
 */
final class StaticInputs {
    private StaticInputs() {}

    /** The integer values of input {@code index}, or null when the node omits it. */
    static long[] ints(Node node, int index, String role) {
        Value v = node.input(index);
        if (v == null) return null;
        if (!v.isConstant()) {
            throw node.error(role + " input '" + v.name() + "' must be known at compile time "
                + "(byodt compiles static shapes; fix it with --bind " + v.name() + "=FILE.pb)");
        }
        TypeRules.requireInteger(node, v, role);
        return v.constant().toLongArray();
    }
}
