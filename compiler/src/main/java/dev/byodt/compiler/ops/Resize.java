package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.ne;
import static dev.byodt.compiler.kernel.Exprs.add;

/**
 * ONNX Resize (opsets 10 to 19) and Upsample (opsets 7 to 9): nearest, linear and cubic interpolation along
 * any axes, output sizes from scales or sizes (with keep_aspect_ratio_policy and axes), every coordinate
 * transformation mode, exclude_outside, antialias and tf_crop_and_resize's extrapolation_value. Resize 10 and
 * Upsample sample as Resize 11's asymmetric mode, nearest rounding down.
 *
 * <p>Which inputs an output reads and with what weights depends only on shapes and attributes, so
 * {@link ResizeAxis} works it out at compile time per axis; scales, sizes and roi must therefore be constants
 * (initializers or folded). The kernel loads each output's taps by index tables and sums weight times input in
 * the datatype, the last axis's taps innermost, as the reference nests its one-dimensional interpolations.
 * Axes where every output picks one input with weight 1 (all of nearest, and unscaled axes) only select:
 * their bits move unchanged, and nearest Resize takes any element type.
 */
final class Resize implements Operator {
    private static final Set<String> COORDINATE_MODES = Set.of("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
        "align_corners", "asymmetric", "tf_crop_and_resize");
    private static final Set<String> NEAREST_MODES = Set.of("round_prefer_floor", "round_prefer_ceil", "floor", "ceil");

    private final boolean upsample;

    private Resize(boolean upsample) {
        this.upsample = upsample;
    }

    static void registerAll() {
        Operators.register("Resize", new Resize(false));
        Operators.register("Upsample", new Resize(true));
        Operators.registerCompileTimeInputs("Resize", 1, 2);
        Operators.registerCompileTimeInputs("Upsample", 1);
    }

    /** The resolved node: each axis's sampling, and the value outside tf_crop_and_resize's region. */
    private record Plan(ResizeAxis[] axes, float extrapolation) {
        long[] outputShape() { return Arrays.stream(axes).mapToLong(ResizeAxis::outputSize).toArray(); }
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        Plan plan = plan(node);
        return List.of(new TensorType(node.input(0).type().elementType(), plan.outputShape()));
    }

    private Plan plan(Node node) {
        Value xValue = node.input(0);
        if (xValue == null) throw node.error("input X is missing");
        TensorType x = xValue.type();
        int rank = x.rank();
        boolean legacy = upsample || node.opsetVersion() < 11;
        if (upsample && node.opsetVersion() < 7) {
            throw node.error("Upsample before opset 7 (attributes width_scale and height_scale) is not supported");
        }
        String mode = node.stringAttr("mode", "nearest");
        if (!mode.equals("nearest") && !mode.equals("linear") && !(mode.equals("cubic") && !legacy)) {
            throw node.badAttribute("mode", mode, legacy ? "nearest or linear" : "nearest, linear or cubic");
        }
        if (!mode.equals("nearest") && x.elementType() != ElementType.FLOAT32) {
            throw node.error("input X '" + xValue.name() + "' is " + x.elementType() + "; " + mode
                + " interpolation needs float32 (nearest takes any type)");
        }
        String coordinateMode = legacy ? "asymmetric" : node.stringAttr("coordinate_transformation_mode", "half_pixel");
        if (!COORDINATE_MODES.contains(coordinateMode) || (coordinateMode.equals("half_pixel_symmetric") && node.opsetVersion() < 19)) {
            throw node.badAttribute("coordinate_transformation_mode", coordinateMode, "one of ONNX's modes up to opset 19");
        }
        String nearestMode = legacy ? "floor" : node.stringAttr("nearest_mode", "round_prefer_floor");
        if (!NEAREST_MODES.contains(nearestMode)) throw node.badAttribute("nearest_mode", nearestMode, String.join(", ", NEAREST_MODES));
        boolean antialias = node.intAttr("antialias", 0) != 0;
        if (antialias && mode.equals("nearest")) throw node.badAttribute("antialias", 1, "antialias is for linear and cubic");
        ResizeAxis.Sampling sampling = new ResizeAxis.Sampling(mode, coordinateMode, nearestMode,
            node.floatAttr("cubic_coeff_a", -0.75f), node.intAttr("exclude_outside", 0) != 0, antialias);

        int[] axes = axes(node, rank);
        // Per axis of X: the scale, the reference's output_width (scale * input), the output size and the roi.
        double[] scale = new double[rank];
        double[] width = new double[rank];
        long[] size = x.shape();
        float[] roiStart = new float[rank];
        float[] roiEnd = new float[rank];
        Arrays.fill(scale, 1);
        Arrays.fill(roiEnd, 1);
        for (int d = 0; d < rank; d++) width[d] = x.dim(d);
        float[] scales = scales(node, legacy);
        long[] sizes = legacy ? null : constantInput(node, 3, "sizes");
        if ((scales == null) == (sizes == null)) throw node.error("exactly one of scales and sizes must be given");
        if (scales != null) {
            requireCount(node, "scales", scales.length, axes.length);
            for (int i = 0; i < axes.length; i++) {
                int d = axes[i];
                if (!(scales[i] > 0)) throw node.error("scales " + Arrays.toString(scales) + " must all be positive");
                scale[d] = scales[i];
                width[d] = scales[i] * x.dim(d);
                size[d] = (long) Math.floor((double) scales[i] * x.dim(d));
            }
        } else {
            requireCount(node, "sizes", sizes.length, axes.length);
            for (int i = 0; i < axes.length; i++) {
                if (sizes[i] < 1) throw node.error("sizes " + Arrays.toString(sizes) + " must all be positive");
                scale[axes[i]] = (double) sizes[i] / x.dim(axes[i]);
                size[axes[i]] = sizes[i];
            }
            keepAspectRatio(node, x, axes, scale, size);
            for (int d : axes) width[d] = scale[d] * x.dim(d);
        }
        if (coordinateMode.equals("tf_crop_and_resize")) {
            float[] roi = constantFloats(node, 1, "roi");
            if (roi == null) throw node.error("tf_crop_and_resize needs input roi");
            requireCount(node, "roi", roi.length, 2 * axes.length);
            for (int i = 0; i < axes.length; i++) {
                roiStart[axes[i]] = roi[i];
                roiEnd[axes[i]] = roi[axes.length + i];
            }
        }
        ResizeAxis[] sampled = new ResizeAxis[rank];
        for (int d = 0; d < rank; d++) {
            if (size[d] < 1) throw node.error("the output would have " + size[d] + " elements along axis " + d);
            sampled[d] = ResizeAxis.of(sampling, x.dim(d), size[d], scale[d], width[d], roiStart[d], roiEnd[d]);
        }
        return new Plan(sampled, node.floatAttr("extrapolation_value", 0));
    }

