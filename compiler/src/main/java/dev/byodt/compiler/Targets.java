package dev.byodt.compiler;

import dev.byodt.compiler.p.PExtension;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The targets --target names. RISC-V targets are freestanding Linux user programs (the executable harness
 * makes Linux system calls, so qemu-user runs them); objects for firmware use the same code.
 * <ul>
 *   <li>riscv64: rv64gc, lp64d</li>
 *   <li>riscv32: rv32imac, ilp32 (no FPU: float and double arithmetic are soft-float calls, see
 *       runtime-c/harness/softfloat.c)</li>
 *   <li>riscv32f: rv32imafc, ilp32f (float in hardware, double in software)</li>
 *   <li>riscv64p, riscv32p: the same with the P extension 0.9.x, major opcode OP-P 0x77</li>
 * </ul>
 */
public final class Targets {
    private static final Map<String, Supplier<Target>> NAMED = new LinkedHashMap<>();

    static {
        NAMED.put("host", Target::host);
        NAMED.put("riscv64", () -> riscv("riscv64", "riscv64-unknown-linux-gnu", "generic-rv64", "+m,+a,+f,+d,+c"));
        NAMED.put("riscv32", () -> riscv("riscv32", "riscv32-unknown-linux-gnu", "generic-rv32", "+m,+a,+c"));
        NAMED.put("riscv32f", () -> riscv("riscv32f", "riscv32-unknown-linux-gnu", "generic-rv32", "+m,+a,+f,+c"));
        NAMED.put("riscv64p", () -> named("riscv64").with(new PExtension(PExtension.OPCODE)));
        NAMED.put("riscv32p", () -> named("riscv32").with(new PExtension(PExtension.OPCODE)));
    }

    private Targets() {}

    /** "host, riscv64, riscv32, ...": what --target accepts. */
    public static String names() { return String.join(", ", NAMED.keySet()); }

    /** The target called {@code name}; an unknown name is an error listing the known ones. */
    public static Target named(String name) {
        Supplier<Target> target = NAMED.get(name);
        if (target == null) throw new ByodtException("unknown target '" + name + "' (available: " + names() + ")");
        return target.get();
    }

    /**
     * {@code name} with {@code --mattr} features (only "+p" so far: the P extension, which LLVM does not know)
     * and the P opcode ({@code --p-opcode}, null for the default).
     */
    public static Target named(String name, String mattr, Integer pOpcode) {
        Target target = named(name);
        if (mattr != null && !mattr.isBlank()) {
            for (String feature : mattr.split(",")) {
                if (!feature.strip().equals("+p")) {
                    throw new ByodtException("--mattr " + feature.strip() + ": only +p (the RISC-V P extension) is supported");
                }
                if (!target.isRiscv()) throw new ByodtException("--mattr +p: the P extension needs a RISC-V target, not " + name);
                target = target.with(new PExtension(PExtension.OPCODE));
            }
        }
        if (pOpcode != null) {
            if (target.extension().isEmpty()) throw new ByodtException("--p-opcode goes with a P target (riscv32p, riscv64p or --mattr +p)");
            if (pOpcode != 0x77 && pOpcode != 0x7F) {
                throw new ByodtException("--p-opcode 0x" + Integer.toHexString(pOpcode) + ": expected 0x77 (P 0.9.2 and later) or 0x7f (Andes 0.5.x)");
            }
            target = target.with(new PExtension(pOpcode));
        }
        return target;
    }

    private static Target riscv(String name, String triple, String cpu, String features) {
        return new Target(name, triple, cpu, features);
    }
}
