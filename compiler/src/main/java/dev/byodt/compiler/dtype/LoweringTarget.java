package dev.byodt.compiler.dtype;

import dev.byodt.compiler.target.Target;

/**
 * Where a lowering applies: every target, or one kind of machine, for a datatype whose best code differs
 * (a fixed-point add that is one RISC-V P instruction there and a library call elsewhere). A lowering for a
 * specific kind wins over one for ANY. P_EXTENSION is code using the RISC-V P extension: on a P target
 * (riscv32p, riscv64p), or on the host with P's executable model; its lowerings fall back to ANY's, not to
 * RISCV32's or RISCV64's.
 */
public enum LoweringTarget {
    ANY, HOST, RISCV32, RISCV64, P_EXTENSION;

    /** The kind of a compilation target: P_EXTENSION when it has P, else from its triple (riscv32-..., riscv64-..., the host). */
    public static LoweringTarget of(Target target) {
        if (target.hasP()) return P_EXTENSION;
        return ofMachine(target);
    }

    private static LoweringTarget ofMachine(Target target) {
        String triple = target.triple();
        if (triple.startsWith("riscv32")) return RISCV32;
        if (triple.startsWith("riscv64")) return RISCV64;
        return HOST;
    }
}
