package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the items of one call of a compiled model lie in the whole run, so that stochastic rounding's counters
 * (docs/datatypes.md, "Stochastic rounding") number an item's elements by its place in the run, not in the call:
 * the same item gets the same random bits whatever the batch (--batch), the threads and the target. A model
 * compiled from a graph with some stochastically rounding kernel takes one more input, last, {@link #INPUT}: the
 * index in the run of the call's first item (0 for a model called once). The items of a call lie along the first
 * axis of the graph's first input, {@code perCall} of them, and a loop nest over them runs item after item, its
 * outermost loop over the items or over a flat index that begins with the item (operators' nests are written so,
 * rows of a row-major tensor whose first axis is the batch); its counters then count from the first item's,
 * {@link #offset}. Its own loop nests, not a global counter the model keeps, because a call must stay a function of
 * its inputs: threads and concurrent calls share nothing.
 */
public record CallItems(Buffer firstItem, long perCall) {
    /** The input: int64, one element, the run's index of the call's first item. */
    public static final String INPUT = "rounding.item";

    /** The items of a call of {@code perCall} items (at least 1). */
    public static CallItems of(long perCall) {
        return new CallItems(new Buffer(INPUT, ScalarType.I64, new long[]{1}), Math.max(1, perCall));
    }

    /** The input's description, for the program's signature. */
    public TensorSpec spec() { return new TensorSpec(INPUT, ElementType.INT64, firstItem.shape()); }

    /**
     * What the counters of a loop nest whose outermost loop takes {@code extent} iterations add to the outermost
     * loop's counter: the call's first item times the iterations an item takes, where the extent is a known multiple
     * of the items (the loop runs over them); else 0 (a loop that does not, whose counters are the same in every call).
     * A statement outside every loop is a loop of one iteration.
     */
    public Expr offset(Expr extent) {
        if (!(extent instanceof Expr.IntConst c) || c.value() % perCall != 0) return Exprs.idx(0);
        return Exprs.mul(new Expr.Load(firstItem, Exprs.idx(0)), c.value() / perCall);
    }

    /**
     * Whether a constant of {@code shape} holding {@code values} is a copy per item: its first axis the call's items
     * (more than one), each copy the same bytes.
     */
    public boolean repeatsOverItems(long[] shape, MemorySegment values) {
        if (perCall < 2 || shape.length == 0 || shape[0] != perCall) return false;
        long itemBytes = values.byteSize() / perCall;
        MemorySegment first = values.asSlice(0, itemBytes);
        for (long i = 1; i < perCall; i++) {
            if (first.mismatch(values.asSlice(i * itemBytes, itemBytes)) != -1) return false;
        }
        return true;
    }

    /**
     * The inputs of a call of a model with {@code inputs}: {@code given}, followed, when the model takes {@link #INPUT},
     * by the index {@code first} of the call's first item in the run.
     */
    public static List<Tensor> withFirstItem(List<TensorSpec> inputs, List<Tensor> given, long first) {
        if (inputs.size() != given.size() + 1 || !inputs.getLast().name().equals(INPUT)) return given;
        List<Tensor> all = new ArrayList<>(given);
        all.add(Tensor.ofLongs(new long[]{1}, new long[]{first}));
        return all;
    }
}
