package dev.byodt.compiler.kernel;

/** A mutable scalar inside a kernel, such as a reduction's accumulator; compared by identity. */
public final class Local {
    private final String name;
    private final ScalarType type;

    public Local(String name, ScalarType type) {
        this.name = name;
        this.type = type;
    }

    public String name() { return name; }

    public ScalarType type() { return type; }

    @Override
    public String toString() { return name; }
}
