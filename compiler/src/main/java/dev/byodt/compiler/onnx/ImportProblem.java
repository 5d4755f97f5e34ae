package dev.byodt.compiler.onnx;

import dev.byodt.runtime.ByodtException;

/**
 * Something in a model that byodt cannot compile, found while importing it. The loader reports problems as
 * errors; {@code byodt inspect} lists them all.
 *
 * @param opType the operator concerned, or null for a problem with a weight or graph input
 * @param where  the node, initializer or input, as users see it named
 * @param error  the one-line error the loader raises for it
 */
record ImportProblem(Kind kind, String opType, String where, ByodtException error) {
    enum Kind {
        NOT_IMPLEMENTED("not implemented"),
        UNSUPPORTED_DOMAIN("unsupported domain"),
        /** A weight, input or tensor attribute of an element type (or storage) byodt does not read. */
        UNSUPPORTED_TENSOR("unsupported tensor type"),
        /** The operator exists, but not with these attributes or input types: its type inference refused. */
        UNSUPPORTED_USE("unsupported attribute or input");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        public String description() { return description; }
    }

    /** Whether the operator itself is missing, as opposed to one use of an operator byodt has. */
    boolean isMissingOperator() { return kind == Kind.NOT_IMPLEMENTED || kind == Kind.UNSUPPORTED_DOMAIN; }
}
