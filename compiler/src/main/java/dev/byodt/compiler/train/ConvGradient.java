package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.WindowGeometry;

import java.util.Arrays;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * Conv (grouped, strided, dilated, padded, N-d): the forward nest is walked again, output element by output
 * element and tap by tap, and each tap's product is turned around: dX[tap's input position] += dY * W[tap]
 * and dW[tap] += dY * X[tap's input position], into accumulators; taps in the padding are skipped as the
 * forward pass skips them. dB[m] sums dY over the batch and the positions of map m. Tuned, they run in the
 * schedules of {@link ConvGradientSchedules}.
 */
final class ConvGradient implements GradientRule {
    static void registerAll() {
        Gradients.register("Conv", new ConvGradient());
    }

    @Override
    public boolean differentiable(Node node, int input) { return input < 3; }

    @Override
    public void lower(Node node, int input, GradientKernel g) {
        KernelBuilder kb = g.kb();
        Buffer x = g.input(0);
        Buffer w = g.input(1);
        Buffer dy = g.outputGradient();
        Buffer grad = g.gradient();
        long groups = node.intAttr("group", 1);
        long channelsPerGroup = w.dim(1);
        long mapsPerGroup = w.dim(0) / groups;
        long[] spatial = Arrays.copyOfRange(x.shape(), 2, x.rank());
        WindowGeometry window = WindowGeometry.of(node, spatial, Arrays.copyOfRange(w.shape(), 2, w.rank()));
        if (g.lanes().isPresent()) {
            ConvGradientSchedules.Shape shape = new ConvGradientSchedules.Shape(x, w, dy, groups, window);
            int lanes = g.lanes().getAsInt();
            switch (input) {
                case 0 -> { if (ConvGradientSchedules.input(kb, shape, grad, g.arithmetic().get())) return; }
                case 1 -> {
                    ConvGradientSchedules.weights(kb, shape, grad, lanes);
                    return;
                }
                default -> {
                    ConvGradientSchedules.bias(kb, shape, grad);
                    return;
                }
            }
        }
        if (input == 2) {
            kb.loop(w.dim(0), map -> {
                Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
                kb.loop(x.dim(0), batch -> kb.loops(window.outputShape(), at -> kb.assign(sum, accumulate(kb.get(sum),
                    kb.load(dy, flatIndex(dy.shape(), WindowGeometry.indices(batch, map, at)))))));
                kb.store(grad, map, cast(ScalarType.REAL, kb.get(sum)));
            });
            return;
        }
        Buffer acc = Accumulators.zeroed(kb, grad.shape());
        kb.loop(x.dim(0), batch -> kb.loop(groups, group -> kb.loop(mapsPerGroup, mapInGroup -> {
            Expr map = add(mul(group, mapsPerGroup), mapInGroup);
            kb.loops(window.outputShape(), at -> {
                Expr dyAt = kb.load(dy, flatIndex(dy.shape(), WindowGeometry.indices(batch, map, at)));
                kb.loop(channelsPerGroup, channelInGroup -> {
                    Expr channel = add(mul(group, channelsPerGroup), channelInGroup);
                    window.forEachTap(kb, at, (position, tap) -> {
                        Expr xIndex = flatIndex(x.shape(), WindowGeometry.indices(batch, channel, position));
                        Expr wIndex = flatIndex(w.shape(), WindowGeometry.indices(map, channelInGroup, tap));
                        Expr target = input == 0 ? xIndex : wIndex;
                        Expr other = input == 0 ? kb.load(w, wIndex) : kb.load(x, xIndex);
                        kb.store(acc, target, mac(kb.load(acc, target), dyAt, other));
                    });
                });
            });
        })));
        Accumulators.round(kb, acc, grad);
    }
}
