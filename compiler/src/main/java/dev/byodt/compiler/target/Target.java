package dev.byodt.compiler.target;

import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineOptionsRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTargetRef;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * What code is generated for: an LLVM target triple, a CPU name, its feature string ("+avx2,+fma,..."),
 * the calling convention's ABI name (empty: LLVM's default for the triple and features) and the
 * {@link TargetExtension} it has beyond what LLVM knows, if any (the RISC-V P extension, whose
 * instructions come from inline assembly in its library, so it is not among the LLVM features).
 */
public record Target(String name, String triple, String cpu, String features, String abi, Optional<TargetExtension> extension) {

    /**
     * The x86-64 features the C libraries are compiled with where the CPU has them (beyond x86-64's baseline,
     * clang assumes none). F16C: the minifloat library converts float16 with vcvtph2ps and vcvtps2ph (without
     * it, clang's half conversions would be calls to compiler-rt, which byodt does not link). AVX-512 BW, VBMI
     * and VBMI2: the posit library's 64-lane vector variants for posits of up to 8 bits (posit_x64.c).
     */
    public static final List<String> X86_LIBRARY_FEATURES = List.of("f16c", "avx512bw", "avx512vbmi", "avx512vbmi2");

    public Target(String name, String triple, String cpu, String features) {
        this(name, triple, cpu, features, "", Optional.empty());
    }

    /** The machine this JVM runs on, with every feature its CPU has (the JIT's target). */
    public static Target host() {
        Llvm.initializeNative();
        return new Target("host", Llvm.take(LLVMGetDefaultTargetTriple()), Llvm.take(LLVMGetHostCPUName()),
            Llvm.take(LLVMGetHostCPUFeatures()));
    }

    public boolean isRiscv() { return isRiscv32() || isRiscv64(); }

    public boolean isRiscv32() { return triple.startsWith("riscv32"); }

    public boolean isRiscv64() { return triple.startsWith("riscv64"); }

    /** This target with {@code added} in place of its extension; the name says the extension (riscv64p). */
    public Target with(TargetExtension added) {
        String named = extension.isPresent() ? name : name + added.name().toLowerCase(Locale.ROOT);
        return new Target(named, triple, cpu, features, abi, Optional.of(added));
    }

    /** The lowerings that apply here: the extension's, else those for this kind of machine. */
    public LoweringTarget loweringTarget() {
        if (extension.isPresent()) return extension.get().loweringTarget();
        return isRiscv32() ? LoweringTarget.RISCV32 : isRiscv64() ? LoweringTarget.RISCV64 : LoweringTarget.HOST;
    }

    /**
     * Throws a ByodtException naming the datatype when this target cannot compile the chosen datatypes:
     * what the extension refuses, and, without one, packed lanes (xLANES), which only P packs.
     */
    public void check(DatatypeChoice datatypes) {
        if (extension.isPresent()) {
            extension.get().check(this, datatypes);
            return;
        }
        for (DatatypeInstance instance : datatypes.instances()) {
            if (instance.lanes() != 1) {
                throw new ByodtException("datatype " + instance + " on target " + name
                    + ": packed lanes need a P target (fxp16_P x2 or fxp8_P x4: riscv32p or riscv64p; x4 or x8: riscv64p)");
            }
        }
    }

    /** The passes the extension runs on a program after datatype lowering: none without one. */
    public List<UnaryOperator<Program>> passes(DatatypeChoice datatypes) {
        return extension.map(e -> e.passes(this, datatypes)).orElse(List.of());
    }

    /**
     * The width in bits of the vectors the model's loops vectorize into: on x86-64 512 with AVX-512F (where
     * {@link dev.byodt.compiler.codegen.VectorWidth} lets LLVM use them), 256 with AVX, 128 with the baseline's
     * SSE2; on RISC-V the integer registers that a P extension packs lanes into (XLEN bits), else 0: byodt's
     * RISC-V targets have no vector unit.
     */
    public int vectorBits() {
        if (isRiscv()) return extension.isEmpty() ? 0 : isRiscv64() ? 64 : 32;
        return hasFeature("avx512f") ? 512 : hasFeature("avx") ? 256 : 128;
    }

    /**
     * How many elements of a datatype stored in {@code storageBits} bits one vector holds, at least 1: what the
     * tuned schedules size their blocks of outputs by. On x86-64 the datatypes' arithmetic runs in lanes of 32
     * bits or more (float16 and bfloat16 through float32, fixed-point products and posit decoding in 32-bit
     * integers), so a narrower datatype fills a vector as float32 does; a P extension computes in 8- and
     * 16-bit lanes of its registers.
     */
    public int lanes(int storageBits) {
        int laneBits = isRiscv() ? storageBits : Math.max(32, storageBits);
        return Math.max(1, vectorBits() / laneBits);
    }

    /** Whether LLVM's feature string turns {@code feature} on ("d" for "+d"). */
    public boolean hasFeature(String feature) {
        return ("," + features + ",").contains(",+" + feature + ",");
    }

    /**
     * The flags that make clang compile C for exactly this target, so that its objects and bitcode link
     * with the model's: on RISC-V the ISA string and the floating-point ABI must agree with the model's.
     * On x86-64, the features of {@link #X86_LIBRARY_FEATURES} the CPU has.
     */
    public List<String> clangFlags() {
        if (!isRiscv()) return X86_LIBRARY_FEATURES.stream().filter(this::hasFeature).map(feature -> "-m" + feature).toList();
        StringBuilder march = new StringBuilder(isRiscv64() ? "rv64i" : "rv32i");
        for (String extension : List.of("m", "a", "f", "d", "c")) {
            if (hasFeature(extension)) march.append(extension);
        }
        return List.of("-march=" + march, "-mabi=" + riscvAbi());
    }

    /** The ABI name: the one given, else the hard-float ABI the features allow (lp64d, ilp32f, ilp32...). */
    public String riscvAbi() {
        if (!abi.isEmpty()) return abi;
        return (isRiscv64() ? "lp64" : "ilp32") + (hasFeature("d") ? "d" : hasFeature("f") ? "f" : "");
    }

    /**
     * A new TargetMachine for this target: position-independent code (it must go into shared libraries
     * and the JIT alike), default code model, full optimisation. The caller disposes it.
     */
    public LLVMTargetMachineRef createTargetMachine() {
        Llvm.initializeNative();
        LLVMTargetRef target = new LLVMTargetRef();
        BytePointer error = new BytePointer();
        if (LLVMGetTargetFromTriple(new BytePointer(triple), target, error) != 0) {
            Llvm.take(error);
            Llvm.initializeAll();
            if (LLVMGetTargetFromTriple(new BytePointer(triple), target, error) != 0) {
                throw new ByodtException("target " + name + " (" + triple + ") is not supported by LLVM: " + Llvm.take(error));
            }
        }
        LLVMTargetMachineOptionsRef options = LLVMCreateTargetMachineOptions();
        try {
            LLVMTargetMachineOptionsSetCPU(options, cpu);
            LLVMTargetMachineOptionsSetFeatures(options, features);
            if (isRiscv()) LLVMTargetMachineOptionsSetABI(options, riscvAbi());
            LLVMTargetMachineOptionsSetCodeGenOptLevel(options, LLVMCodeGenLevelAggressive);
            LLVMTargetMachineOptionsSetRelocMode(options, LLVMRelocPIC);
            LLVMTargetMachineOptionsSetCodeModel(options, LLVMCodeModelDefault);
            return LLVMCreateTargetMachineWithOptions(target, triple, options);
        } finally {
            LLVMDisposeTargetMachineOptions(options);
        }
    }
}