    /** The axes the scales or sizes apply to: the attribute's (opset 18), normalised, or every axis. */
    private static int[] axes(Node node, int rank) {
        long[] given = node.intsAttr("axes", null);
        if (given == null) return IntStream.range(0, rank).toArray();
        int[] axes = new int[given.length];
        boolean[] seen = new boolean[rank];
        for (int i = 0; i < given.length; i++) {
            long a = given[i] < 0 ? given[i] + rank : given[i];
            if (a < 0 || a >= rank || seen[(int) a]) throw node.badAttribute("axes", given, "distinct axes of a rank-" + rank + " input");
            seen[(int) a] = true;
            axes[i] = (int) a;
        }
        return axes;
    }

    /** Scales from the attribute (Upsample 7), input 1 (Upsample 9, Resize 10) or input 2; null when absent. */
    private float[] scales(Node node, boolean legacy) {
        if (upsample && node.opsetVersion() < 9) {
            float[] scales = node.floatsAttr("scales", null);
            if (scales == null) throw node.error("attribute scales is missing");
            return scales;
        }
        float[] scales = constantFloats(node, legacy ? 1 : 2, "scales");
        if (legacy && scales == null) throw node.error("input scales is missing");
        return scales;
    }

    /** sizes as keep_aspect_ratio_policy (opset 18) adjusts them: one scale for every resized axis. */
    private static void keepAspectRatio(Node node, TensorType x, int[] axes, double[] scale, long[] size) {
        String policy = node.stringAttr("keep_aspect_ratio_policy", "stretch");
        if (policy.equals("stretch")) return;
        if (!policy.equals("not_larger") && !policy.equals("not_smaller")) {
            throw node.badAttribute("keep_aspect_ratio_policy", policy, "stretch, not_larger or not_smaller");
        }
        double common = policy.equals("not_larger") ? Double.POSITIVE_INFINITY : 0;
        for (int d : axes) common = policy.equals("not_larger") ? Math.min(common, scale[d]) : Math.max(common, scale[d]);
        for (int d : axes) {
            scale[d] = common;
            size[d] = (long) (common * x.dim(d) + 0.5);
        }
    }

    private static void requireCount(Node node, String input, int count, int axes) {
        if (count != axes) throw node.error("input " + input + " has " + count + " values, expected " + axes);
    }

    /** A float input's values, null when it is omitted or empty; it must be known at compile time. */
    private static float[] constantFloats(Node node, int i, String role) {
        Tensor t = knownInput(node, i, role);
        return t == null ? null : t.toFloatArray();
    }

    private static long[] constantInput(Node node, int i, String role) {
        Tensor t = knownInput(node, i, role);
        return t == null ? null : t.toLongArray();
    }

