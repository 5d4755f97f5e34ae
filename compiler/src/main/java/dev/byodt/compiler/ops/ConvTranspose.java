package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * ONNX ConvTranspose (opsets 1 and 11): the transpose of Conv, N-d, grouped, strided and dilated, of X
 * (N x C x D1..Dn) with weights W (C x M/group x K1..Kn) plus an optional bias B (M). Input element i and
 * tap k contribute to output position i*stride + k*dilation - padBegin; the output size follows from pads,
 * output_padding, output_shape or auto_pad as ONNX's reference computes it.
 *
 * <p>Written as a gather: each output element sums, in order, its group's input channels and then the taps
 * whose input position is a whole element of X, one term after the other. Which taps those are depends only
 * on the output index along each axis, so tables made at compile time list them (a stride-2 kernel reaches
 * each output with about half its taps) and the loops need no tests. The loop over the output channels of
 * a group is innermost, each with its own accumulator in a scratch row, so that it vectorizes, with the
 * weights packed at compile time to be neighbours along it.
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
        long[] kernel = Operands.kernelShape(node, w);
        Operands.requireBiasPerMap(node, b, maps);
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
        int rank = s.kernel().length;
        long maps = s.mapsPerGroup();
        long channels = x.dim(1);
        long tapCount = Shapes.elementCount(s.kernel(), w.name());
        Value weights = node.input(1);
        // packed[channel][tap][mapInGroup], so that the innermost loop, over maps, reads neighbours.
        Buffer packed = weights.isConstant()
            ? kb.constant("packed", ScalarType.REAL, PackedWeights.transposed(weights.constant(), channels, maps, tapCount))
            : null;
        AxisTaps[] axes = new AxisTaps[rank];
        for (int d = 0; d < rank; d++) axes[d] = AxisTaps.of(kb, s, d);
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {maps});
        kb.loop(x.dim(0), batch -> kb.loop(channels / s.channelsPerGroup(), group -> kb.loops(s.output(), out -> {
            kb.loop(maps, m -> kb.store(acc, m, constant(ScalarType.ACC, 0)));
            kb.loop(s.channelsPerGroup(), channelInGroup -> {
                Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                taps(kb, axes, out, 0, new Expr[rank], idx(0), (position, tap) -> {
                    Expr xAt = kb.load(x, flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)));
                    kb.loop(maps, m -> {
                        Expr wAt = packed != null ? kb.load(packed, add(mul(add(mul(channel, tapCount), tap), maps), m))
                            : kb.load(w, add(mul(add(mul(channel, maps), m), tapCount), tap));
                        kb.store(acc, m, mac(kb.load(acc, m), xAt, wAt));
                    });
                });
            });
            kb.loop(maps, m -> {
                Expr map = add(mul(group, maps), m);
                Expr result = cast(ScalarType.REAL, kb.load(acc, m));
                if (bias != null) result = add(result, kb.load(bias, map));
                kb.store(y, flatIndex(y.shape(), WindowGeometry.indices(batch, map, out)), result);
            });
        })));
    }

    /**
     * The taps that reach each output index along one axis, ascending, with the input index each reads:
     * output o meets tap k at input (o + padBegin - k*dilation) / stride when that is a whole index inside
     * the input. Worked out at compile time, so the loop over them has no tests.
     */
    private record AxisTaps(Expr uniformCount, Buffer count, Buffer tap, Buffer input, long width, long kernel) {
        static AxisTaps of(KernelBuilder kb, Shape s, int axis) {
            long stride = s.strides()[axis];
            long dilation = s.dilations()[axis];
            long kernel = s.kernel()[axis];
            int outputs = Math.toIntExact(s.output()[axis]);
            long[][] taps = new long[outputs][];
            long[][] inputs = new long[outputs][];
            long width = 1;
            for (int o = 0; o < outputs; o++) {
                long[] found = new long[(int) kernel];
                long[] reads = new long[(int) kernel];
                int n = 0;
                for (long k = 0; k < kernel; k++) {
                    long offset = o + s.padBegin()[axis] - k * dilation;
                    if (offset < 0 || offset % stride != 0 || offset / stride >= s.input()[axis]) continue;
                    found[n] = k;
                    reads[n++] = offset / stride;
                }
                taps[o] = Arrays.copyOf(found, n);
                inputs[o] = Arrays.copyOf(reads, n);
                width = Math.max(width, n);
            }
            long[] counts = new long[outputs];
            long[] tapTable = new long[Math.toIntExact(outputs * width)];
            long[] inputTable = new long[tapTable.length];
            for (int o = 0; o < outputs; o++) {
                counts[o] = taps[o].length;
                System.arraycopy(taps[o], 0, tapTable, (int) (o * width), taps[o].length);
                System.arraycopy(inputs[o], 0, inputTable, (int) (o * width), inputs[o].length);
            }
            long[] table = {outputs, width};
            boolean uniform = Arrays.stream(counts).allMatch(c -> c == counts[0]);
            return new AxisTaps(uniform ? idx(counts[0]) : null,
                uniform ? null : kb.constant("count" + axis, ScalarType.I64, Tensor.ofLongs(new long[] {outputs}, counts)),
                kb.constant("tap" + axis, ScalarType.I64, Tensor.ofLongs(table, tapTable)),
                kb.constant("input" + axis, ScalarType.I64, Tensor.ofLongs(table, inputTable)), width, kernel);
        }

        /** How many taps reach output {@code out}: a constant where every output has as many. */
        Expr countAt(KernelBuilder kb, Expr out) { return uniformCount != null ? uniformCount : kb.load(count, out); }
    }

    /** Receives one term's input position (per axis) and its tap's flat index in the kernel. */
    private interface TermVisitor {
        void visit(Expr[] position, Expr tap);
    }

    /** Loops over the taps reaching output {@code out}, axis by axis, the flat tap index built as it goes. */
    private static void taps(KernelBuilder kb, AxisTaps[] axes, Expr[] out, int axis, Expr[] position, Expr tap,
                             TermVisitor visitor) {
        if (axis == axes.length) {
            visitor.visit(position.clone(), tap);
            return;
        }
        AxisTaps a = axes[axis];
        kb.loop(a.countAt(kb, out[axis]), j -> {
            Expr row = add(mul(out[axis], a.width()), j);
            position[axis] = kb.load(a.input(), row);
            taps(kb, axes, out, axis + 1, position, add(mul(tap, a.kernel()), kb.load(a.tap(), row)), visitor);
        });
    }
}
