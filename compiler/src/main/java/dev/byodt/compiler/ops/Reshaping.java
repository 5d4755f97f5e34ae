package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Operators that keep a tensor's elements in row-major order and change at most its shape: Identity, Flatten, Reshape, Squeeze, Unsqueeze. Each is a flat copy into its own output
 * buffer; only the rule for the output shape differs.
 */
final class Reshaping implements Operator {
    @FunctionalInterface
    private interface ShapeRule {
        long[] outputShape(Node node, long[] input);
    }

    private final ShapeRule rule;

    private Reshaping(ShapeRule rule) {
        this.rule = rule;
    }

    static void registerAll() {
        Operators.register("Identity", new Reshaping((node, shape) -> shape));
        Operators.register("Flatten", new Reshaping(Reshaping::flatten));
        Operators.register("Reshape", new Reshaping(Reshaping::reshape));
        Operators.register("Squeeze", new Reshaping(Reshaping::squeeze));
        Operators.register("Unsqueeze", new Reshaping(Reshaping::unsqueeze));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType in = node.input(0).type();
        return List.of(in.withShape(rule.outputShape(node, in.shape())));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Buffer in = kb.input(0), out = kb.output(0);
        kb.loop(out.size(), i -> kb.store(out, i, kb.load(in, i)));
    }

    /** Flatten: [d0 * ... * d(axis-1), d(axis) * ... * d(n-1)]; axis in [-rank, rank]. */
    private static long[] flatten(Node node, long[] shape) {
        long axis = node.intAttr("axis", 1);
        if (axis < -shape.length || axis > shape.length) {
            throw node.error("axis " + axis + " is out of range for a tensor of rank " + shape.length);
        }
        int split = (int) (axis < 0 ? axis + shape.length : axis);
        String name = node.input(0).name();
        return new long[] {
            Shapes.elementCount(Arrays.copyOfRange(shape, 0, split), name),
            Shapes.elementCount(Arrays.copyOfRange(shape, split, shape.length), name)};
    }

    /**
     * Reshape: the target shape is an attribute before opset 5, an input after. A 0 copies the input's
     * dimension (unless allowzero=1, opset 14, makes it a real 0) and one -1 takes what is left.
     */
    private static long[] reshape(Node node, long[] shape) {
        long[] target = node.opsetVersion() < 5
            ? node.intsAttr("shape", null)
            : StaticInputs.ints(node, 1, "shape");
        if (target == null) throw node.error("needs a target shape");
        boolean allowZero = node.opsetVersion() >= 14 && node.intAttr("allowzero", 0) != 0;
        long[] out = target.clone();
        int inferred = -1;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == 0 && !allowZero) {
                if (i >= shape.length) throw node.error("target shape " + Arrays.toString(target) + " copies dimension " + i + " the input lacks");
                out[i] = shape[i];
            } else if (out[i] == -1) {
                if (inferred >= 0) throw node.error("target shape " + Arrays.toString(target) + " has more than one -1");
                inferred = i;
            } else if (out[i] < 0) {
                throw node.error("target shape " + Arrays.toString(target) + " has a negative dimension");
            }
        }
        long count = Shapes.elementCount(shape, node.input(0).name());
        if (inferred >= 0) {
            out[inferred] = 1;
            long known = Shapes.elementCount(out, node.output(0).name());
            if (known == 0 || count % known != 0) {
                throw node.error("cannot reshape " + Shapes.format(shape) + " to " + Arrays.toString(target));
            }
            out[inferred] = count / known;
        }
        if (Shapes.elementCount(out, node.output(0).name()) != count) {
            throw node.error("cannot reshape " + Shapes.format(shape) + " to " + Arrays.toString(target));
        }
        return out;
    }

    /** Squeeze: removes the given axes (attribute before opset 13, input after), or every axis of size 1. */
    private static long[] squeeze(Node node, long[] shape) {
        long[] axes = node.opsetVersion() < 13 ? node.intsAttr("axes", null) : StaticInputs.ints(node, 1, "axes");
        boolean[] drop = new boolean[shape.length];
        if (axes == null) {
            for (int d = 0; d < shape.length; d++) drop[d] = shape[d] == 1;
        } else {
            for (int d : Axes.normalizeAll(node, axes, shape.length)) {
                if (shape[d] != 1) throw node.error("cannot squeeze axis " + d + " of size " + shape[d]);
                drop[d] = true;
            }
        }
        List<Long> out = new ArrayList<>();
        for (int d = 0; d < shape.length; d++) {
            if (!drop[d]) out.add(shape[d]);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** Unsqueeze: inserts axes of size 1 at the given positions of the output (attribute before opset 13, input after). */
    private static long[] unsqueeze(Node node, long[] shape) {
        long[] axes = node.opsetVersion() < 13 ? node.intsAttr("axes", null) : StaticInputs.ints(node, 1, "axes");
        if (axes == null) throw node.error("needs axes");
        long[] out = new long[shape.length + axes.length];
        boolean[] inserted = new boolean[out.length];
        for (int d : Axes.normalizeAll(node, axes, out.length)) inserted[d] = true;
        for (int d = 0, next = 0; d < out.length; d++) out[d] = inserted[d] ? 1 : shape[next++];
        return out;
    }
}
