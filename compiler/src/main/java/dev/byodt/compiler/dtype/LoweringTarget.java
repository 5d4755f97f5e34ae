package dev.byodt.compiler.dtype;

import dev.byodt.compiler.target.Target;

/**
 * Where a lowering applies: every target, or one kind of machine, for a datatype whose best code differs
 * (a fixed-point add that is one RISC-V P instruction there and a library call elsewhere). A lowering for a
 * specific kind wins over one for ANY.
 */
public enum LoweringTarget {
    ANY, HOST, RISCV32, RISCV64;

    /** The kind of a compilation target, from its triple: riscv32-..., riscv64-..., anything else is the host kind. */
    public static LoweringTarget of(Target target) {
        String triple = target.triple();
        if (triple.startsWith("riscv32")) return RISCV32;
        if (triple.startsWith("riscv64")) return RISCV64;
        return HOST;
    }
}
