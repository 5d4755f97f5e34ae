package dev.byodt.compiler.codegen;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TensorSpec;

import java.lang.management.ManagementFactory;

/**
 * Refuses to run a model on this machine when its tensors cannot fit in memory, before anything is
 * allocated: off-heap allocations that large would otherwise fail late, or be killed by the system.
 */
final class MemoryBudget {
    private static final double GIB = 1024.0 * 1024 * 1024;

    private MemoryBudget() {}

    static void check(ProgramSignature signature) {
        long needed = signature.workspaceBytes();
        for (TensorSpec t : signature.inputs()) needed = addCapped(needed, t.byteSize());
        for (TensorSpec t : signature.outputs()) needed = addCapped(needed, t.byteSize());
        long available = physicalMemory();
        if (needed > available) {
            throw new ByodtException(String.format("the model needs %.1f GiB of memory for its inputs, outputs and workspace, "
                + "more than this machine's %.1f GiB (a smaller --shape batch may fit)", needed / GIB, available / GIB));
        }
    }

    private static long addCapped(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return Runtime.getRuntime().maxMemory();
    }
}
