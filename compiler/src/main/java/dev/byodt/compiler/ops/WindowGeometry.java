package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.ge;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The sliding window of Conv and the pooling operators along each spatial axis: kernel size, stride,
 * dilation and the padding before and after, resolved from ONNX's attributes (kernel_shape, strides,
 * dilations, pads, auto_pad, ceil_mode) into output sizes.
 *
 * <p>Padding is never materialised. The window's taps that fall outside the input are skipped by
 * conditions, emitted only on the axes where some window actually reaches past an edge, so an unpadded
 * convolution has no conditions at all.
 */
public final class WindowGeometry {
    /** The most taps {@link #forEachTapUnrolled} writes out: LeNet-5's 2 x 2 pools up to a 4 x 4 window. */
    private static final long UNROLLED_TAPS = 16;

    private final long[] input;
    private final long[] kernel;
    private final long[] strides;
    private final long[] dilations;
    private final long[] padBegin;
    private final long[] padEnd;
    private final long[] output;

    private WindowGeometry(long[] input, long[] kernel, long[] strides, long[] dilations, long[] padBegin,
                           long[] padEnd, long[] output) {
        this.input = input;
        this.kernel = kernel;
        this.strides = strides;
        this.dilations = dilations;
        this.padBegin = padBegin;
        this.padEnd = padEnd;
        this.output = output;
    }

    /**
     * Resolves the node's window attributes for an input of the given spatial shape and a kernel of the
     * given size (Conv takes it from its weights, the pools from kernel_shape).
     */
    public static WindowGeometry of(Node node, long[] inputSpatial, long[] kernel) {
        int n = inputSpatial.length;
        long[] strides = positive(node, "strides", node.intsAttr("strides", ones(n)), n);
        long[] dilations = positive(node, "dilations", node.intsAttr("dilations", ones(n)), n);
        positive(node, "kernel_shape", kernel, n);
        boolean ceilMode = node.intAttr("ceil_mode", 0) != 0;
        String autoPad = node.stringAttr("auto_pad", "NOTSET");
        long[] begin = new long[n];
        long[] end = new long[n];
        long[] output = new long[n];
        long[] pads = node.intsAttr("pads", new long[2 * n]);
        if (pads.length != 2 * n) throw node.badAttribute("pads", pads, 2 * n + " values for rank-" + n + " windows");
        if (Arrays.stream(pads).anyMatch(p -> p < 0)) throw node.badAttribute("pads", pads, "pads of 0 or more");
        for (int d = 0; d < n; d++) {
            long extent = (kernel[d] - 1) * dilations[d] + 1;
            switch (autoPad) {
                case "NOTSET" -> {
                    begin[d] = pads[d];
                    end[d] = pads[n + d];
                    output[d] = explicitOutputSize(node, inputSpatial[d], begin[d], end[d], extent, strides[d], ceilMode);
                }
                case "VALID" -> output[d] = explicitOutputSize(node, inputSpatial[d], 0, 0, extent, strides[d], false);
                case "SAME_UPPER", "SAME_LOWER" -> {
                    // The output covers ceil(input / stride) positions, and the padding that needs is split
                    // evenly, the odd element going after the input (UPPER) or before it (LOWER).
                    output[d] = (inputSpatial[d] + strides[d] - 1) / strides[d];
                    long total = Math.max(0, (output[d] - 1) * strides[d] + extent - inputSpatial[d]);
                    long small = total / 2;
                    begin[d] = autoPad.equals("SAME_UPPER") ? small : total - small;
                    end[d] = total - begin[d];
                }
                default -> throw node.badAttribute("auto_pad", autoPad, "NOTSET, VALID, SAME_UPPER or SAME_LOWER");
            }
        }
        return new WindowGeometry(inputSpatial.clone(), kernel.clone(), strides, dilations, begin, end, output);
    }

    /**
     * The windows of {@code kernel} taps, {@code strides} apart, without dilation, over an input of shape {@code input}
     * padded by {@code padBegin} and {@code padEnd}: as many as fit.
     */
    static WindowGeometry of(long[] input, long[] kernel, long[] strides, long[] padBegin, long[] padEnd) {
        long[] output = new long[input.length];
        long[] dilations = new long[input.length];
        for (int d = 0; d < input.length; d++) {
            output[d] = (input[d] + padBegin[d] + padEnd[d] - kernel[d]) / strides[d] + 1;
            dilations[d] = 1;
        }
        return new WindowGeometry(input.clone(), kernel.clone(), strides.clone(), dilations, padBegin.clone(), padEnd.clone(), output);
    }

