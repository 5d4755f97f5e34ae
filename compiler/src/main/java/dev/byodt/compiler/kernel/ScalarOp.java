package dev.byodt.compiler.kernel;

import java.util.Locale;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.function.LongBinaryOperator;

/**
 * The scalar operations kernels are written in: the contract between operators (which compose them into
 * loop nests) and datatypes (which say how each is computed on their bits). Each entry is the one definition
 * of its operation: its arity and {@link Category} (which give the C signature a datatype library implements),
 * what the interpreter computes (float32 for reals), how float32 computes it, and the ONNX operator that is
 * nothing but this operation. The datatype operations, the built-in libraries' lists, the harness's function
 * lists, float32's lowering and the ONNX operator's registration are all derived from here: a new operation
 * computed through double needs this entry, its {@code NAME_d} routine in common/double_math.c (and its name in
 * that file's EVERY_LIBRARY_THROUGH_DOUBLE list and float32.c's THROUGH_DOUBLE lines), and its name in
 * docs/bring-your-own-datatype.md's table.
 */
public enum ScalarOp {
    ADD(Category.ARITHMETIC, 2, Float32Lowering.INSTRUCTION, null, (x, y) -> x + y, (x, y) -> x + y),
    SUB(Category.ARITHMETIC, 2, Float32Lowering.INSTRUCTION, null, (x, y) -> x - y, (x, y) -> x - y),
    MUL(Category.ARITHMETIC, 2, Float32Lowering.INSTRUCTION, null, (x, y) -> x * y, (x, y) -> x * y),
    /** Division; on integers it truncates toward zero, like C. */
    DIV(Category.ARITHMETIC, 2, Float32Lowering.INSTRUCTION, null, (x, y) -> x / y, (x, y) -> x / y),
    // ONNX Min and Max propagate NaN.
    MIN(Category.ARITHMETIC, 2, Float32Lowering.INSTRUCTION, null,
        (x, y) -> Float.isNaN(x) || Float.isNaN(y) ? Float.NaN : Math.min(x, y), Math::min),
    MAX(Category.ARITHMETIC, 2, Float32Lowering.INSTRUCTION, null,
        (x, y) -> Float.isNaN(x) || Float.isNaN(y) ? Float.NaN : Math.max(x, y), Math::max),
    POW(Category.THROUGH_DOUBLE, 2, Float32Lowering.LIBRARY, null, (x, y) -> (float) Math.pow(x, y), null),
    NEG(Category.ARITHMETIC, 1, Float32Lowering.INSTRUCTION, "Neg", (x, y) -> -x, (x, y) -> -x),
    ABS(Category.ARITHMETIC, 1, Float32Lowering.INSTRUCTION, "Abs", (x, y) -> Math.abs(x), (x, y) -> Math.abs(x)),
    /** Correctly rounded in every datatype, an instruction in float32. */
    SQRT(Category.REAL_FUNCTION, 1, Float32Lowering.INSTRUCTION, "Sqrt", (x, y) -> (float) Math.sqrt(x), null),
    EXP(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Exp", (x, y) -> (float) Math.exp(x), null),
    LOG(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Log", (x, y) -> (float) Math.log(x), null),
    TANH(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Tanh", (x, y) -> (float) Math.tanh(x), null),
    SIGMOID(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Sigmoid",
        (x, y) -> (float) (1 / (1 + Math.exp(-(double) x))), null),
    ERF(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Erf", (x, y) -> (float) Erf.erf(x), null),
    SIN(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Sin", (x, y) -> (float) Math.sin(x), null),
    COS(Category.THROUGH_DOUBLE, 1, Float32Lowering.LIBRARY, "Cos", (x, y) -> (float) Math.cos(x), null),
    FLOOR(Category.ROUNDING, 1, Float32Lowering.LIBRARY, "Floor", (x, y) -> (float) Math.floor(x), null),
    CEIL(Category.ROUNDING, 1, Float32Lowering.LIBRARY, "Ceil", (x, y) -> (float) Math.ceil(x), null),
    /** To the nearest integer, ties to even (ONNX Round). */
    ROUND(Category.ROUNDING, 1, Float32Lowering.LIBRARY, "Round", (x, y) -> (float) Math.rint(x), null),
    LT(c -> c < 0), LE(c -> c <= 0), GT(c -> c > 0), GE(c -> c >= 0), EQ(c -> c == 0), NE(c -> c != 0),
    AND(Category.LOGIC, 2), OR(Category.LOGIC, 2), NOT(Category.LOGIC, 1),
    /** Integer remainder (truncating, like C), used by index arithmetic. */
    REM(Category.INDEX, 2, Float32Lowering.INSTRUCTION, null, null, (x, y) -> x % y),
    /** Bitwise exclusive or of 64-bit integers: with SHIFT_RIGHT, the hash of stochastic rounding's counters. */
    XOR(Category.INDEX, 2, Float32Lowering.INSTRUCTION, null, null, (x, y) -> x ^ y),
    /** Shift right of a 64-bit integer, zeros shifted in (Java's >>>), by a count from 0 to 63. */
    SHIFT_RIGHT(Category.INDEX, 2, Float32Lowering.INSTRUCTION, null, null, (x, y) -> x >>> y),
    /** select(cond, ifTrue, ifFalse). */
    SELECT(Category.STRUCTURE, 3),
    /** Conversion to the Op's result type: between REAL, ACC, integers and machine floats. */
    CAST(Category.STRUCTURE, 1),
    /**
     * The same bits as the Op's result type: a machine float's bit pattern as the integer of its width (F32 to I32,
     * F64 to I64) or back. A magnitude's pattern orders as its value, NaN above infinity, so a block's largest
     * magnitude is an integer maximum, a reduction every target vectorizes.
     */
    BITCAST(Category.STRUCTURE, 1),
    /**
     * mac(acc, a, b) = acc + a * b in the accumulator: how reductions accumulate products. On machine floats (float32's
     * sums, --accumulate float32's) it rounds as {@link MultiplyAdd} says: by default a multiply then an add, two
     * roundings, which is what ONNX's reference computes; with --multiply-add fused one fused multiply-add.
     */
    MAC(Category.STRUCTURE, 3, Float32Lowering.MULTIPLY_ADD, null, null, null),
    /**
     * exactMac(acc, a, b) = acc + a * b on machine floats (F32, F64) whose product and sum are both exact, such as
     * a block's products of elements and their partial sums ({@code ExactBlockSum}): a fused multiply-add then
     * gives the same bits as a multiply and an add, so the target chooses (llvm.fmuladd).
     */
    EXACT_MAC(Category.STRUCTURE, 3),
    /**
     * divideByCount(value, count, largestCount): a mean, a REAL divided by an I64 element count from 1 to the
     * constant largestCount. The interpreter divides by the count in float32; each datatype divides as its
     * lowering decides (CountDivision: by the count where it holds it, else by an integer division or 1/n),
     * since a format of small range cannot hold the count itself.
     */
    DIVIDE_BY_COUNT(Category.STRUCTURE, 3);

    /** What an operation is, which says whether and how a datatype computes it. */
    public enum Category {
        /** + - * / min max neg abs: on every numeric type; a datatype computes them on its values. */
        ARITHMETIC,
        /** Functions of reals a datatype computes exactly rounded by its own means (sqrt). */
        REAL_FUNCTION,
        /** Functions of reals the built-in libraries compute in double and round once (common/double_math.c). */
        THROUGH_DOUBLE,
        /** Rounding to an integer value: exact in every datatype (an integer part saturates where it overflows). */
        ROUNDING,
        /** Comparisons of two values, giving BOOL (a datatype's function returns int32_t 0 or 1). */
        COMPARISON,
        /** Logic on BOOL. */
        LOGIC,
        /** Integer-only index arithmetic. */
        INDEX,
        /** Plumbing of the IR itself: select, conversions, multiply-accumulate. */
        STRUCTURE
    }

    /** How the float32 datatype computes an operation on machine floats. */
    public enum Float32Lowering {
        /** An LLVM instruction or intrinsic that needs no C library. */
        INSTRUCTION,
        /** A call of float32.c's {@code float32_NAME}, which computes in double without a C library. */
        LIBRARY,
        /** mac(acc, a, b) as the machine's multiply-add, rounded once or twice as {@link MultiplyAdd} says. */
        MULTIPLY_ADD
    }

    /** An operation on float32 values; unary ones ignore y. */
    @FunctionalInterface
    public interface RealFunction {
        float apply(float x, float y);
    }

    private final Category category;
    private final int arity;
    private final Float32Lowering float32Lowering;
    private final String onnxOperator;
    private final RealFunction onReals;
    private final LongBinaryOperator onIntegers;
    private final IntPredicate ordering;

    ScalarOp(Category category, int arity, Float32Lowering float32Lowering, String onnxOperator, RealFunction onReals,
             LongBinaryOperator onIntegers) {
        this(category, arity, float32Lowering, onnxOperator, onReals, onIntegers, null);
    }

    ScalarOp(Category category, int arity) {
        this(category, arity, Float32Lowering.INSTRUCTION, null, null, null, null);
    }

    /** A comparison, true when {@code ordering} holds of the operands' order (-1, 0, 1), false for NaN but in NE. */
    ScalarOp(IntPredicate ordering) {
        this(Category.COMPARISON, 2, Float32Lowering.INSTRUCTION, null, null, null, ordering);
    }

    ScalarOp(Category category, int arity, Float32Lowering float32Lowering, String onnxOperator, RealFunction onReals,
             LongBinaryOperator onIntegers, IntPredicate ordering) {
        this.category = category;
        this.arity = arity;
        this.float32Lowering = float32Lowering;
        this.onnxOperator = onnxOperator;
        this.onReals = onReals;
        this.onIntegers = onIntegers;
        this.ordering = ordering;
    }

    public int arity() { return arity; }

    public Category category() { return category; }

    public boolean isComparison() { return category == Category.COMPARISON; }

    /** Whether a datatype computes this operation on its values (and so has a library function for it). */
    public boolean isDatatypeOp() {
        return switch (category) {
            case ARITHMETIC, REAL_FUNCTION, THROUGH_DOUBLE, ROUNDING, COMPARISON -> true;
            case LOGIC, INDEX, STRUCTURE -> false;
        };
    }

    public Float32Lowering float32Lowering() { return float32Lowering; }

    /** The ONNX operator of one tensor that applies this operation to each element, if there is one. */
    public Optional<String> onnxOperator() { return Optional.ofNullable(onnxOperator); }

    /** add, exp, lt, ...: the name library functions and users know it by. */
    public String functionName() { return name().toLowerCase(Locale.ROOT); }

    /** The interpreter's float32 result; unary operations ignore {@code y}. */
    public float onReals(float x, float y) {
        if (onReals == null) throw new IllegalStateException(this + " on reals");
        return onReals.apply(x, y);
    }

    public boolean hasIntegerSemantics() { return onIntegers != null; }

    /** The interpreter's result on 64-bit integers; unary operations ignore {@code y}. */
    public long onIntegers(long x, long y) {
        if (onIntegers == null) throw new IllegalStateException(this + " on integers");
        return onIntegers.applyAsLong(x, y);
    }

    /** For a comparison: its result for operands ordered as {@code order} says (negative, 0, positive). */
    public boolean holdsFor(int order) { return ordering.test(order); }
}
