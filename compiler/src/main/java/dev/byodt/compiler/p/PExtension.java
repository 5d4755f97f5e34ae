package dev.byodt.compiler.p;

import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.target.Target;
import dev.byodt.compiler.target.TargetExtension;
import dev.byodt.runtime.ByodtException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * The RISC-V P extension (packed SIMD, version 0.9.x) as byodt uses it: a C library of fixed-point
 * operations whose instructions are `.insn` inline assembly (LLVM 20 has no P), linked into a model compiled
 * for a P target, or, on the host, the same library with an exact C model of each instruction. The
 * fixed-point datatypes' lowerings for it ({@link FixedPointP}) call the library; after datatype lowering its
 * passes pack AveragePool's 2x2 means ({@link PackedMeans}), group dot products ({@link GroupedProducts}), clip to symmetric ranges in one instruction
 * ({@link SymmetricClips}) and pack element-wise loops into lanes ({@link PackedLanes}); every function they
 * call is a typed reference of {@link PFunctions}. The instruction words it emits are listed in {@link #INSTRUCTIONS}.
 *
 * @param opcode the major opcode of its instructions: {@link #OPCODE}, or 0x7F on Andes 0.5.x parts
 */
public record PExtension(int opcode) implements TargetExtension {
    /** OP-P, the P extension's major opcode from version 0.9.2 on (0x7F on Andes 0.5.x parts). */
    public static final int OPCODE = 0x77;

    private static final LibrarySource LIBRARY = LibrarySource.resource("dev/byodt/datatypes/fixed/fixed_p.c");

    /** One P instruction: its name and the funct3 and funct7 fields of its R-type word. */
    public record Instruction(String name, int funct3, int funct7) {}

    /**
     * Every P instruction fixed_p.c can emit (P 0.9.11), the 16-bit ones, the 8-bit element-wise ones and the
     * RV64-only 32-bit lanes the rounded products use, checked against the spec's encodings
     * (riscv/riscv-p-spec P-ext-proposal.adoc, as the MATCH_ words of the P toolchains' opcode tables repeat
     * them; see fixed_p.c).
     */
    public static final List<Instruction> INSTRUCTIONS = List.of(
        new Instruction("ADD16", 0, 0x20), new Instruction("SUB16", 0, 0x21),
        new Instruction("KADD16", 0, 0x08), new Instruction("KSUB16", 0, 0x09),
        new Instruction("KHM16", 0, 0x43),
        new Instruction("SMAX16", 0, 0x41), new Instruction("SMIN16", 0, 0x40),
        new Instruction("SMALDA", 1, 0x46), new Instruction("SMAQA", 0, 0x64), new Instruction("SCLIP16", 0, 0x42),
        new Instruction("ADD8", 0, 0x24), new Instruction("SUB8", 0, 0x25),
        new Instruction("KADD8", 0, 0x0C), new Instruction("KSUB8", 0, 0x0D),
        new Instruction("SMAX8", 0, 0x45), new Instruction("SMIN8", 0, 0x44),
        new Instruction("SMBB16", 1, 0x04), new Instruction("SMTT16", 1, 0x14), new Instruction("PKTT16", 1, 0x17),
        new Instruction("ADD32", 2, 0x20), new Instruction("KADD32", 2, 0x08),
        new Instruction("SLL32", 2, 0x2A), new Instruction("KSLL32", 2, 0x32),
        new Instruction("SRA16", 0, 0x28), new Instruction("SLL16", 0, 0x2A), new Instruction("KSLL16", 0, 0x32),
        new Instruction("SCLIP8", 0, 0x46));

    /**
     * Clip to a symmetric saturation range [-2^k, 2^k - 1] by one SCLIP16 (byodt_p16_clipK) instead of SMAX16 and
     * SMIN16, and by one SCLIP8 (byodt_p8_clipK) instead of SMAX8 and SMIN8.
     */
    private static final SymmetricClips SYMMETRIC_CLIPS = new SymmetricClips(PFunctions.lane(16, "min"), PFunctions.lane(16, "max"), k -> PFunctions.clip(16, k));
    private static final SymmetricClips SYMMETRIC_CLIPS8 = new SymmetricClips(PFunctions.lane(8, "min"), PFunctions.lane(8, "max"), k -> PFunctions.clip(8, k));

    @Override
    public String name() { return "P"; }

    @Override
    public LoweringTarget loweringTarget() { return LoweringTarget.P_EXTENSION; }

    /**
     * The packed lanes fit the target, and the P kernels round as fixed.c does in the datatype's mode: they have
     * its nearest and truncate, not the other --rounding modes.
     */
    @Override
    public void check(Target target, DatatypeChoice datatypes) {
        lanes(target, datatypes);
        for (DatatypeInstance instance : datatypes.instances()) {
            String rounding = instance.definition().options().containsKey("rounding") ? instance.option("rounding") : "";
            if ((isFxp16(instance) || isFxp8(instance)) && !FixedPointP.ROUNDINGS.contains(rounding)) {
                throw new ByodtException("datatype " + instance + " on target " + target.name() + ": the P extension's kernels "
                    + "round to nearest or truncate, not --rounding " + rounding + " (choose a target without P)");
            }
        }
    }

    /**
     * fxp16_P's and fxp8_P's 2x2 means packed (on registers of 4 16-bit lanes), dot products grouped, symmetric clips, element-wise loops packed,
     * in {@link #lanes} 16-bit lanes.
     */
    @Override
    public List<UnaryOperator<Program>> passes(Target target, DatatypeChoice datatypes) {
        int lanes = lanes(target, datatypes);
        PackedMeans means = new PackedMeans(lanes == 4 ? meanDatatypes(datatypes) : Map.of());
        return List.of(means::apply, program -> groupDotProducts(program, lanes), SYMMETRIC_CLIPS::apply, SYMMETRIC_CLIPS8::apply,
            program -> packLanes(program, lanes));
    }

    /**
     * The fxp16_P and fxp8_P datatypes by library prefix, with their width, fraction bits and the mode of
     * byodt_pBITSx4_mean2x2_MODE.
     */
    private static Map<String, PackedMeans.Datatype> meanDatatypes(DatatypeChoice datatypes) {
        Map<String, PackedMeans.Datatype> byPrefix = new HashMap<>();
        for (DatatypeInstance instance : datatypes.instances()) {
            if (isFxp16(instance) || isFxp8(instance)) {
                byPrefix.put(instance.prefix(), new PackedMeans.Datatype(instance.bits(), instance.parameter(), FixedPointP.mode(instance)));
            }
        }
        return byPrefix;
    }

    @Override
    public List<LibraryFunction> functions(Target target) { return PFunctions.all(registerLanes(target)); }

    /** 16-bit lanes in one of the target's registers: 2 on riscv32, 4 on riscv64 and in the host model. */
    static int registerLanes(Target target) { return target.isRiscv32() ? 2 : 4; }

    /**
     * The 16-bit lanes each packed P instruction computes (fxp8_P's 8-bit lanes are twice as many, the same word):
     * those the datatypes request with xLANES ({@code fxp16_13x2}, or {@code fxp8_4x4}, a 32-bit word too), else
     * all of the target's register. xLANES is a usage error but for fxp16_P and fxp8_P on a P target whose
     * registers hold that many lanes (fxp16_P x2 and fxp8_P x4 on riscv32p and riscv64p, x4 and x8 on riscv64p;
     * Target.check refuses them on targets without P), the same word for every datatype that asks.
     */
    static int lanes(Target target, DatatypeChoice datatypes) {
        int requested = 0;
        for (DatatypeInstance instance : datatypes.instances()) {
            if (instance.lanes() == 1) continue;
            int laneBits = isFxp16(instance) ? 16 : isFxp8(instance) ? 8 : 0, word = laneBits * instance.lanes();
            String problem = laneBits == 0 ? "the P extension packs fxp16_P and fxp8_P only"
                : word != 32 && word != 64 ? "P packs " + 32 / laneBits + " or " + 64 / laneBits + " " + laneBits + "-bit lanes"
                : word > 16 * registerLanes(target) ? "a register holds " + 16 * registerLanes(target) / laneBits + " " + laneBits + "-bit lanes"
                : requested != 0 && requested != word / 16 ? "another datatype asks for " + 16 * requested + "-bit words"
                : null;
            if (problem != null) throw new ByodtException("datatype " + instance + " on target " + target.name() + ": " + problem);
            requested = word / 16;
        }
        return requested != 0 ? requested : registerLanes(target);
    }

    private static boolean isFxp16(DatatypeInstance instance) { return instance.toString().matches("fxp16_\\d+(x\\d+)?"); }

    private static boolean isFxp8(DatatypeInstance instance) { return instance.toString().matches("fxp8_\\d+(x\\d+)?"); }

    /**
     * Dot-product loops with exact accumulation grouped for one instruction per group: fxp16_P's by
     * {@code lanes} (SMALDA), fxp8_P's by twice as many (SMAQA, four bytes per 16-bit lane pair); what remains
     * of a loop in half groups where it fits (fixed_p.c has byodt_p16_acc_mac2 and byodt_p8_acc_mac4 on both
     * RV32 and RV64); constant weights laid out at compile time as words, one load a group.
     */
    private static Program groupDotProducts(Program program, int lanes) {
        Program sixteen = new GroupedProducts(PFunctions.accumulate(16, 1), g -> PFunctions.accumulate(16, g), g -> PFunctions.accumulateWord(16, g),
            lanes == 4 ? List.of(4, 2) : List.of(2)).apply(program);
        return new GroupedProducts(PFunctions.accumulate(8, 1), g -> PFunctions.accumulate(8, g), g -> PFunctions.accumulateWord(8, g),
            lanes == 4 ? List.of(8, 4) : List.of(4)).apply(sixteen);
    }

    /**
     * Element-wise loops of fxp16_P in {@code lanes} 16-bit lanes per P instruction, and of fxp8_P in twice as
     * many 8-bit lanes (the same register width). Loops of their multiplies (Conv's, Gemm's and MatMul's
     * products with --accumulate dtype, in their rows of accumulators) also gather operands that are no aligned word.
     */
    private static Program packLanes(Program program, int lanes) {
        Program sixteen = new PackedLanes(packedForms16(), l -> PFunctions.pack(16, l), products(16), 16, lanes).apply(program);
        Map<String, IntFunction<LibraryFunction>> forms8 = laneForms(8);
        forms8.putAll(productForms(8));
        forms8.putAll(clipForms(8));
        return new PackedLanes(forms8, l -> PFunctions.pack(8, l), products(8), 8, 2 * lanes).apply(sixteen);
    }

    /** The names of the multiplies on one {@code bits}-bit value. */
    private static Set<String> products(int bits) { return productForms(bits).keySet(); }

    /** The multiplies on one {@code bits}-bit value, with their packed forms. */
    private static Map<String, IntFunction<LibraryFunction>> productForms(int bits) {
        Map<String, IntFunction<LibraryFunction>> forms = new HashMap<>();
        for (String mode : PFunctions.PRODUCT_MODES) forms.put(PFunctions.product(bits, 1, mode).name(), l -> PFunctions.product(bits, l, mode));
        return forms;
    }

    /** The one-value functions on {@code bits}-bit lanes that have packed forms, with those forms. */
    private static Map<String, IntFunction<LibraryFunction>> laneForms(int bits) {
        Map<String, IntFunction<LibraryFunction>> forms = new HashMap<>();
        for (String operation : PFunctions.LANE_OPERATIONS) {
            forms.put(PFunctions.lane(bits, operation).name(), l -> PFunctions.packed(bits, l, operation));
        }
        return forms;
    }

    /** fxp16_P's: the lane operations, the multiplies and the symmetric clips. */
    private static Map<String, IntFunction<LibraryFunction>> packedForms16() {
        Map<String, IntFunction<LibraryFunction>> forms = laneForms(16);
        forms.put(PFunctions.Q15_MUL.name(), l -> PFunctions.packed(16, l, "q15_mul"));
        forms.putAll(productForms(16));
        forms.putAll(clipForms(16));
        return forms;
    }

    /** The symmetric clips of {@code bits}-bit values, with their packed forms. */
    private static Map<String, IntFunction<LibraryFunction>> clipForms(int bits) {
        Map<String, IntFunction<LibraryFunction>> forms = new HashMap<>();
        for (int k = 0; k <= PFunctions.largestClip(bits); k++) {
            int bound = k;
            forms.put(PFunctions.clip(bits, k).name(), l -> PFunctions.packedClip(bits, l, bound));
        }
        return forms;
    }

    /** The P instructions for qemu-user, which has none: their model from the P library, run on SIGILL. */
    @Override
    public Emulation emulation() {
        return new Emulation("p_emulation.c", Map.of("fixed_p.c", LIBRARY),
            List.of("BYODT_P_EMULATION_OPCODE=0x" + Integer.toHexString(opcode)));
    }

    /** The P library for {@code target}: the instructions on RISC-V, their C model elsewhere. */
    @Override
    public NativeLibrary library(Target target) {
        String flavour = target.isRiscv() ? "BYODT_P_OPCODE=0x" + Integer.toHexString(opcode) : "BYODT_P_MODEL=1";
        return new NativeLibrary(LIBRARY, List.of(flavour), "");
    }

    /**
     * One line telling the user which chosen datatypes the P extension does not serve on {@code target}
     * (they use base instructions), if any: P lowerings exist for fxp16_P and fxp8_P.
     */
    @Override
    public Optional<String> coverageNote(Target target, DatatypeChoice datatypes) {
        List<String> unserved = datatypes.instances().stream().map(DatatypeInstance::toString)
            .filter(name -> !name.matches("fxp16_\\d+(x\\d+)?") && !name.matches("fxp8_\\d+(x\\d+)?"))
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