    private static long explicitOutputSize(Node node, long input, long padBegin, long padEnd, long extent, long stride,
                                           boolean ceilMode) {
        long room = input + padBegin + padEnd - extent;
        if (room < 0) {
            throw node.error("the window (extent " + extent + ") is larger than the padded input ("
                + (input + padBegin + padEnd) + ")");
        }
        if (!ceilMode) return room / stride + 1;
        long size = (room + stride - 1) / stride + 1;
        // A last window that would start in the padding after the input sees no input element: ONNX drops it.
        return (size - 1) * stride >= input + padBegin ? size - 1 : size;
    }

    private static long[] ones(int n) {
        long[] a = new long[n];
        Arrays.fill(a, 1);
        return a;
    }

    private static long[] positive(Node node, String attribute, long[] values, int rank) {
        if (values.length != rank) throw node.badAttribute(attribute, values, rank + " values for rank-" + rank + " windows");
        if (Arrays.stream(values).anyMatch(v -> v < 1)) throw node.badAttribute(attribute, values, "values of 1 or more");
        return values;
    }

    /**
     * The window of the convolution that takes a stride-1 convolution's output gradient back to its input: it slides
     * over the output, padded by dilation * (kernel - 1) minus this window's padding on each side, with the kernel
     * flipped, and its outputs are this window's input positions. On each input position its taps meet the output
     * positions whose windows hold it, the first output position first. Empty for strides other than 1 or padding
     * wider than the window's extent, where no such window exists.
     */
    public Optional<WindowGeometry> transposed() {
        int n = rank();
        long[] begin = new long[n], end = new long[n];
        for (int d = 0; d < n; d++) {
            long reach = dilations[d] * (kernel[d] - 1);
            begin[d] = reach - padBegin[d];
            end[d] = reach - padEnd[d];
            if (strides[d] != 1 || begin[d] < 0 || end[d] < 0) return Optional.empty();
        }
        return Optional.of(new WindowGeometry(output.clone(), kernel.clone(), strides.clone(), dilations.clone(), begin, end,
            input.clone()));
    }

    /** The indices of an element of an N x C x D1..Dn tensor (or M x C x K1..Kn weights). */
    public static Expr[] indices(Expr batch, Expr channel, Expr[] spatial) {
        Expr[] all = new Expr[2 + spatial.length];
        all[0] = batch;
        all[1] = channel;
        System.arraycopy(spatial, 0, all, 2, spatial.length);
        return all;
    }

    public int rank() { return input.length; }

    /** The output's spatial shape. */
    public long[] outputShape() { return output.clone(); }

    /** The input's size along spatial axis {@code axis}. */
    public long inputSize(int axis) { return input[axis]; }

    public long stride(int axis) { return strides[axis]; }

    public long kernelSize(int axis) { return kernel[axis]; }

    public long dilation(int axis) { return dilations[axis]; }

    public long padBefore(int axis) { return padBegin[axis]; }

    public long padAfter(int axis) { return padEnd[axis]; }

    /** Receives one tap of a window: its position in the input and its index in the kernel, per axis. */
    public interface TapVisitor {
        void visit(Expr[] inputPosition, Expr[] tap);
    }

    /**
     * Loops over the taps of the window at output position {@code outputPosition}, calling the visitor
     * for those inside the input. The bounds test of an axis sits right inside that axis's loop, so taps
     * in the padding skip the inner loops too.
     */
    public void forEachTap(KernelBuilder kb, Expr[] outputPosition, TapVisitor visitor) {
        forEachLeadingTap(kb, outputPosition, visitor);
    }

    /**
     * Like {@link #forEachTap} over the first {@code leadingOutputPosition.length} axes only: the visitor gets
     * positions and taps of those axes, and handles the remaining axes itself.
     */
    void forEachLeadingTap(KernelBuilder kb, Expr[] leadingOutputPosition, TapVisitor visitor) {
        int axes = leadingOutputPosition.length;
        nest(kb, leadingOutputPosition, 0, new Expr[axes], new Expr[axes], false, visitor);
    }

    /**
     * Like {@link #forEachTap}, but a window of at most {@value #UNROLLED_TAPS} taps is written out tap by tap,
     * with constant tap indices and no loops. Where a kernel computes in an emulated datatype LLVM unrolls no loop
     * ({@code Compiler.unrollsLoops}), and a pool's short loops over taps inside its loop over outputs kept that
     * loop from vectorizing. The visitor sees the same taps in the same order, so results keep their bits.
     */
    public void forEachTapUnrolled(KernelBuilder kb, Expr[] outputPosition, TapVisitor visitor) {
        int axes = outputPosition.length;
        boolean unrolled = Arrays.stream(kernel).reduce(1, Math::multiplyExact) <= UNROLLED_TAPS;
        nest(kb, outputPosition, 0, new Expr[axes], new Expr[axes], unrolled, visitor);
    }

