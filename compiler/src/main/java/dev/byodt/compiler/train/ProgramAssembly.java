package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
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
 * Puts a program together from a graph's forward kernels and kernels of its own (loss, gradients, updates):
 * one buffer per graph value, shared by every kernel that reads it, and the role of each buffer.
 */
final class ProgramAssembly {
    private final Map<Value, Buffer> bufferOfValue = new HashMap<>();
    private final Map<Buffer, Value> valueOfBuffer = new HashMap<>();

    /** The graph's nodes as reference loop nests, those whose outputs were all folded to constants left out. */
    List<Kernel> forward(Graph graph) {
        List<Kernel> kernels = new ArrayList<>();
        for (Node node : graph.nodes()) {
            if (node.outputs().stream().allMatch(Value::isConstant)) continue;
            kernels.add(NodeLowering.lower(node, this::bufferOf));
        }
        return kernels;
    }

    Buffer bufferOf(Value v) {
        return bufferOfValue.computeIfAbsent(v, value -> {
            TensorType type = value.type();
            if (type == null) throw new ByodtException("tensor '" + value.name() + "' has no known type or shape");
            Buffer b = new Buffer(value.name(), ScalarType.of(type.elementType()), type.shape());
            valueOfBuffer.put(b, value);
            return b;
        });
    }

    /** The program with every buffer's role: callers' inputs and outputs, constants, and temporaries. */
    Program program(String name, List<Kernel> kernels, List<Buffer> inputs, List<Buffer> outputs) {
        Map<Buffer, MemorySegment> constants = new LinkedHashMap<>();
        Set<Buffer> temporaries = new LinkedHashSet<>();
        Set<Buffer> callerMemory = new HashSet<>(inputs);
        callerMemory.addAll(outputs);
        for (Kernel k : kernels) {
            k.constants().forEach((b, t) -> constants.put(b, t.data()));
            for (Buffer b : k.loadedBuffers()) {
                if (k.constants().containsKey(b) || k.scratch().contains(b) || callerMemory.contains(b)) continue;
                Value v = valueOfBuffer.get(b);
                if (v != null && v.isConstant()) constants.put(b, v.constant().data());
                else temporaries.add(b);
            }
            for (Buffer b : k.outputs()) if (!callerMemory.contains(b)) temporaries.add(b);
        }
        return new Program(name, kernels, inputs, specs(inputs), outputs, specs(outputs), constants, new ArrayList<>(temporaries));
    }

    private static List<TensorSpec> specs(List<Buffer> buffers) {
        return buffers.stream().map(b -> new TensorSpec(b.name(),
            b.elementType() == ScalarType.I64 ? ElementType.INT64 : ElementType.FLOAT32, b.shape())).toList();
    }
}
