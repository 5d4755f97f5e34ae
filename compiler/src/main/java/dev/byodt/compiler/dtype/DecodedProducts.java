package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;

/**
 * An {@link Accumulator} whose products multiply the float32 values of their operands (to_f32 of each), so that
 * the operands may come already decoded: a dot product's operands are then decoded once per tensor, ahead of
 * its loops, rather than once per product ({@link Datatype#multipliesDecodedOperands}). The same float32 values
 * are multiplied either way, so the result is the same, bit for bit.
 */
interface DecodedProducts {
    /** {@code acc + a * b}, {@code a} and {@code b} float32 values of the datatype (to_f32 of its values). */
    Expr multiplyAddDecoded(Expr acc, Expr a, Expr b);
}
