package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Hand-built programs for back-end tests (no operators exist at this level). */
final class Programs {
    private Programs() {}

    /**
     * A program of these kernels; every buffer that is not an input, output, constant (given, or a kernel's own)
     * or scratch buffer is a temporary.
     */
    static Program of(List<Kernel> kernels, List<Buffer> inputs, List<Buffer> outputs, Map<Buffer, Tensor> givenConstants) {
        Map<Buffer, Tensor> constants = new LinkedHashMap<>(givenConstants);
        kernels.forEach(k -> constants.putAll(k.constants()));
        Set<Buffer> known = new HashSet<>(inputs);
        known.addAll(outputs);
        known.addAll(constants.keySet());
        kernels.forEach(k -> known.addAll(k.scratch()));
        Set<Buffer> temporaries = new LinkedHashSet<>();
        for (Kernel k : kernels) {
            for (Buffer b : k.outputs()) if (!known.contains(b)) temporaries.add(b);
            for (Buffer b : k.loadedBuffers()) if (!known.contains(b)) temporaries.add(b);
        }
        return new Program("test", kernels, inputs, inputs.stream().map(Programs::spec).toList(), outputs,
            outputs.stream().map(Programs::spec).toList(), constants, List.copyOf(temporaries));
    }

    static TensorSpec spec(Buffer b) {
        ElementType type = switch (b.elementType()) {
            case REAL, F32 -> ElementType.FLOAT32;
            case I32 -> ElementType.INT32;
            case I64 -> ElementType.INT64;
            default -> throw new IllegalArgumentException(b.toString());
        };
        return new TensorSpec(b.name(), type, b.shape());
    }

    static Buffer buffer(String name, long... shape) { return new Buffer(name, ScalarType.REAL, shape); }
}
