package dev.byodt.compiler.p;

import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The RISC-V P extension (packed SIMD, version 0.9.x) as byodt uses it: a C library of fixed-point
 * operations whose instructions are `.insn` inline assembly (LLVM 20 has no P), linked into a model compiled
 * for a P target, or, on the host, the same library with an exact C model of each instruction.
 * The instruction words it emits are listed in {@link #INSTRUCTIONS}.
 */
public final class PExtension {
    public static final LibrarySource LIBRARY = LibrarySource.resource("dev/byodt/datatypes/fixed/fixed_p.c");

    /** One P instruction: its name and the funct3 and funct7 fields of its R-type word. */
    public record Instruction(String name, int funct3, int funct7) {}

    /**
     * Every P instruction fixed_p.c can emit (P 0.9.11): design.md's table, and the 8-bit element-wise ones,
     * checked against the spec's encodings (riscv/riscv-p-spec P-ext-proposal.adoc, as the MATCH_ words of
     * the P toolchains' opcode tables repeat them; see fixed_p.c).
     */
    public static final List<Instruction> INSTRUCTIONS = List.of(
        new Instruction("ADD16", 0, 0x20), new Instruction("SUB16", 0, 0x21),
        new Instruction("KADD16", 0, 0x08), new Instruction("KSUB16", 0, 0x09),
        new Instruction("KHM16", 0, 0x43),
        new Instruction("SMAX16", 0, 0x41), new Instruction("SMIN16", 0, 0x40),
        new Instruction("SMALDA", 1, 0x46), new Instruction("SMAQA", 0, 0x64), new Instruction("SCLIP16", 0, 0x42),
        new Instruction("ADD8", 0, 0x24), new Instruction("SUB8", 0, 0x25),
        new Instruction("KADD8", 0, 0x0C), new Instruction("KSUB8", 0, 0x0D),
        new Instruction("SMAX8", 0, 0x45), new Instruction("SMIN8", 0, 0x44));

    /** The operations fixed_p.c has for 8- and 16-bit lanes, byodt_pBITS_OP on one value and byodt_pBITSxL_OP packed. */
    private static final Set<String> LANE_OPERATIONS = Set.of("add_saturate", "sub_saturate", "add_wrap", "sub_wrap", "max", "min");

    /** The fxp16_P operations fixed_p.c has in packed form, byodt_p16x2_OP and byodt_p16x4_OP. */
    private static final Set<String> PACKED_OPERATIONS_16 = packedOperations16();

    private static Set<String> packedOperations16() {
        Set<String> operations = new java.util.HashSet<>(LANE_OPERATIONS);
        operations.add("q15_mul");
        for (int k = 0; k <= 15; k++) operations.add("clip" + k);
        return Set.copyOf(operations);
    }

    private PExtension() {}

    /** 16-bit lanes in one of the target's registers: 2 on riscv32, 4 on riscv64 and in the host model. */
    public static int registerLanes(Target target) { return target.isRiscv32() ? 2 : 4; }

    /**
     * The 16-bit lanes each packed P instruction computes: those the datatypes request with xLANES
     * ({@code fxp16_13x2}), else all of the target's register. xLANES is a usage error anywhere but for fxp16_P on
     * a P target whose registers hold that many lanes (x2 on riscv32p and riscv64p, x4 on riscv64p).
     */
    public static int lanes(Target target, DatatypeChoice datatypes) {
        int requested = 0;
        for (DatatypeInstance instance : datatypes.instances()) {
            if (instance.lanes() == 1) continue;
            String problem = !target.hasP() ? "packed lanes need a P target (x2: riscv32p or riscv64p, x4: riscv64p)"
                : !isFxp16(instance) ? "the P extension packs fxp16_P only"
                : instance.lanes() != 2 && instance.lanes() != 4 ? "P packs 2 or 4 16-bit lanes"
                : instance.lanes() > registerLanes(target) ? "a register holds " + registerLanes(target) + " 16-bit lanes"
                : requested != 0 && requested != instance.lanes() ? "another datatype asks for " + requested + " lanes"
                : null;
            if (problem != null) throw new ByodtException("datatype " + instance + " on target " + target.name() + ": " + problem);
            requested = instance.lanes();
        }
        return requested != 0 ? requested : registerLanes(target);
    }

    private static boolean isFxp16(DatatypeInstance instance) { return instance.toString().matches("fxp16_\\d+(x\\d+)?"); }

    /**
     * Dot-product loops with exact accumulation grouped for one instruction per group: fxp16_P's by
     * {@code lanes} (SMALDA), fxp8_P's by twice as many (SMAQA, four bytes per 16-bit lane pair); what remains
     * of a loop in half groups where it fits (fixed_p.c has byodt_p16_acc_mac2 and byodt_p8_acc_mac4 on both
     * RV32 and RV64); fxp16_P's constant weights laid out at compile time as words, one load a group.
     */
    public static Program groupDotProducts(Program program, int lanes) {
        Program sixteen = new GroupedProducts("byodt_p16_acc_mac", lanes == 4 ? List.of(4, 2) : List.of(2), true).apply(program);
        return new GroupedProducts("byodt_p8_acc_mac", lanes == 4 ? List.of(8, 4) : List.of(4)).apply(sixteen);
    }

    /** Clip to a symmetric saturation range [-2^k, 2^k - 1] by one SCLIP16 (byodt_p16_clipK) instead of SMAX16 and SMIN16. */
    public static final SymmetricClips SYMMETRIC_CLIPS = new SymmetricClips("byodt_p16_min", "byodt_p16_max", "byodt_p16_clip");

    /**
     * Element-wise loops of fxp16_P in {@code lanes} 16-bit lanes per P instruction, and of fxp8_P in twice as
     * many 8-bit lanes (the same register width).
     */
    public static Program packLanes(Program program, int lanes) {
        Program sixteen = new PackedLanes("byodt_p16_", "byodt_p16x", PACKED_OPERATIONS_16, 16, lanes).apply(program);
        return new PackedLanes("byodt_p8_", "byodt_p8x", LANE_OPERATIONS, 8, 2 * lanes).apply(sixteen);
    }

    /** The P library for {@code target}, if it has P: the instructions on RISC-V, their C model elsewhere. */
    public static Optional<NativeLibrary> library(Target target) {
        if (!target.hasP()) return Optional.empty();
        String flavour = target.isRiscv() ? "BYODT_P_OPCODE=0x" + Integer.toHexString(target.pOpcode()) : "BYODT_P_MODEL=1";
        return Optional.of(new NativeLibrary(LIBRARY, List.of(flavour), ""));
    }

    /**
     * One line telling the user which chosen datatypes the P extension does not serve on {@code target}
     * (they use base instructions), if any: P lowerings exist for fxp16_P and fxp8_P.
     */
    public static Optional<String> coverageNote(Target target, DatatypeChoice datatypes) {
        if (!target.hasP()) return Optional.empty();
        List<String> unserved = datatypes.instances().stream().map(DatatypeInstance::toString)
            .filter(name -> !name.matches("fxp16_\\d+(x\\d+)?") && !name.matches("fxp8_\\d+"))
            .distinct().toList();
        if (unserved.isEmpty()) return Optional.empty();
        return Optional.of("the P extension serves fxp16_P and fxp8_P; "
            + String.join(", ", unserved) + (unserved.size() == 1 ? " uses" : " use") + " base "
            + target.name().replaceFirst("p$", "") + " instructions");
    }

    /** The instruction with these fields, if P has it among those byodt emits. */
    public static Optional<Instruction> decode(int funct3, int funct7) {
        return INSTRUCTIONS.stream().filter(i -> i.funct3() == funct3 && i.funct7() == funct7).findFirst();
    }
}
