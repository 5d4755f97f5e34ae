package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;
import java.util.Optional;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * A tuned schedule of {@link Conv}: it vectorizes across the output channels of a group: per output position, a scratch row of accumulators,
 * one per channel, takes each term (input channel, then taps in order), the loop over channels innermost.
 * The weights are packed so that loop reads them contiguously ({@link PackedWeights}: at compile time, or as the
 * kernel starts when they are run-time inputs, as in training). Fits outputs with few positions and many
 * channels (late layers, where each window covers the whole input).
 *
 * <p>A few neighbouring positions along the last axis take each term together: their sums are
 * independent, so the adder works on several at once instead of waiting for one sum's previous add,
 * and each packed weight row loaded serves all of them.
 */
final class ConvAcrossMaps {
    private ConvAcrossMaps() {}

    /** {@code weights}: the constant weights, or empty for weights the kernel reads at run time. */
    static void lower(Conv.Shape s, Optional<Tensor> weights, KernelBuilder kb) {
        Buffer x = kb.input(0);
        Buffer w = kb.input(1);
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        WindowGeometry window = s.window();
        long maps = s.mapsPerGroup();
        long[] taps = Arrays.copyOfRange(w.shape(), 2, w.rank());
        long termsPerMap = s.channelsPerGroup() * Shapes.elementCount(taps, w.name());
        // packed[group][channelInGroup][taps...][mapInGroup]
        Buffer packed = weights.isPresent()
            ? kb.constant("packed", ScalarType.REAL, PackedWeights.transposed(weights.get(), s.groups(), maps, termsPerMap))
            : PackedWeights.transposedAtRunTime(kb, w, s.groups(), maps, termsPerMap);
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
        // Threads divide the groups among themselves, or the outer spatial axis of the one group.
        long[] innerSpatial = Arrays.copyOfRange(blockedSpatial, 1, blockedSpatial.length);
        kb.loop(s.batch(), batch -> kb.loop(s.groups(), s.groups() > 1, group -> kb.loop(blockedSpatial[0], s.groups() == 1, outer -> kb.loops(innerSpatial, inner -> {
            Expr[] block = new Expr[blockedSpatial.length];
            block[0] = outer;
            System.arraycopy(inner, 0, block, 1, inner.length);
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
        }))));
    }

    /** How many positions along a row of {@code rowLength} take each term together: the largest divisor up to 8. */
    private static long positionsTogether(long rowLength) {
        for (long n = Math.min(8, rowLength); n > 1; n--) {
            if (rowLength % n == 0) return n;
        }
        return 1;
    }
}
