package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;

import java.util.function.UnaryOperator;

/**
 * A datatype's cheaper rounding of its dot products' sums ({@link Datatype#roundingWithinScales}): {@code rounded}
 * makes the call of rounded_f32_with_fraction on a float32 expression, which rounds as rounded_f32 does every float32
 * that is zero or of a scale within {@code scales}' range.
 */
public record RoundingWithinScales(PositScales scales, UnaryOperator<Expr> rounded) {}
