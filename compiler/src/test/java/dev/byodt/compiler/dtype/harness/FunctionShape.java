package dev.byodt.compiler.dtype.harness;

/**
 * The C signature of a datatype library function (T is the storage type), and so the loop driver the harness
 * generates for it: each driver applies the function to n elements of off-heap arrays.
 */
public enum FunctionShape {
    /** {@code T f(T, T)}: add, sub, mul, div, min, max, pow. */
    BINARY,
    /**
     * {@code V f_xL(V, V)}, V a vector of L T: a binary function's vector variant (see VectorVariants). Its driver
     * takes the arrays L elements at a time, the last group padded with zeros, so every element goes through it.
     */
    VECTOR_BINARY,
    /** {@code T f(T)}: neg, abs, sqrt, exp, log, tanh, sigmoid, erf. */
    UNARY,
    /** {@code T f(T, int32_t)}: div_i32. */
    VALUE_AND_INT32,
    /** {@code int32_t f(T, T)}: lt, le, gt, ge, eq, ne. */
    COMPARE,
    /** {@code T f(float)}. */
    FROM_F32,
    /** {@code float f(T)}. */
    TO_F32,
    /** {@code float f(float)}: rounded_f32. */
    FLOAT_TO_FLOAT,
    /** {@code V f_xL(V)}, V a vector of L float: rounded_f32's vector variant, driven as VECTOR_BINARY is. */
    VECTOR_FLOAT_TO_FLOAT,
    /** {@code T f(double)}. */
    FROM_F64,
    /** {@code T f(int32_t)}. */
    FROM_I32,
    /** {@code int32_t f(T)}. */
    TO_I32,
    /** {@code T f(void)}: lowest. */
    CONSTANT
}
