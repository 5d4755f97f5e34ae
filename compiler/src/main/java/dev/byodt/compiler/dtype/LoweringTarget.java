package dev.byodt.compiler.dtype;

/**
 * Where a lowering applies: every target, or one kind of machine, for a datatype whose best code differs
 * (a fixed-point add that is one RISC-V P instruction there and a library call elsewhere). A lowering for a
 * specific kind wins over one for ANY. P_EXTENSION is code using the RISC-V P extension: on a P target
 * (riscv32p, riscv64p), or on the host with P's executable model; its lowerings fall back to ANY's, not to
 * RISCV32's or RISCV64's. A target says which kind it is (Target.loweringTarget).
 */
public enum LoweringTarget {
    ANY, HOST, RISCV32, RISCV64, P_EXTENSION;
}
