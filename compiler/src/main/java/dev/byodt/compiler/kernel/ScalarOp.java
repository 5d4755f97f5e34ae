package dev.byodt.compiler.kernel;

/**
 * The scalar operations kernels are written in: the contract between operators (which compose them into
 * loop nests) and datatypes (which say how each is computed on their bits). Arithmetic and comparisons
 * apply to every numeric type; the transcendental group applies to REAL only and must be lowered by the
 * datatype to calls or inline code before code generation.
 */
public enum ScalarOp {
    // arithmetic on any numeric type
    ADD(2), SUB(2), MUL(2), DIV(2), NEG(1), ABS(1), MIN(2), MAX(2),
    /** Integer remainder (truncating, like C), used by index arithmetic. */
    REM(2),
    // real-valued functions
    SQRT(1), EXP(1), LOG(1), TANH(1), SIGMOID(1), ERF(1), POW(2),
    // comparisons, giving BOOL
    LT(2), LE(2), GT(2), GE(2), EQ(2), NE(2),
    // logic on BOOL
    AND(2), OR(2), NOT(1),
    /** select(cond, ifTrue, ifFalse). */
    SELECT(3),
    /** Conversion to the Op's result type: between REAL, ACC, integers and machine floats. */
    CAST(1),
    /** mac(acc, a, b) = acc + a * b in the accumulator: how reductions accumulate products. */
    MAC(3);

    private final int arity;

    ScalarOp(int arity) {
        this.arity = arity;
    }

    public int arity() { return arity; }

    public boolean isComparison() { return this == LT || this == LE || this == GT || this == GE || this == EQ || this == NE; }

    /** Operations with no machine instruction: a datatype must lower them (for float32, to its math library). */
    public boolean isTranscendental() {
        return this == SQRT || this == EXP || this == LOG || this == TANH || this == SIGMOID || this == ERF || this == POW;
    }
}
