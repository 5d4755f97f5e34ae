package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.Arrays;
import java.util.List;
import java.util.function.BinaryOperator;

import static dev.byodt.compiler.kernel.Exprs.flatIndex;

/**
 * An operator on two tensors of one element type, element by element with multidirectional broadcasting
 * (opset 7 on). Before opset 7 broadcasting was opt-in: attribute broadcast=1 let B broadcast to A,
 * aligned at the end or, with attribute axis, starting at that axis of A.
 */
final class ElementwiseBinary implements Operator {
    private final BinaryOperator<Expr> formula;
    private final boolean legacyOptIn;

    /** An operator ONNX defines on float and integer tensors alike; the formula must work on both. */
    ElementwiseBinary(BinaryOperator<Expr> formula) {
        this(formula, true);
    }

    private ElementwiseBinary(BinaryOperator<Expr> formula, boolean legacyOptIn) {
        this.formula = formula;
        this.legacyOptIn = legacyOptIn;
    }

    /**
     * PRelu: the slope B always broadcasts to X. It never had the broadcast attribute; before opset 7 a slope
     * of one value is shared by every channel, and one of a value per channel (X's axis 1) applies along it.
     */
    static ElementwiseBinary slopeBroadcasting(BinaryOperator<Expr> formula) {
        return new ElementwiseBinary(formula, false);
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        ElementType type = TypeRules.common(node, List.of(node.input(0), node.input(1)));
        long[] a = node.input(0).type().shape();
        long[] b = bShape(node);
        if (legacyOptIn && node.opsetVersion() < 7 && node.intAttr("broadcast", 0) == 0 && !Arrays.equals(a, b)) {
            throw node.error("inputs of different shapes need attribute broadcast=1 before opset 7");
        }
        return List.of(new TensorType(type, Broadcasting.shape(node, List.of(a, b))));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer a = kb.input(0), b = kb.input(1), out = kb.output(0);
        long[][] shapes = Broadcasting.coalesced(out.shape(), List.of(a.shape(), bShape(node)));
        kb.splitLoops(shapes[0], i -> kb.store(out, flatIndex(shapes[0], i),
            formula.apply(kb.load(a, Broadcasting.index(shapes[1], i)), kb.load(b, Broadcasting.index(shapes[2], i)))));
    }

    /** The operator's formula for the elements a and b. */
    Expr formula(Expr a, Expr b) { return formula.apply(a, b); }

    /**
     * B's shape as broadcasting sees it. With the legacy axis attribute (or PRelu's legacy channel slope),
     * B's dimensions are padded with 1s to A's rank, starting at that axis; inserting 1s leaves B's row-major
     * layout unchanged.
     */
    private long[] bShape(Node node) {
        long[] b = node.input(1).type().shape();
        if (node.opsetVersion() >= 7) return b;
        long[] a = node.input(0).type().shape();
        if (!legacyOptIn) {
            boolean perChannel = b.length == 1 && a.length > 2 && b[0] == a[1] && b[0] != 1;
            return perChannel ? padded(node, b, a.length, 1) : b;
        }
        if (node.intAttr("broadcast", 0) == 0 || !node.hasAttribute("axis")) return b;
        return padded(node, b, a.length, Axes.normalize(node, node.intAttr("axis", 0), a.length));
    }

    /** {@code b} padded with 1s to rank {@code rankA}, its dimensions starting at {@code axis}. */
    private static long[] padded(Node node, long[] b, int rankA, int axis) {
        if (axis + b.length > rankA) throw node.error("input B of rank " + b.length + " does not fit A from axis " + axis);
        long[] padded = new long[rankA];
        Arrays.fill(padded, 1);
        System.arraycopy(b, 0, padded, axis, b.length);
        return padded;
    }
}
