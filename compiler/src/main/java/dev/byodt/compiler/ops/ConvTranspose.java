package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX ConvTranspose (opsets 1 and 11): the transpose of Conv, N-d, grouped, strided and dilated, of X
 * (N x C x D1..Dn) with weights W (C x M/group x K1..Kn) plus an optional bias B (M). Input element i and
 * tap k contribute to output position i*stride + k*dilation - padBegin; the output size follows from pads,
 * output_padding, output_shape or auto_pad as ONNX's reference computes it.
 *
 * <p>Written as a gather: each output element sums, in order, its group's input channels and then the taps
 * whose input position is a whole element of X, one term after the other. Positions are tested per axis
 * inside that axis's tap loop (divisible by the stride, inside the input), and tests that hold for every
 * output are left out, so a stride-1 unpadded ConvTranspose tests only the bounds it can overstep.
 */
final class ConvTranspose implements Operator {
    static void registerAll() {
        Operators.register("ConvTranspose", new ConvTranspose());
    }

    /**
     * The checked geometry of one node: per spatial axis the input and output extents, the window attributes
     * and the padding before the output (negative where output_shape asks for more than the taps reach).
     */
    private record Shape(long channelsPerGroup, long mapsPerGroup, long[] input, long[] kernel, long[] strides,
                         long[] dilations, long[] padBegin, long[] output) {}

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = node.input(0).type();
        Shape s = shape(node);
        long[] y = new long[x.rank()];
        y[0] = x.dim(0);
        y[1] = s.mapsPerGroup() * (x.dim(1) / s.channelsPerGroup());
        System.arraycopy(s.output(), 0, y, 2, s.output().length);
        return List.of(Operands.floatTensor(y));
    }

    private static Shape shape(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 3);
        TensorType w = Operands.floatInput(node, 1, "W");
        TensorType b = Operands.optionalFloatInput(node, 2, "B");
        long groups = node.intAttr("group", 1);
        long channels = x.dim(1);
        if (w.rank() != x.rank() || groups < 1 || channels % groups != 0 || w.dim(0) != channels) {
            // W is C x M/group x K1..Kn: one row of kernels per input channel.
            throw node.error("weights W of shape " + Shapes.format(w.shape()) + " do not fit input X of shape "
                + Shapes.format(x.shape()) + " with group=" + groups + " (W needs " + channels + " x M/group x kernel)");
        }
        long maps = w.dim(1) * groups;
        int n = x.rank() - 2;
        long[] kernel = Arrays.copyOfRange(w.shape(), 2, w.rank());
        long[] declared = node.intsAttr("kernel_shape", kernel);
        if (!Arrays.equals(declared, kernel)) {
            throw node.badAttribute("kernel_shape", declared, "the weights' spatial shape " + Shapes.format(kernel));
        }
        if (b != null && (b.rank() != 1 || b.dim(0) != maps)) {
            throw node.error("bias B has shape " + Shapes.format(b.shape()) + ", expected " + maps);
        }
        long[] input = Arrays.copyOfRange(x.shape(), 2, x.rank());
        long[] strides = perAxis(node, "strides", n, 1, 1);
        long[] dilations = perAxis(node, "dilations", n, 1, 1);
        long[] outputPadding = perAxis(node, "output_padding", n, 0, 0);
        long[] begin = new long[n];
        long[] output = new long[n];
        String autoPad = node.stringAttr("auto_pad", "NOTSET");
        long[] outputShape = node.intsAttr("output_shape", null);
        if (outputShape != null && outputShape.length == n + 2) outputShape = Arrays.copyOfRange(outputShape, 2, n + 2);
        if (outputShape != null && outputShape.length != n) {
            throw node.badAttribute("output_shape", outputShape, n + " spatial sizes");
        }
        boolean same = autoPad.equals("SAME_UPPER") || autoPad.equals("SAME_LOWER");
        if (!same && !autoPad.equals("NOTSET") && !autoPad.equals("VALID")) {
            throw node.badAttribute("auto_pad", autoPad, "NOTSET, VALID, SAME_UPPER or SAME_LOWER");
        }
        long[] pads = node.intsAttr("pads", new long[2 * n]);
        if (pads.length != 2 * n) throw node.badAttribute("pads", pads, 2 * n + " values for rank-" + n + " windows");
        for (int d = 0; d < n; d++) {
            long full = strides[d] * (input[d] - 1) + outputPadding[d] + (kernel[d] - 1) * dilations[d] + 1;
            if (outputShape != null || same) {
                // The requested size, or input * stride for SAME, and the padding that makes it, split as ONNX's
                // reference does: the odd element after the output for SAME_UPPER, before it otherwise.
                output[d] = outputShape != null ? outputShape[d] : input[d] * strides[d];
                long total = full - output[d];
                begin[d] = autoPad.equals("SAME_UPPER") ? Math.floorDiv(total, 2) : total - Math.floorDiv(total, 2);
            } else if (autoPad.equals("VALID")) {
                output[d] = full;
            } else {
                begin[d] = pads[d];
                output[d] = full - pads[d] - pads[n + d];
            }
            if (output[d] < 1) throw node.error("the output would have " + output[d] + " elements along spatial axis " + d);
        }
        return new Shape(channels / groups, w.dim(1), input, kernel, strides, dilations, begin, output);
    }

    private static long[] perAxis(Node node, String attribute, int rank, long fallback, long least) {
        long[] defaults = new long[rank];
        Arrays.fill(defaults, fallback);
        long[] values = node.intsAttr(attribute, defaults);
        if (values.length != rank) throw node.badAttribute(attribute, values, rank + " values for rank-" + rank + " windows");
        if (Arrays.stream(values).anyMatch(v -> v < least)) {
            throw node.badAttribute(attribute, values, "values of " + least + " or more");
        }
        return values;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Shape s = shape(node);
        Buffer x = kb.input(0);
        Buffer w = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        kb.loops(y.shape(), at -> {
            Expr batch = at[0];
            Expr map = at[1];
            Expr group = div(map, s.mapsPerGroup());
            Expr mapInGroup = rem(map, s.mapsPerGroup());
            Expr[] out = Arrays.copyOfRange(at, 2, at.length);
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loop(s.channelsPerGroup(), channelInGroup -> {
                Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                taps(kb, s, out, 0, new Expr[out.length], new Expr[out.length], (position, tap) -> {
                    Expr xAt = kb.load(x, flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)));
                    Expr wAt = kb.load(w, flatIndex(w.shape(), WindowGeometry.indices(channel, mapInGroup, tap)));
                    kb.assign(sum, mac(kb.get(sum), xAt, wAt));
                });
            });
            Expr result = cast(ScalarType.REAL, kb.get(sum));
            if (bias != null) result = add(result, kb.load(bias, map));
            kb.store(y, flatIndex(y.shape(), at), result);
        });
    }

    /**
     * Loops over the taps of each axis in turn; along an axis, output position o meets tap k at the input
     * position (o + padBegin - k*dilation) / stride, when that is a whole index inside the input.
     */
    private static void taps(KernelBuilder kb, Shape s, Expr[] out, int axis, Expr[] position, Expr[] tap,
                             WindowGeometry.TapVisitor visitor) {
        if (axis == out.length) {
            visitor.visit(position.clone(), tap.clone());
            return;
        }
        long stride = s.strides()[axis];
        long dilation = s.dilations()[axis];
        long begin = s.padBegin()[axis];
        kb.loop(s.kernel()[axis], k -> {
            Expr offset = sub(add(out[axis], begin), mul(k, dilation));
            position[axis] = div(offset, stride);
            tap[axis] = k;
            // offset ranges over [begin - (K-1)*dilation, output - 1 + begin]; test only the bounds it can pass.
            Expr inside = null;
            if (begin - (s.kernel()[axis] - 1) * dilation < 0) inside = ge(offset, 0);
            if (stride > 1) inside = both(inside, eq(rem(offset, stride), idx(0)));
            if (s.output()[axis] - 1 + begin > (s.input()[axis] - 1) * stride) {
                inside = both(inside, lt(offset, (s.input()[axis] - 1) * stride + 1));
            }
            Runnable inner = () -> taps(kb, s, out, axis + 1, position, tap, visitor);
            if (inside == null) inner.run();
            else kb.when(inside, inner);
        });
    }

    private static Expr both(Expr a, Expr b) { return a == null ? b : and(a, b); }
}
