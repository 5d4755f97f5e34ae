package dev.byodt.compiler.kernel;

/**
 * A loop's induction variable (an I64 from 0 up to the loop's extent); compared by identity.
 *
 * <p>A variable that {@link #splits()} belongs to a loop whose iterations the operator declares independent: each
 * writes its own elements of the kernel's outputs, reads none that another iteration writes, and keeps its
 * scratch state to itself. A model compiled for several threads gives each thread a range of such a loop's
 * iterations ({@link dev.byodt.compiler.codegen.SplitLoops}); every element is then computed by the same
 * instructions as on one thread, so the results are the same bits.
 *
 * <p>A variable that {@link #spansVectors()} belongs to a loop that a schedule sized to a few whole vectors of
 * the machine, such as a row of a register tile: LLVM vectorizes it as it stands and unrolls it only then
 * ({@link dev.byodt.compiler.codegen.LoopHints}).
 */
public final class LoopVar {
    private final String name;
    private final boolean splits;
    private final boolean spansVectors;

    public LoopVar(String name) {
        this(name, false);
    }

    public LoopVar(String name, boolean splits) {
        this(name, splits, false);
    }

    LoopVar(String name, boolean splits, boolean spansVectors) {
        this.name = name;
        this.splits = splits;
        this.spansVectors = spansVectors;
    }

    public String name() { return name; }

    /** Whether threads may divide this variable's loop among themselves. */
    public boolean splits() { return splits; }

    /** Whether this variable's loop spans a few whole vectors, to be vectorized before it is unrolled. */
    public boolean spansVectors() { return spansVectors; }

    @Override
    public String toString() { return name; }
}
