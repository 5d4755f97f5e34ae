package dev.byodt.cli.compare;

import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.LoadedModel;
import dev.byodt.compiler.emulation.EmulatedModel;
import dev.byodt.compiler.emulation.Emulator;
import dev.byodt.compiler.target.Target;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * Where byodt's compiled code runs: in this process through the JIT (the host), or linked into a static
 * executable that qemu-user runs, a process per call (a RISC-V target). Everything `byodt run` computes
 * with byodt's code (the float32 reference, the datatype, per-layer intermediates, the saturation probe,
 * a single --input) is loaded through the executor of the chosen target, so that a comparison on a target
 * compares the target's own code on both sides.
 */
public sealed interface Executor {
    /** Items per emulated call: qemu starts in milliseconds, but a process per item would mostly start. */
    int EMULATED_BATCH = 50;

    /** The executor for code compiled for {@code target}; a RISC-V run past {@code timeLimit} is stopped. */
    static Executor forTarget(Target target, Duration timeLimit) {
        return target.isRiscv() ? new Emulated(target, Emulator.forTarget(target, timeLimit)) : new Host(target);
    }

    static Executor host() { return new Host(Target.host()); }

    /** Loads {@code module}, compiled for this executor's target; the module may be closed afterwards. */
    LoadedModel load(CompiledModule module);

    /**
     * The items per call for a data set of {@code items} (never 0) when --batch is not given, or empty to
     * compile the model's input as the model declares it.
     */
    OptionalInt batchFor(int items);

    /** For reports: "host (x86_64-unknown-linux-gnu)", "riscv64 (riscv64-unknown-linux-gnu, lp64d) under qemu-riscv64". */
    String describe();

    /** The JIT: a call costs a function call, so items go one per call unless --batch says otherwise. */
    record Host(Target target) implements Executor {
        @Override
        public LoadedModel load(CompiledModule module) { return Compiler.jit(module); }

        @Override
        public OptionalInt batchFor(int items) { return OptionalInt.empty(); }

        @Override
        public String describe() { return target.name() + " (" + target.triple() + ")"; }
    }

    /**
     * qemu-user: batches of up to {@link #EMULATED_BATCH} items, and at least as many calls as there are
     * cores while the items last, so that every core runs a qemu process.
     */
    record Emulated(Target target, Emulator emulator) implements Executor {
        @Override
        public LoadedModel load(CompiledModule module) { return EmulatedModel.build(module, emulator); }

        @Override
        public OptionalInt batchFor(int items) {
            int calls = Math.max(Math.ceilDiv(items, EMULATED_BATCH), Math.min(items, Runtime.getRuntime().availableProcessors()));
            return OptionalInt.of(Math.ceilDiv(items, calls));
        }

        @Override
        public String describe() {
            return target.name() + " (" + target.triple() + ", " + target.riscvAbi() + ") under " + emulator.qemu().getFileName();
        }
    }
}
