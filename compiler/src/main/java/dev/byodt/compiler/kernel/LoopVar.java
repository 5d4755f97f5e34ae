package dev.byodt.compiler.kernel;

/** A loop's induction variable (an I64 from 0 up to the loop's extent); compared by identity. */
public final class LoopVar {
    private final String name;

    public LoopVar(String name) {
        this.name = name;
    }

    public String name() { return name; }

    @Override
    public String toString() { return name; }
}
