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
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * ONNX Conv (opsets 1 and 11): N-d grouped, strided, dilated, padded convolution of X (N x C x D1..Dn)
 * with weights W (M x C/group x K1..Kn) plus an optional bias B (M). Each output element sums its input
 * channels times its kernel window, in that order, one term after the other (no reassociation); the
 * loop over outputs is the innermost, so that it vectorizes, either along output rows (on padded planes,
 * {@link PaddedPlaneConv}, where the stride is 1) or across output channels, whichever is longer.
 */
final class Conv implements Operator {
    static void registerAll() {
        Operators.register("Conv", new Conv());
    }

    /** The checked shapes of one Conv node. */
    private record Shape(long batch, long channels, long featureMaps, long groups, long[] inputSpatial,
                         WindowGeometry window) {
        long channelsPerGroup() { return channels / groups; }

        long mapsPerGroup() { return featureMaps / groups; }

        long[] outputShape() {
            long[] spatial = window.outputShape();
            long[] shape = new long[2 + spatial.length];
            shape[0] = batch;
            shape[1] = featureMaps;
            System.arraycopy(spatial, 0, shape, 2, spatial.length);
            return shape;
        }
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        return List.of(Operands.floatTensor(shape(node).outputShape()));
    }

    private static Shape shape(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "X"), "X", 3);
        TensorType w = Operands.floatInput(node, 1, "W");
        TensorType b = Operands.optionalFloatInput(node, 2, "B");
        if (w.rank() != x.rank()) {
            throw node.error("weights W of shape " + Shapes.format(w.shape()) + " do not match input X of shape "
                + Shapes.format(x.shape()));
        }
        long groups = node.intAttr("group", 1);
        long channels = x.dim(1);
        long maps = w.dim(0);
        if (groups < 1 || channels % groups != 0 || maps % groups != 0 || w.dim(1) * groups != channels) {
            throw node.error("group=" + groups + " does not fit " + channels + " input channels and weights of shape "
                + Shapes.format(w.shape()));
        }
        long[] kernel = Arrays.copyOfRange(w.shape(), 2, w.rank());
        long[] declared = node.intsAttr("kernel_shape", kernel);
        if (!Arrays.equals(declared, kernel)) {
            throw node.badAttribute("kernel_shape", declared, "the weights' spatial shape " + Shapes.format(kernel));
        }
        if (b != null && (b.rank() != 1 || b.dim(0) != maps)) {
            throw node.error("bias B has shape " + Shapes.format(b.shape()) + ", expected " + maps);
        }
        long[] spatial = Arrays.copyOfRange(x.shape(), 2, x.rank());
        return new Shape(x.dim(0), channels, maps, groups, spatial, WindowGeometry.of(node, spatial, kernel));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Shape s = shape(node);
        long[] outSpatial = s.window().outputShape();
        long rowLength = outSpatial[outSpatial.length - 1];
        Value weights = node.input(1);
        if (weights.isConstant() && s.mapsPerGroup() > rowLength) lowerAcrossMaps(s, weights.constant(), kb);
        else if (PaddedPlaneConv.fits(s.window())) {
            PaddedPlaneConv.lower(kb, s.batch(), s.channels(), s.groups(), s.mapsPerGroup(), s.window());
        } else lowerAlongRows(s, kb);
    }

    /**
     * Vectorizes along the last spatial axis of the output: per output row, a scratch row of accumulators
     * takes each term (input channel, then taps in order) for every output position of the row, the loop
     * over positions innermost. Taps in the padding are left out by bounding that loop to the positions
     * whose tap is inside the input, so the inner loop has no conditions. Fits wide outputs (early layers).
     */
    private static void lowerAlongRows(Shape s, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer w = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long[] outSpatial = window.outputShape();
        int last = outSpatial.length - 1;
        long rowLength = outSpatial[last];
        long kernelWidth = w.dim(w.rank() - 1);
        // The interior of a row: the outputs every tap of the row's window reaches, the same run for each tap,
        // so that the vectorized loop over it has a fixed trip count and touches the accumulators at the same
        // offsets each time (shifted runs would defeat store-to-load forwarding between consecutive taps).
        long interiorStart = constantOf(window.firstValidOutput(last, idx(0)));
        long interiorEnd = Math.max(interiorStart, constantOf(window.validOutputEnd(last, idx(kernelWidth - 1))));
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {rowLength});
        kb.loop(s.batch(), batch -> kb.loop(s.groups(), group -> kb.loop(s.mapsPerGroup(), mapInGroup -> {
            Expr map = add(mul(group, s.mapsPerGroup()), mapInGroup);
            kb.loops(Arrays.copyOf(outSpatial, last), row -> {
                kb.loop(rowLength, o -> kb.store(acc, o, constant(ScalarType.ACC, 0)));
                kb.loop(s.channelsPerGroup(), channelInGroup -> {
                    Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                    window.forEachLeadingTap(kb, row, (position, tap) -> kb.loop(kernelWidth, t -> {
                        Expr wAt = kb.load(w, flatIndex(w.shape(), WindowGeometry.indices(map, channelInGroup, append(tap, t))));
                        Expr first = window.firstValidOutput(last, t);
                        Expr end = window.validOutputEnd(last, t);
                        Consumer<Expr> term = o -> {
                            Expr[] at = append(position, window.inputPosition(last, o, t));
                            Expr xAt = kb.load(x, flatIndex(x.shape(), WindowGeometry.indices(batch, channel, at)));
                            kb.store(acc, o, mac(kb.load(acc, o), xAt, wAt));
                        };
                        // The outputs this tap reaches, in three runs: before the interior, the interior, after it.
                        kb.loop(sub(min(idx(interiorStart), end), first), i -> term.accept(add(first, i)));
                        kb.loop(interiorEnd - interiorStart, i -> term.accept(add(i, interiorStart)));
                        kb.loop(sub(end, idx(interiorEnd)), i -> term.accept(add(i, interiorEnd)));
                    }));
                });
                kb.loop(rowLength, o -> {
                    Expr result = cast(ScalarType.REAL, kb.load(acc, o));
                    if (bias != null) result = add(result, kb.load(bias, map));
                    kb.store(y, flatIndex(y.shape(), WindowGeometry.indices(batch, map, append(row, o))), result);
                });
            });
        })));
    }

    /**
     * Vectorizes across the output channels of a group: per output position, a scratch row of accumulators,
     * one per channel, takes each term (input channel, then taps in order), the loop over channels innermost.
     * The weights are packed at compile time so that loop reads them contiguously. Fits outputs with few
     * positions and many channels (late layers, where each window covers the whole input).
     *
     * <p>A few neighbouring positions along the last axis take each term together: their sums are
     * independent, so the adder works on several at once instead of waiting for one sum's previous add,
     * and each packed weight row loaded serves all of them.
     */
    private static void lowerAcrossMaps(Shape s, Tensor weights, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer w = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long maps = s.mapsPerGroup();
        long[] taps = Arrays.copyOfRange(w.shape(), 2, w.rank());
        long termsPerMap = s.channelsPerGroup() * Shapes.elementCount(taps, w.name());
        // packed[group][channelInGroup][taps...][mapInGroup]
        Buffer packed = kb.constant("packed", ScalarType.REAL, PackedWeights.transposed(weights, s.groups(), maps, termsPerMap));
        long[] packedShape = new long[3 + taps.length];
        packedShape[0] = s.groups();
        packedShape[1] = s.channelsPerGroup();
        System.arraycopy(taps, 0, packedShape, 2, taps.length);
        packedShape[packedShape.length - 1] = maps;
        long[] outSpatial = window.outputShape();
        int last = outSpatial.length - 1;
        long together = positionsTogether(outSpatial[last]);
        long[] blockedSpatial = outSpatial.clone();
        blockedSpatial[last] = outSpatial[last] / together;
        Buffer acc = kb.scratch("acc", ScalarType.ACC, new long[] {together, maps});
        kb.loop(s.batch(), batch -> kb.loop(s.groups(), group -> kb.loops(blockedSpatial, block -> {
            kb.loop(together * maps, i -> kb.store(acc, i, constant(ScalarType.ACC, 0)));
            kb.loop(s.channelsPerGroup(), channelInGroup -> {
                Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                kb.loops(taps, tap -> kb.loop(together, j -> {
                    Expr[] at = block.clone();
                    at[last] = add(mul(block[last], together), j);
                    Expr[] position = new Expr[at.length];
                    Expr inside = null;
                    for (int axis = 0; axis < at.length; axis++) {
                        position[axis] = window.inputPosition(axis, at[axis], tap[axis]);
                        Expr axisInside = window.insideInput(axis, position[axis]);
                        if (axisInside != null) inside = inside == null ? axisInside : and(inside, axisInside);
                    }
                    Runnable term = () -> {
                        Expr xAt = kb.load(x, flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)));
                        Expr[] packedAt = new Expr[packedShape.length];
                        packedAt[0] = group;
                        packedAt[1] = channelInGroup;
                        System.arraycopy(tap, 0, packedAt, 2, tap.length);
                        kb.loop(maps, m -> {
                            packedAt[packedAt.length - 1] = m;
                            Expr wAt = kb.load(packed, flatIndex(packedShape, packedAt));
                            Expr accAt = add(mul(j, maps), m);
                            kb.store(acc, accAt, mac(kb.load(acc, accAt), xAt, wAt));
                        });
                    };
                    if (inside == null) term.run();
                    else kb.when(inside, term);
                }));
            });
            kb.loop(together, j -> kb.loop(maps, m -> {
                Expr[] at = block.clone();
                at[last] = add(mul(block[last], together), j);
                Expr map = add(mul(group, maps), m);
                Expr result = cast(ScalarType.REAL, kb.load(acc, add(mul(j, maps), m)));
                if (bias != null) result = add(result, kb.load(bias, map));
                kb.store(y, flatIndex(y.shape(), WindowGeometry.indices(batch, map, at)), result);
            }));
        })));
    }

    /** How many positions along a row of {@code rowLength} take each term together: the largest divisor up to 8. */
    private static long positionsTogether(long rowLength) {
        for (long n = Math.min(8, rowLength); n > 1; n--) {
            if (rowLength % n == 0) return n;
        }
        return 1;
    }

    private static long constantOf(Expr e) { return ((Expr.IntConst) e).value(); }

    private static Expr[] append(Expr[] leading, Expr last) {
        Expr[] all = Arrays.copyOf(leading, leading.length + 1);
        all[leading.length] = last;
        return all;
    }
}
