package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Shapes;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * ONNX Conv (opsets 1 and 11): N-d grouped, strided, dilated, padded convolution of X (N x C x D1..Dn)
 * with weights W (M x C/group x K1..Kn) plus an optional bias B (M). Each output element sums its input
 * channels times its kernel window, in that order, one term after the other (no reassociation). Its tuned
 * schedules keep that order for each output and put the loop over outputs innermost, so that it vectorizes:
 * along output rows or across output channels, whichever is longer; all but Winograd's ({@link WinogradConv}),
 * which --conv-algorithm winograd asks for.
 */
final class Conv implements Operator {
    static void registerAll() {
        Operators.register("Conv", new Conv());
    }

    /** The checked shapes of one Conv node. */
    record Shape(long batch, long channels, long featureMaps, long groups, long[] inputSpatial,
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
        return shape(node, Operands.floatInput(node, 0, "X"), Operands.floatInput(node, 1, "W"),
            Operands.optionalFloatInput(node, 2, "B"));
    }

    /** The checked shapes of a convolution of x by weights w with the optional bias b (null when absent). */
    static Shape shape(Node node, TensorType xType, TensorType w, TensorType b) {
        TensorType x = Operands.requireRank(node, xType, "X", 3);
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
        long[] kernel = Operands.kernelShape(node, w);
        Operands.requireBiasPerMap(node, b, maps);
        long[] spatial = Arrays.copyOfRange(x.shape(), 2, x.rank());
        return new Shape(x.dim(0), channels, maps, groups, spatial, WindowGeometry.of(node, spatial, kernel));
    }

    /**
     * The reference nest: each output sums, from +0, its input channels times its kernel window, in that order,
     * one term after the other, leaving out the taps in the padding; then the bias is added to the rounded sum.
     */
    @Override
    public void lower(Node node, KernelBuilder kb) {
        Shape s = shape(node);
        Buffer x = kb.input(0);
        Buffer w = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        kb.loop(s.batch(), batch -> kb.loop(s.groups(), group -> kb.loop(s.mapsPerGroup(), mapInGroup -> {
            Expr map = add(mul(group, s.mapsPerGroup()), mapInGroup);
            kb.loops(window.outputShape(), at -> {
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(s.channelsPerGroup(), channelInGroup -> {
                    Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                    window.forEachTap(kb, at, (position, tap) -> {
                        Expr xAt = kb.load(x, flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position)));
                        Expr wAt = kb.load(w, flatIndex(w.shape(), WindowGeometry.indices(map, channelInGroup, tap)));
                        kb.assign(sum, mac(kb.get(sum), xAt, wAt));
                    });
                });
                Expr result = cast(ScalarType.REAL, kb.get(sum));
                if (bias != null) result = add(result, kb.load(bias, map));
                kb.store(y, flatIndex(y.shape(), WindowGeometry.indices(batch, map, at)), result);
            });
        })));
    }

    /**
     * One of nine tuned schedules, by the shape: in sums that suit register tiles ({@link NodeArithmetic#tileLanes}), with constant weights and two spatial axes,
     * a pointwise convolution (1x1, stride 1, no padding) with at least a vector of positions as maps by positions in register tiles where
     * that computes less ({@link PointwiseConv}), else, asked for and faster, a 3x3 convolution of stride 1 by Winograd's transforms
     * ({@link WinogradConv}), else a convolution over non-overlapping patches as the matrix product of patches by maps
     * ({@link PatchConv}), else, with one group and output rows of a vector or more, as maps by runs of output rows in register tiles
     * where that computes less, stores counted ({@link OutputRowConv}), else, with at least a vector of output maps a group, as a matrix product in register
     * tiles of positions by maps ({@link RegisterTiledConv}); else across output channels ({@link ConvAcrossMaps}) where a
     * group has more channels than an output row has positions (the weights packed at compile time, or at run
     * time when they are inputs, as in training), else along output rows: in two dimensions, each output's sum in
     * registers for a depthwise convolution of any stride ({@link DepthwiseConv}) and on padded planes for others of
     * stride 1 ({@link PaddedPlaneConv}), else directly ({@link ConvAlongRows}).
     */
    @Override
    public void lowerScheduled(Node node, KernelBuilder kb, NodeArithmetic arithmetic) {
        int lanes = arithmetic.lanes();
        Shape s = shape(node);
        long[] outSpatial = s.window().outputShape();
        long rowLength = outSpatial[outSpatial.length - 1];
        Value weights = node.input(1);
        if (PointwiseConv.fits(s, weights.isConstant(), arithmetic)) {
            PointwiseConv.lower(s, weights.constant(), kb, arithmetic.tileLanes());
        }
        else if (WinogradConv.fits(s, weights.isConstant(), arithmetic)) WinogradConv.lower(s, weights.constant(), kb, arithmetic.tileLanes());
        else if (PatchConv.fits(s, weights.isConstant(), arithmetic)) PatchConv.lower(s, weights.constant(), kb, arithmetic.tileLanes());
        else if (OutputRowConv.fits(s, weights.isConstant(), arithmetic)) OutputRowConv.lower(s, weights.constant(), kb, arithmetic.tileLanes());
        else if (RegisterTiledConv.fits(s, weights.isConstant(), arithmetic)) {
            RegisterTiledConv.lower(s, weights.constant(), kb, arithmetic.tileLanes());
        }
        else if (s.mapsPerGroup() > rowLength) {
            ConvAcrossMaps.lower(s, weights.isConstant() ? Optional.of(weights.constant()) : Optional.empty(), kb);
        }
        else if (DepthwiseConv.fits(s)) DepthwiseConv.lower(s, kb, lanes);
        else if (PaddedPlaneConv.fits(s.window())) {
            PaddedPlaneConv.lower(kb, s.groups(), s.mapsPerGroup(), s.window(), lanes);
        } else ConvAlongRows.lower(s, kb);
    }
}
