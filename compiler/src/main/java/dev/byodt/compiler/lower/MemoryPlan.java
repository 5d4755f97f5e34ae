package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each temporary and each kernel's scratch buffer lives in the one workspace a model needs per call.
 * A temporary is live from the first kernel that touches it to the last one, a scratch buffer while its
 * kernel runs; buffers whose lifetimes share a kernel get disjoint
 * bytes, so a kernel's inputs and outputs never overlap and kernels may take them as noalias pointers.
 * Placement is greedy first-fit, largest first, at 64-byte aligned offsets (a cache line, and enough for
 * any vector load). A {@link Slice} has no placement of its own: its bytes are its whole's, which is live
 * wherever the slice is (and its offset stays aligned, which {@link ConcatsInPlace} sees to).
 */
public record MemoryPlan(Map<Buffer, Long> offsets, long workspaceBytes) {
    public static final int ALIGNMENT = 64;

    public MemoryPlan {
        offsets = Collections.unmodifiableMap(new HashMap<>(offsets));
    }

    public long offsetOf(Buffer buffer) {
        Long offset = offsets.get(buffer);
        if (offset == null) throw new IllegalArgumentException(buffer + " is neither a temporary nor a scratch buffer of this plan");
        return offset;
    }

    /** Plans a program whose buffers have machine element types (after datatype lowering). */
    public static MemoryPlan of(Program program) {
        // In program order, so that buffers of equal size and first use keep one layout from run to run
        // (the sort below is stable; a HashMap of identity-hashed buffers ordered them differently each time).
        Map<Buffer, Lifetime> lifetimes = new LinkedHashMap<>();
        for (Buffer b : program.temporaries()) lifetimes.put(b, new Lifetime(b, bytesOf(b)));
        List<Kernel> kernels = program.kernels();
        for (int k = 0; k < kernels.size(); k++) {
            for (Buffer b : kernels.get(k).scratch()) {
                Lifetime scratch = new Lifetime(b, bytesOf(b));
                lifetimes.put(b, scratch);
                touch(scratch, k);
            }
            for (Buffer b : kernels.get(k).outputs()) touch(lifetimes.get(b), k);
            for (Buffer b : kernels.get(k).loadedBuffers()) touch(lifetimes.get(b), k);
        }
        Map<Buffer, Slice> slices = new LinkedHashMap<>();
        for (Buffer b : program.slices().keySet()) {
            Slice slice = outermost(b, program.slices());
            slices.put(b, slice);
            Lifetime part = lifetimes.remove(b), whole = lifetimes.get(slice.whole());
            if (part.last >= 0) {
                touch(whole, part.first);
                touch(whole, part.last);
            }
        }
        List<Lifetime> bySize = new ArrayList<>(lifetimes.values());
        bySize.sort(Comparator.comparingLong((Lifetime l) -> -l.bytes).thenComparingInt(l -> l.first));

        List<Lifetime> placed = new ArrayList<>();
        Map<Buffer, Long> offsets = new HashMap<>();
        long workspace = 0;
        for (Lifetime l : bySize) {
            l.offset = firstFit(l, placed);
            placed.add(l);
            offsets.put(l.buffer, l.offset);
            workspace = Math.max(workspace, l.offset + l.bytes);
        }
        slices.forEach((b, slice) -> offsets.put(b, offsets.get(slice.whole()) + slice.offset() * MachineTypes.byteSize(b.elementType())));
        return new MemoryPlan(offsets, workspace);
    }

    /** Where {@code b}'s elements are in the temporary that holds it and is no slice itself, checked to fit. */
    private static Slice outermost(Buffer b, Map<Buffer, Slice> slices) {
        Slice slice = Slice.outermost(b, slices);
        if (slice.whole().elementType() != b.elementType() || slice.offset() + b.size() > slice.whole().size()) {
            throw new IllegalArgumentException(b + " does not fit " + slice.whole() + " at element " + slice.offset());
        }
        return slice;
    }

    /** The lowest aligned offset where l fits between the placed buffers that are live at the same time. */
    private static long firstFit(Lifetime l, List<Lifetime> placed) {
        List<Lifetime> conflicts = new ArrayList<>();
        for (Lifetime p : placed) {
            if (p.first <= l.last && l.first <= p.last) conflicts.add(p);
        }
        conflicts.sort(Comparator.comparingLong(p -> p.offset));
        long candidate = 0;
        for (Lifetime p : conflicts) {
            if (candidate + l.bytes <= p.offset) break;
            candidate = Math.max(candidate, alignUp(p.offset + p.bytes));
        }
        return candidate;
    }

    private static void touch(Lifetime l, int kernel) {
        if (l == null) return;
        l.first = Math.min(l.first, kernel);
        l.last = Math.max(l.last, kernel);
    }

    private static long bytesOf(Buffer b) {
        return Math.multiplyExact(b.size(), (long) MachineTypes.byteSize(b.elementType()));
    }

    private static long alignUp(long n) {
        return (n + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    private static final class Lifetime {
        final Buffer buffer;
        final long bytes;
        int first = Integer.MAX_VALUE;
        int last = -1;
        long offset;

        Lifetime(Buffer buffer, long bytes) {
            this.buffer = buffer;
            this.bytes = bytes;
        }
    }
}
