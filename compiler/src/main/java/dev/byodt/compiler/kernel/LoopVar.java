package dev.byodt.compiler.kernel;

/**
 * A loop's induction variable (an I64 from 0 up to the loop's extent); compared by identity.
 *
 * <p>A variable that {@link #splits()} belongs to a loop whose iterations the operator declares independent: each
 * writes its own elements of the kernel's outputs, reads none that another iteration writes, and keeps its
 * scratch state to itself. A model compiled for several threads gives each thread a range of such a loop's
 * iterations ({@link dev.byodt.compiler.codegen.SplitLoops}); every element is then computed by the same
 * instructions as on one thread, so the results are the same bits.
 */
public final class LoopVar {
    private final String name;
    private final boolean splits;

    public LoopVar(String name) {
        this(name, false);
    }

    public LoopVar(String name, boolean splits) {
        this.name = name;
        this.splits = splits;
    }

    public String name() { return name; }

    /** Whether threads may divide this variable's loop among themselves. */
    public boolean splits() { return splits; }

    @Override
    public String toString() { return name; }
}
