package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Arrays;
import java.util.function.Consumer;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * A tuned schedule of {@link Conv}: it vectorizes along the last spatial axis of the output: per output row, a scratch row of accumulators
 * takes each term (input channel, then taps in order) for every output position of the row, the loop
 * over positions innermost. Taps in the padding are left out by bounding that loop to the positions
 * whose tap is inside the input, so the inner loop has no conditions. Fits wide outputs (early layers).
 */
final class ConvAlongRows {
    private ConvAlongRows() {}

    static void lower(Conv.Shape s, KernelBuilder kb) {
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
        // Threads divide the groups among themselves, or the maps of the one group.
        kb.loop(s.batch(), batch -> kb.loop(s.groups(), s.groups() > 1, group -> kb.loop(s.mapsPerGroup(), s.groups() == 1, mapInGroup -> {
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

    private static long constantOf(Expr e) { return ((Expr.IntConst) e).value(); }

    private static Expr[] append(Expr[] leading, Expr last) {
        Expr[] all = Arrays.copyOf(leading, leading.length + 1);
        all[leading.length] = last;
        return all;
    }
}