    private void nest(KernelBuilder kb, Expr[] out, int axis, Expr[] position, Expr[] tap, boolean unrolled,
                      TapVisitor visitor) {
        if (axis == out.length) {
            visitor.visit(position.clone(), tap.clone());
            return;
        }
        Consumer<Expr> atTap = k -> {
            Expr p = inputPosition(axis, out[axis], k);
            position[axis] = p;
            tap[axis] = k;
            Expr inside = insideInput(axis, p);
            Runnable inner = () -> nest(kb, out, axis + 1, position, tap, unrolled, visitor);
            if (inside == null) inner.run();
            else kb.when(inside, inner);
        };
        if (!unrolled) kb.loop(kernel[axis], atTap);
        else for (long k = 0; k < kernel[axis]; k++) atTap.accept(idx(k));
    }

    /** Where tap {@code tap} of the window at output index {@code out} falls in the input, along this axis. */
    Expr inputPosition(int axis, Expr out, Expr tap) {
        return add(sub(mul(out, strides[axis]), idx(padBegin[axis])), mul(tap, dilations[axis]));
    }

    /**
     * The first output index on this axis whose window has tap {@code tap} inside the input. With
     * {@link #validOutputEnd} it bounds a loop over outputs that needs no test per element: the outputs o with
     * 0 <= o*stride - padBegin + tap*dilation < input are exactly those from here to the end.
     */
    Expr firstValidOutput(int axis, Expr tap) {
        if (padBegin[axis] == 0) return idx(0);
        // ceil(max(padBegin - tap*dilation, 0) / stride), with a non-negative numerator so division truncates right.
        Expr before = max(sub(idx(padBegin[axis]), mul(tap, dilations[axis])), 0);
        return div(add(before, strides[axis] - 1), strides[axis]);
    }

    /** One past the last output index on this axis whose window has tap {@code tap} inside the input. */
    Expr validOutputEnd(int axis, Expr tap) {
        if (lastTapPosition(axis) < input[axis]) return idx(output[axis]);
        // Outputs with o*stride < input + padBegin - tap*dilation: ceil of that bound over the stride, at least 0.
        Expr bound = max(sub(idx(input[axis] + padBegin[axis]), mul(tap, dilations[axis])), 0);
        return min(div(add(bound, strides[axis] - 1), strides[axis]), output[axis]);
    }

    /** Whether some tap of some window falls outside the input, into the padding. */
    public boolean reachesPadding() {
        for (int axis = 0; axis < rank(); axis++) {
            if (padBegin[axis] > 0 || lastTapPosition(axis) >= input[axis]) return true;
        }
        return false;
    }

    /** The condition that position p on this axis is inside the input, or null when every window's is. */
    Expr insideInput(int axis, Expr p) {
        Expr low = padBegin[axis] > 0 ? ge(p, 0) : null;
        Expr high = lastTapPosition(axis) >= input[axis] ? lt(p, input[axis]) : null;
        if (low == null) return high;
        return high == null ? low : and(low, high);
    }

    private long lastTapPosition(int axis) {
        return (output[axis] - 1) * strides[axis] - padBegin[axis] + (kernel[axis] - 1) * dilations[axis];
    }

    /**
     * AveragePool's mean of the window at output position {@code out}, {@code sum} (REAL) divided by the taps
     * counted on every axis ({@link #tapCount}), at most the kernel's size.
     */
    public Expr mean(Expr sum, Expr[] out, boolean countPadding) {
        Expr count = tapCount(0, out[0], countPadding);
        for (int axis = 1; axis < rank(); axis++) count = mul(count, tapCount(axis, out[axis], countPadding));
        return divideByCount(sum, count, Arrays.stream(kernel).reduce(1, Math::multiplyExact));
    }

    /**
     * How many taps of the window at output index {@code out} on this axis AveragePool divides by: those
     * inside the input, or with {@code countPadding} those inside the input and its explicit padding
     * (never the overhang ceil_mode adds). An I64 expression, a constant where every window is whole.
     */
    private Expr tapCount(int axis, Expr out, boolean countPadding) {
        long k = kernel[axis];
        long d = dilations[axis];
        long pb = padBegin[axis];
        Expr start = mul(out, strides[axis]);
        // Taps t with start - pb + t*d < limit number ceil((limit + pb - start) / d), written for truncating
        // division; where that numerator is not positive the window counts nothing and the clamp below holds.
        long limit = countPadding ? input[axis] + padEnd[axis] : input[axis];
        Expr belowLimit = lastTapPosition(axis) >= limit ? min(div(sub(idx(limit + pb + d - 1), start), d), k) : idx(k);
        // Every window starts inside the padded input, so with padding counted it holds at least one tap.
        if (countPadding) return belowLimit;
        // Taps before the input: start - pb + t*d < 0, ceil((pb - start) / d) of them where that is positive.
        Expr beforeInput = pb > 0 ? max(div(sub(idx(pb + d - 1), start), d), 0) : idx(0);
        return max(sub(belowLimit, beforeInput), 0);
    }
}
