package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.add;

/**
 * Concats that copy nothing. Where a Concat's inputs lie one after another in its output's memory (every dimension
 * before the axis is 1, as along the channels of one NCHW image), each input becomes a {@link Slice} of the output,
 * so that the kernel computing it writes straight into its place. A Concat whose inputs begin another's (the same
 * buffers in the same order: DenseNet's layer k concatenates the block's input and the features of layers 1 to k-1,
 * and the block ends with all of them) becomes a slice of the longest such once all its inputs are in place there, so
 * a whole dense block shares one buffer. What is left of a Concat's kernel copies the inputs that are not in place;
 * one with none left runs no kernel. The bits are the copies' (a copy is exact).
 *
 * <p>An input goes in place only where nothing else changes: it is a temporary (graph inputs and outputs are the
 * caller's memory, constants are code) that one kernel writes, in the output's element type (a datatype boundary's
 * conversion is such a temporary), not in place in another Concat already (the later one copies it), at an offset of
 * whole cache lines (every buffer still starts where {@link MemoryPlan} aligns buffers); and the output is a temporary
 * only its Concat writes. Then every byte of the output is written once, by the kernel computing the value it belongs
 * to, before the output's readers run, and {@link MemoryPlan} keeps the whole live while any slice is, so nothing is
 * overwritten while it is read. No kernel reads and writes overlapping bytes through two pointers: an input precedes
 * its Concat, so the kernel computing it reads nothing that holds it, and the copies left read bytes apart from those
 * they write. A Concat whose inputs are not one after another (a batch of several images along the channels) keeps
 * its kernel.
 */
public final class ConcatsInPlace {
    private final Program program;
    private final Set<Buffer> temporaries;
    private final Map<Buffer, Integer> writers = new HashMap<>();
    private final Map<Buffer, Slice> slices;

    private ConcatsInPlace(Program program) {
        this.program = program;
        this.temporaries = new HashSet<>(program.temporaries());
        this.slices = new LinkedHashMap<>(program.slices());
        program.kernels().forEach(k -> k.outputs().forEach(b -> writers.merge(b, 1, Integer::sum)));
    }

    /** {@code program} (in machine types: after datatype lowering, its Concats copy bytes) with its Concats in place. */
    public static Program apply(Program program) {
        return new ConcatsInPlace(program).run();
    }

    private Program run() {
        // Keyed by output: kernels are records, whose equality would compare whole loop nests.
        Map<Buffer, Kernel> concats = new LinkedHashMap<>();
        program.kernels().stream().filter(this::placesItsInputs).forEach(k -> concats.put(output(k), k));
        Map<Buffer, Kernel> longestExtension = new HashMap<>();
        for (Kernel c : concats.values()) {
            for (Kernel d : concats.values()) {
                Kernel longest = longestExtension.get(output(c));
                if (extendsInputs(d, c) && (longest == null || d.inputs().size() > longest.inputs().size())) {
                    longestExtension.put(output(c), d);
                }
            }
        }
        for (Kernel c : concats.values()) {
            if (!longestExtension.containsKey(output(c))) placeInputs(c);
        }
        longestExtension.forEach((out, longest) -> {
            if (!slices.containsKey(out) && inPlace(concats.get(out).inputs(), output(longest))) slices.put(out, new Slice(output(longest), 0));
        });
        List<Kernel> kernels = new ArrayList<>();
        for (Kernel k : program.kernels()) {
            if (!k.opType().equals("Concat") || concats.get(output(k)) != k) kernels.add(k);
            else if (!inPlace(k.inputs(), output(k))) kernels.add(copiesLeft(k));
        }
        return new Program(program.name(), kernels, program.inputs(), program.inputSpecs(), program.outputs(),
            program.outputSpecs(), program.constants(), program.temporaries(), slices);
    }

    /** Whether {@code k} is a Concat whose output could hold its inputs: see above. */
    private boolean placesItsInputs(Kernel k) {
        if (!k.opType().equals("Concat")) return false;
        Buffer out = output(k);
        return temporaries.contains(out) && writers.get(out) == 1 && k.inputs().stream().allMatch(Objects::nonNull)
            && k.inputs().stream().allMatch(in -> in.elementType() == out.elementType()) && oneAfterAnother(out, k.inputs());
    }

    /**
     * Whether the inputs' elements lie one after another in the output's: the dimensions before the axis, the first
     * where an input's shape differs from the output's, are 1 (with no such dimension, one input is all of it).
     */
    private static boolean oneAfterAnother(Buffer out, List<Buffer> inputs) {
        long before = 1;
        for (int d = 0; d < out.rank(); d++) {
            int axis = d;
            if (inputs.stream().anyMatch(in -> in.dim(axis) != out.dim(axis))) return before == 1;
            before *= out.dim(d);
        }
        return true;
    }

    /** Whether {@code longer}'s inputs begin with all of {@code shorter}'s and go on. */
    private static boolean extendsInputs(Kernel longer, Kernel shorter) {
        List<Buffer> l = longer.inputs(), s = shorter.inputs();
        return l.size() > s.size() && l.subList(0, s.size()).equals(s);
    }

    /** Makes each of the Concat's inputs that can be a slice of its output one. */
    private void placeInputs(Kernel concat) {
        Buffer out = output(concat);
        long offset = 0;
        for (Buffer in : concat.inputs()) {
            boolean aligned = offset * MachineTypes.byteSize(out.elementType()) % MemoryPlan.ALIGNMENT == 0;
            if (aligned && temporaries.contains(in) && writers.getOrDefault(in, 0) == 1 && !slices.containsKey(in)) {
                slices.put(in, new Slice(out, offset));
            }
            offset += in.size();
        }
    }

    /** Whether every one of {@code inputs} lies in {@code out}'s memory (as slices, directly or not) at its place one after another. */
    private boolean inPlace(List<Buffer> inputs, Buffer out) {
        long offset = 0;
        for (Buffer in : inputs) {
            if (!at(in, out, offset)) return false;
            offset += in.size();
        }
        return true;
    }

    private boolean at(Buffer in, Buffer out, long offset) {
        Slice input = Slice.outermost(in, slices), output = Slice.outermost(out, slices);
        return input.whole() == output.whole() && input.offset() == output.offset() + offset;
    }

    /** The Concat's kernel copying only the inputs not in place, each into its run of the output (all: the kernel as it is). */
    private Kernel copiesLeft(Kernel concat) {
        Buffer out = output(concat);
        List<Buffer> left = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        long offset = 0;
        for (Buffer in : concat.inputs()) {
            if (!at(in, out, offset)) {
                left.add(in);
                offsets.add(offset);
            }
            offset += in.size();
        }
        if (left.size() == concat.inputs().size()) return concat;
        KernelBuilder kb = new KernelBuilder(concat.name(), concat.opType(), left, List.of(out));
        for (int i = 0; i < left.size(); i++) {
            Buffer in = left.get(i);
            long start = offsets.get(i);
            kb.loop(in.size(), e -> kb.store(out, add(e, start), kb.load(in, e)));
        }
        return kb.build();
    }

    private static Buffer output(Kernel k) { return k.outputs().getFirst(); }
}
