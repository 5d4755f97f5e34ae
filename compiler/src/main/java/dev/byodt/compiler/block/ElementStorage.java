package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.ElementGrid;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.ValueGrid;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;
import java.util.Optional;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * How a block format's quantized elements are kept between the quantizer and the dot products: as float32s where
 * float32 holds every element, as doubles for posits it does not (posits of up to 32 bits have at most 30 significant
 * bits and scales within 2^-240 .. 2^240: posit32's 28 bits and 2^-120 .. 2^120), else, for a grid whose every value is an integer of at most {@value #MOST_INTEGER_BITS}
 * bits times its smallest value 2^s (fixed point of up to 32 bits: fxp32_16 is k 2^-16, |k| < 2^31), as that
 * integer in 64 bits, so that a product of two elements is an exact 64-bit integer ({@link ExactBlockSum}).
 *
 * @param type F32, F64, or I64 for integers
 * @param unit the value of the integer 1 (2^s) for I64, 1 for F32 and F64
 */
record ElementStorage(ScalarType type, double unit) {
    /** Integers of at most 31 bits: a product of two has at most 62, so 64-bit integers hold it with its sign. */
    static final int MOST_INTEGER_BITS = 31;

    /** How {@code format}'s elements are kept, or empty where neither float32, double (posits) nor 31-bit integers hold them. */
    static Optional<ElementStorage> of(BlockFormat format) {
        ElementGrid element = format.element();
        if (element.float32HoldsEvery()) return Optional.of(new ElementStorage(ScalarType.F32, 1));
        if (element instanceof PositGrid) return Optional.of(new ElementStorage(ScalarType.F64, 1));
        // A grid's values are multiples of its smallest, 2^s, and below 2^(emax + 1): integers of emax + 1 - s bits.
        if (element instanceof ValueGrid grid && grid.maxExponent() + 1 - grid.smallestExponent() <= MOST_INTEGER_BITS) {
            return Optional.of(new ElementStorage(ScalarType.I64, grid.smallest()));
        }
        return Optional.empty();
    }

    boolean integers() { return type == ScalarType.I64; }

    /** The stored form of an element (F64, exact): a float32, a double, or the integer element / 2^s, 0 for NaN (a NaN block's scale is NaN). */
    Expr stored(Expr element) {
        if (!integers()) return cast(type, element);
        Expr f64 = cast(ScalarType.F64, element);
        return cast(ScalarType.I64, select(ne(f64, f64), constant(ScalarType.F64, 0), mul(f64, constant(ScalarType.F64, 1 / unit))));
    }

    /** The stored form of an element computed at compile time, as a double (exact): the integer element / 2^s with NaN as 0, as {@link #stored(Expr)}, or the element. */
    double storedValue(double element) {
        if (!integers()) return element;
        return Double.isNaN(element) ? 0 : (long) (element / unit);
    }

    /** Stored values ({@link #storedValue}) as a constant tensor of this storage's type. */
    Tensor tensor(long[] shape, double[] stored) {
        return switch (type) {
            case F32 -> {
                float[] floats = new float[stored.length];
                for (int i = 0; i < stored.length; i++) floats[i] = (float) stored[i];
                yield Tensor.ofFloats(shape, floats);
            }
            case I64 -> Tensor.ofLongs(shape, Arrays.stream(stored).mapToLong(v -> (long) v).toArray());
            default -> {
                Tensor doubles = Tensor.zeros(ElementType.DOUBLE, shape);
                for (int i = 0; i < stored.length; i++) doubles.setDouble(i, stored[i]);
                yield doubles;
            }
        };
    }
}