    private static Tensor knownInput(Node node, int i, String role) {
        Value v = node.input(i);
        if (v == null || (v.type() != null && Shapes.elementCount(v.type().shape(), v.name()) == 0)) return null;
        if (!v.isConstant()) {
            throw node.error("input " + role + " '" + v.name() + "' must be known at compile time (a constant or computed"
                + " from constants; fix it with --bind " + v.name() + "=FILE.pb)");
        }
        Tensor t = v.constant();
        if (t.elementCount() == 0) return null;
        ElementType expected = role.equals("sizes") ? ElementType.INT64 : ElementType.FLOAT32;
        if (t.type() != expected) throw node.error("input " + role + " '" + v.name() + "' is " + t.type() + ", expected " + expected);
        return t;
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Plan plan = plan(node);
        Buffer x = kb.input(0);
        Buffer y = kb.output(0);
        ResizeAxis[] axes = plan.axes();
        int rank = axes.length;
        // Per axis: null where output index o reads input o, else a table of selected indices, or of tap
        // indices and weights.
        Buffer[] selected = new Buffer[rank];
        Buffer[] tapIndex = new Buffer[rank];
        Buffer[] tapWeight = new Buffer[rank];
        Buffer[] inside = new Buffer[rank];
        for (int d = 0; d < rank; d++) {
            ResizeAxis a = axes[d];
            long[] selection = a.selection();
            if (selection != null) {
                if (!isIdentity(a, selection)) selected[d] = kb.constant("select" + d, ScalarType.I64, Tensor.ofLongs(new long[] {selection.length}, selection));
            } else {
                long[] shape = {a.outputSize(), a.taps()};
                long[] indices = new long[Math.toIntExact(a.outputSize() * a.taps())];
                float[] weights = new float[indices.length];
                for (int o = 0; o < a.outputSize(); o++) {
                    for (int t = 0; t < a.taps(); t++) {
                        indices[o * a.taps() + t] = a.index(o, t);
                        weights[o * a.taps() + t] = (float) a.weight(o, t);
                    }
                }
                tapIndex[d] = kb.constant("taps" + d, ScalarType.I64, Tensor.ofLongs(shape, indices));
                tapWeight[d] = kb.constant("weights" + d, ScalarType.REAL, Tensor.ofFloats(shape, weights));
            }
            if (!a.allInside()) {
                long[] flags = new long[Math.toIntExact(a.outputSize())];
                for (int o = 0; o < flags.length; o++) flags[o] = a.inside(o) ? 1 : 0;
                inside[d] = kb.constant("inside" + d, ScalarType.I64, Tensor.ofLongs(new long[] {flags.length}, flags));
            }
        }
        kb.loops(y.shape(), out -> {
            Expr[] source = new Expr[rank];
            for (int d = 0; d < rank; d++) source[d] = selected[d] == null ? out[d] : kb.load(selected[d], out[d]);
            Runnable interpolate = () -> kb.store(y, flatIndex(y.shape(), out),
                interpolated(kb, x, axes, tapIndex, tapWeight, out, source, 0));
            Expr within = null;
            for (int d = 0; d < rank; d++) {
                if (inside[d] == null) continue;
                Expr axisInside = ne(kb.load(inside[d], out[d]), idx(0));
                within = within == null ? axisInside : and(within, axisInside);
            }
            if (within == null) interpolate.run();
            else kb.ifElse(within, interpolate, () -> kb.store(y, flatIndex(y.shape(), out), constant(y.elementType(), plan.extrapolation())));
        });
    }

    private static boolean isIdentity(ResizeAxis a, long[] selection) {
        if (a.inputSize() != a.outputSize()) return false;
        for (int o = 0; o < selection.length; o++) if (selection[o] != o) return false;
        return true;
    }

    /**
     * The value at an output: from axis {@code axis} on, the sum over this axis's taps of weight times the
     * interpolation along the later axes at that tap (or, on a selecting axis, that interpolation at the
     * selected index). {@code source} holds the input index chosen so far on each axis.
     */
    private static Expr interpolated(KernelBuilder kb, Buffer x, ResizeAxis[] axes, Buffer[] tapIndex, Buffer[] tapWeight,
                                     Expr[] out, Expr[] source, int axis) {
        if (axis == axes.length) return kb.load(x, flatIndex(x.shape(), source));
        if (tapIndex[axis] == null) return interpolated(kb, x, axes, tapIndex, tapWeight, out, source, axis + 1);
        long taps = axes[axis].taps();
        Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
        kb.loop(taps, t -> {
            Expr row = add(mul(out[axis], taps), t);
            Expr[] at = source.clone();
            at[axis] = kb.load(tapIndex[axis], row);
            Expr inner = interpolated(kb, x, axes, tapIndex, tapWeight, out, at, axis + 1);
            kb.assign(sum, mac(kb.get(sum), kb.load(tapWeight[axis], row), inner));
        });
        return cast(ScalarType.REAL, kb.get(sum));
    }
}
