package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.cast;

/**
 * Makes a program whose kernels compute in chosen datatypes consistent: callers exchange float32, so each
 * REAL graph input becomes a float32 buffer converted into the datatype of each kernel that reads it, and
 * each REAL graph output is converted back to float32; where a kernel reads a REAL tensor another kernel
 * wrote in a different datatype, the tensor goes through float32 to the reader's datatype; a weight read in
 * two datatypes gets a copy per datatype (each is converted once, at compile time). A program all in
 * float32 needs none of this and is returned as it is.
 */
public final class DatatypeBoundaries {
    private final Program program;
    private final List<Datatype> chosen;
    private final Datatype float32;

    private final List<Kernel> kernels = new ArrayList<>();
    private final List<Datatype> datatypes = new ArrayList<>();
    private final Map<Buffer, Datatype> writtenIn = new HashMap<>();
    private final Map<Buffer, Buffer> asFloat32 = new HashMap<>();
    private final Map<Buffer, Map<Datatype, Buffer>> views = new HashMap<>();
    private final Map<Buffer, MemorySegment> constants = new LinkedHashMap<>();
    private final Map<Buffer, Datatype> constantOwner = new HashMap<>();

    private DatatypeBoundaries(Program program, List<Datatype> chosen, Datatype float32) {
        this.program = program;
        this.chosen = chosen;
        this.float32 = float32;
    }

    /** The plan for {@code program} with kernel i in {@code chosen.get(i)}; {@code float32} is the callers' datatype. */
    public static DatatypePlan plan(Program program, List<Datatype> chosen, Datatype float32) {
        if (chosen.stream().allMatch(d -> d == float32)) return DatatypePlan.uniform(program, float32);
        return new DatatypeBoundaries(program, chosen, float32).run();
    }

    private DatatypePlan run() {
        List<Buffer> inputs = new ArrayList<>();
        for (Buffer in : program.inputs()) {
            if (in.elementType() != ScalarType.REAL) {
                inputs.add(in);
                continue;
            }
            Buffer machine = in.retyped(ScalarType.F32);
            asFloat32.put(in, machine);
            inputs.add(machine);
        }
        constants.putAll(program.constants());

        for (int k = 0; k < program.kernels().size(); k++) {
            Kernel kernel = program.kernels().get(k);
            Datatype d = chosen.get(k);
            Map<Buffer, Buffer> replaced = new IdentityHashMap<>();
            for (Buffer b : kernel.loadedBuffers()) {
                if (b.elementType() != ScalarType.REAL || kernel.constants().containsKey(b) || kernel.scratch().contains(b)) continue;
                Buffer view = view(b, d);
                if (view != b) replaced.put(b, view);
            }
            add(replaced.isEmpty() ? kernel : BufferSubstitution.apply(kernel, replaced), d);
            kernel.outputs().forEach(b -> writtenIn.put(b, d));
        }

        List<Buffer> outputs = new ArrayList<>();
        for (Buffer out : program.outputs()) {
            if (out.elementType() != ScalarType.REAL) {
                outputs.add(out);
                continue;
            }
            Buffer machine = out.retyped(ScalarType.F32);
            add(convert("to float32 " + out.name(), out, machine), writtenIn.getOrDefault(out, float32));
            outputs.add(machine);
        }

        Program planned = new Program(program.name(), kernels, inputs, program.inputSpecs(), outputs, program.outputSpecs(),
            constants, temporaries(inputs, outputs));
        return new DatatypePlan(planned, datatypes, float32);
    }

    /** {@code b} as a kernel computing in {@code d} reads it, converted if it is in another datatype. */
    private Buffer view(Buffer b, Datatype d) {
        if (constants.containsKey(b)) return constantIn(b, d);
        Datatype source = writtenIn.get(b);
        if (source == d) return b;
        return views.computeIfAbsent(b, x -> new HashMap<>()).computeIfAbsent(d, target -> {
            Buffer floats = floatsOf(b, source);
            Buffer converted = new Buffer(b.name() + "@" + target.name(), ScalarType.REAL, b.shape());
            add(convert("to " + target.name() + " " + b.name(), floats, converted), target);
            return converted;
        });
    }

    /** The float32 buffer holding {@code b}'s values: a graph input's own, or a conversion of a tensor written in {@code source}. */
    private Buffer floatsOf(Buffer b, Datatype source) {
        return asFloat32.computeIfAbsent(b, x -> {
            Buffer floats = new Buffer(b.name() + "@float32", ScalarType.F32, b.shape());
            add(convert("to float32 " + b.name(), b, floats), source);
            return floats;
        });
    }

    private Buffer constantIn(Buffer b, Datatype d) {
        Datatype owner = constantOwner.putIfAbsent(b, d);
        if (owner == null || owner == d) return b;
        return views.computeIfAbsent(b, x -> new HashMap<>()).computeIfAbsent(d, target -> {
            Buffer copy = new Buffer(b.name() + "@" + target.name(), ScalarType.REAL, b.shape());
            constants.put(copy, constants.get(b));
            return copy;
        });
    }

    /** out[i] = in[i] converted, one of the two sides REAL and the other F32. */
    private static Kernel convert(String name, Buffer in, Buffer out) {
        KernelBuilder kb = new KernelBuilder(name, "DatatypeCast", List.of(in), List.of(out));
        kb.loop(out.size(), i -> kb.store(out, i, cast(out.elementType(), kb.load(in, i))));
        return kb.build();
    }

    private void add(Kernel kernel, Datatype datatype) {
        kernels.add(kernel);
        datatypes.add(datatype);
    }

    /** Every buffer a kernel writes or loads that is not an input, output, constant or scratch buffer. */
    private List<Buffer> temporaries(List<Buffer> inputs, List<Buffer> outputs) {
        Set<Buffer> known = new HashSet<>(inputs);
        known.addAll(outputs);
        known.addAll(constants.keySet());
        Set<Buffer> temporaries = new LinkedHashSet<>();
        for (Kernel k : kernels) {
            known.addAll(k.scratch());
            known.addAll(k.constants().keySet());
        }
        for (Kernel k : kernels) {
            for (Buffer b : k.outputs()) if (!known.contains(b)) temporaries.add(b);
            for (Buffer b : k.loadedBuffers()) if (!known.contains(b)) temporaries.add(b);
        }
        return new ArrayList<>(temporaries);
    }
}
