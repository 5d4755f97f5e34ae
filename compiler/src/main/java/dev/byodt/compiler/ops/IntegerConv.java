package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The integer convolutions of ConvInteger and QLinearConv: Conv's window (groups, strides, dilations, pads,
 * auto_pad), each output the int32 sum over its input channels and kernel window of
 * {@code (x - x_zero_point) * (w - w_zero_point)}, the zero point of x one per tensor, that of w one per tensor
 * or one per output channel. ONNX pads x with its zero point, whose terms are 0, so taps in the padding are left
 * out. Integer arithmetic throughout, whatever the datatype.
 *
 * @param shape      the convolution's shapes
 * @param x          the input holding x
 * @param xZeroPoint x's zero point
 * @param w          the input holding the weights
 * @param wZeroPoint the weights' zero point
 */
record IntegerConv(Conv.Shape shape, int x, QuantizationParameter xZeroPoint, int w, QuantizationParameter wZeroPoint) {
    /** What is stored for an output of channel {@code map} given its int32 sum. */
    interface Output {
        Expr of(Expr map, Expr sum);
    }

    /** The convolution of input {@code x} by weights {@code w}, with the zero points in inputs {@code xZeroPoint} and {@code wZeroPoint}. */
    static IntegerConv of(Node node, int x, int xZeroPoint, int w, int wZeroPoint) {
        Conv.Shape shape = Conv.shape(node, QuantizationParameter.integerInput(node, x, "x"),
            QuantizationParameter.integerInput(node, w, "w"), null);
        long maps = shape.featureMaps();
        return new IntegerConv(shape,
            x, QuantizationParameter.zeroPoint(node, xZeroPoint, "x_zero_point", node.input(x).declaredType(), 1, "tensor", false),
            w, QuantizationParameter.zeroPoint(node, wZeroPoint, "w_zero_point", node.input(w).declaredType(), maps, "output channel", true));
    }

    /** The reference nest, as Conv's: each output sums its input channels times its kernel window, in that order. */
    void emit(KernelBuilder kb, Output output) {
        Conv.Shape s = shape;
        Buffer xBuffer = kb.input(x);
        Buffer wBuffer = kb.input(w);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        kb.loop(s.batch(), batch -> kb.loop(s.groups(), group -> kb.loop(s.mapsPerGroup(), mapInGroup -> {
            Expr map = add(mul(group, s.mapsPerGroup()), mapInGroup);
            kb.loops(window.outputShape(), at -> {
                Expr xZero = xZeroPoint.zeroPoint(kb, idx(0));
                Expr wZero = wZeroPoint.zeroPoint(kb, map);
                Local sum = kb.local("sum", cast(ScalarType.I32, idx(0)));
                kb.loop(s.channelsPerGroup(), channelInGroup -> {
                    Expr channel = add(mul(group, s.channelsPerGroup()), channelInGroup);
                    window.forEachTap(kb, at, (position, tap) -> {
                        Expr xAt = kb.load(xBuffer, flatIndex(xBuffer.shape(), WindowGeometry.indices(batch, channel, position)));
                        Expr wAt = kb.load(wBuffer, flatIndex(wBuffer.shape(), WindowGeometry.indices(map, channelInGroup, tap)));
                        kb.assign(sum, add(kb.get(sum), mul(sub(xAt, xZero), sub(wAt, wZero))));
                    });
                });
                kb.store(y, flatIndex(y.shape(), WindowGeometry.indices(batch, map, at)), output.of(map, kb.get(sum)));
            });
        })));
    }
}
