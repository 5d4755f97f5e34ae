package dev.byodt.compiler.codegen;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.MemoryLimit;
import dev.byodt.runtime.TensorSpec;


/**
 * Refuses to run a model on this machine when its tensors cannot fit in memory (or within --max-memory), before anything is
 * allocated: off-heap allocations that large would otherwise fail late, or be killed by the system.
 */
final class MemoryBudget {
    private MemoryBudget() {}

    static void check(ProgramSignature signature) {
        long needed = signature.workspaceBytes();
        for (TensorSpec t : signature.inputs()) needed = addCapped(needed, t.byteSize());
        for (TensorSpec t : signature.outputs()) needed = addCapped(needed, t.byteSize());
        long available = MemoryLimit.bytes();
        if (needed > available) {
            throw new ByodtException("the model needs " + MemoryLimit.format(needed) + " of memory for its inputs, outputs and "
                + "workspace, more than the limit of " + MemoryLimit.format(available) + " (a smaller --shape batch may fit)");
        }
    }

    private static long addCapped(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
