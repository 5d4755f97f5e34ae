package dev.byodt.compiler.lower;

import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One buffer per graph value, shared by every kernel that reads or writes it, and, once the kernels are known,
 * the role of each buffer in a {@link Program}: the caller's inputs and outputs, constants, or temporaries. Both
 * the inference lowering and the training programs assemble their programs here.
 */
public final class ValueBuffers {
    private final Map<Value, Buffer> bufferOfValue = new HashMap<>();
    private final Map<Buffer, Value> valueOfBuffer = new HashMap<>();

    public Buffer bufferOf(Value v) {
        return bufferOfValue.computeIfAbsent(v, value -> {
            TensorType type = value.type();
            if (type == null) throw new ByodtException("tensor '" + value.name() + "' has no known type or shape");
            Buffer b = new Buffer(value.name(), ScalarType.of(type.elementType()), type.shape());
            valueOfBuffer.put(b, value);
            return b;
        });
    }

    /**
     * The program of {@code kernels}: a buffer the caller does not provide is a constant when its value was folded
     * at compile time and no kernel writes it (a training step writes its weights), and a temporary otherwise.
     */
    public Program program(String name, List<Kernel> kernels, List<Buffer> inputs, List<TensorSpec> inputSpecs,
                           List<Buffer> outputs, List<TensorSpec> outputSpecs) {
        Set<Buffer> written = new HashSet<>();
        kernels.forEach(k -> written.addAll(k.outputs()));
        Set<Buffer> callerMemory = new HashSet<>(inputs);
        callerMemory.addAll(outputs);
        Map<Buffer, MemorySegment> constants = new LinkedHashMap<>();
        Set<Buffer> temporaries = new LinkedHashSet<>();
        for (Kernel k : kernels) {
            k.constants().forEach((b, t) -> constants.put(b, t.data()));
            for (Buffer b : k.loadedBuffers()) {
                // The kernel's own constants are collected above; its scratch buffers are planned per kernel.
                if (k.constants().containsKey(b) || k.scratch().contains(b) || callerMemory.contains(b)) continue;
                Value v = valueOfBuffer.get(b);
                if (v != null && v.isConstant() && !written.contains(b)) constants.put(b, v.constant().data());
                else temporaries.add(b);
            }
            for (Buffer b : k.outputs()) {
                if (!callerMemory.contains(b)) temporaries.add(b);
            }
        }
        return new Program(name, kernels, inputs, inputSpecs, outputs, outputSpecs, constants, new ArrayList<>(temporaries));
    }
}
