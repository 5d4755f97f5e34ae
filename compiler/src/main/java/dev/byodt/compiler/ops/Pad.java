package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.bool;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * Pad: grows (or, with negative pads, crops) each dimension at its start and end. Modes: constant (a
 * value), edge (repeat the border), reflect (mirror without repeating the border), wrap (opset 19,
 * cyclic). Pads, mode and value are attributes before opset 11 ('paddings' in opset 1); from opset 11
 * pads and the value are inputs, and from opset 18 an 'axes' input says which dimensions the pads cover.
 *
 * <p>Every output element reads the input element its coordinates map to under the mode; in constant mode
 * the read is clamped into the input and a select picks the value outside it, so no load ever leaves the
 * input buffer and the loop stays free of branches.
 */
final class Pad implements Operator {
    private enum Mode { CONSTANT, EDGE, REFLECT, WRAP }

    static void registerAll() {
        Operators.register("Pad", new Pad());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType in = node.input(0).type();
        // Before opset 11 the pad value is a float attribute, and Pad was defined on float tensors only.
        if (node.opsetVersion() < 11) TypeRules.requireFloat(node, node.input(0));
        Mode mode = mode(node);
        long[] pads = pads(node, in.rank());
        long[] out = new long[in.rank()];
        for (int d = 0; d < out.length; d++) {
            out[d] = in.dim(d) + pads[d] + pads[d + in.rank()];
            if (out[d] < 0) throw node.error("pads " + Arrays.toString(pads) + " crop more than dimension " + d + " holds");
            if (in.dim(d) == 0 && out[d] > 0 && mode != Mode.CONSTANT) {
                throw node.error("cannot pad the empty dimension " + d + " in mode " + mode.name().toLowerCase());
            }
        }
        Value value = node.input(2);
        if (node.opsetVersion() >= 11 && value != null) TypeRules.common(node, List.of(node.input(0), value));
        return List.of(in.withShape(out));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0), out = kb.output(0);
        int rank = in.rank();
        long[] pads = pads(node, rank);
        Mode mode = mode(node);
        Expr fill = mode == Mode.CONSTANT ? padValue(node, kb) : null;
        if (in.size() == 0) {
            kb.loop(out.size(), i -> kb.store(out, i, fill));
            return;
        }
        kb.loops(out.shape(), o -> {
            Expr[] source = new Expr[rank];
            Expr inside = bool(true);
            for (int d = 0; d < rank; d++) {
                long size = in.dim(d), before = pads[d], after = pads[d + rank];
                Expr c = sub(o[d], idx(before));
                if (before <= 0 && after <= 0) {
                    source[d] = c;
                    continue;
                }
                source[d] = switch (mode) {
                    case CONSTANT, EDGE -> min(max(c, 0), size - 1);
                    case REFLECT -> reflect(c, size);
                    case WRAP -> floorMod(c, size);
                };
                if (before > 0) inside = and(inside, ge(c, 0));
                if (after > 0) inside = and(inside, lt(c, idx(size)));
            }
            Expr value = kb.load(in, flatIndex(in.shape(), source));
            kb.store(out, flatIndex(out.shape(), o), mode == Mode.CONSTANT ? select(inside, value, fill) : value);
        });
    }

    /** Mirrors c into [0, size) with period 2 * (size - 1): -1 maps to 1, size maps to size - 2. */
    private static Expr reflect(Expr c, long size) {
        if (size == 1) return idx(0);
        long period = 2 * (size - 1);
        Expr m = floorMod(c, period);
        return select(ge(m, idx(size)), sub(idx(period), m), m);
    }

    /** c mod n in [0, n), for c of either sign. */
    private static Expr floorMod(Expr c, long n) { return rem(add(rem(c, n), n), n); }

    private static Mode mode(Node node) {
        String mode = node.stringAttr("mode", "constant");
        return switch (mode) {
            case "constant" -> Mode.CONSTANT;
            case "edge" -> Mode.EDGE;
            case "reflect" -> Mode.REFLECT;
            case "wrap" -> Mode.WRAP;
            default -> throw node.badAttribute("mode", mode, "constant, edge, reflect or wrap");
        };
    }

    /** [begin of each dimension..., end of each dimension...], expanded to all dimensions. */
    private static long[] pads(Node node, int rank) {
        if (node.opsetVersion() < 11) {
            long[] pads = node.intsAttr(node.opsetVersion() < 2 ? "paddings" : "pads", null);
            if (pads == null || pads.length != 2 * rank) throw node.error("needs " + 2 * rank + " pads for rank " + rank);
            return pads;
        }
        long[] given = StaticInputs.ints(node, 1, "pads");
        if (given == null) throw node.error("needs pads");
        long[] axes = node.opsetVersion() >= 18 ? StaticInputs.ints(node, 3, "axes") : null;
        if (axes == null) {
            if (given.length != 2 * rank) throw node.error("needs " + 2 * rank + " pads for rank " + rank + ", got " + given.length);
            return given;
        }
        if (given.length != 2 * axes.length) throw node.error("needs " + 2 * axes.length + " pads for " + axes.length + " axes");
        long[] pads = new long[2 * rank];
        int[] dims = Axes.normalizeAll(node, axes, rank);
        for (int k = 0; k < dims.length; k++) {
            pads[dims[k]] = given[k];
            pads[dims[k] + rank] = given[k + dims.length];
        }
        return pads;
    }

    /** The constant-mode value: attribute 'value' before opset 11, optional scalar input 2 after, default 0. */
    private static Expr padValue(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0);
        if (node.opsetVersion() < 11) return real(node.floatAttr("value", 0));
        Buffer value = kb.input(2);
        return value == null ? constant(in.elementType(), 0) : kb.load(value, idx(0));
    }
}
