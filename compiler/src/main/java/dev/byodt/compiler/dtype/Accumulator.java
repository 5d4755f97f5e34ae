package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.Optional;

/**
 * How a reduction's accumulator (ACC in kernels) is held and updated under one accumulation mode, in
 * machine terms: its type, its zero, a fresh accumulator holding a value, adding a value, adding the product
 * of two values, and rounding it back to a value of the datatype. Values arrive already lowered (the
 * datatype's storage), and the operands of each product arrive as they are, so that a mode which sums
 * products exactly sees them. Each {@link AccumulationMode} names its implementation, chosen once when a
 * datatype is compiled for that mode; a new mode is one new implementation.
 */
sealed interface Accumulator permits DatatypeAccumulator, RoundedFloat32Accumulator, Float32Accumulator, ExactAccumulator,
    IntegerAccumulator, FusedAccumulator {
    /** The machine type holding the accumulator. */
    ScalarType type();

    /** An accumulator holding zero, where every sum starts. */
    Expr zero();

    /** An accumulator holding {@code value}, a value of the datatype (a cast to ACC). */
    Expr holding(Expr value);

    /** {@code acc + value}, {@code value} a value of the datatype. */
    Expr add(Expr acc, Expr value);

    /** {@code acc + a * b}, {@code a} and {@code b} values of the datatype. */
    Expr multiplyAdd(Expr acc, Expr a, Expr b);

    /** The value of the datatype the accumulator rounds to (a cast from ACC). */
    Expr round(Expr acc);

    /** A library of the mode's own that its calls need besides the datatype's (the fused unit's). */
    default Optional<NativeLibrary> library() { return Optional.empty(); }
}
