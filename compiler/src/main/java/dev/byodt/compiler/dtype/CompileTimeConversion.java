package dev.byodt.compiler.dtype;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A datatype library's conversions, run at compile time on the compiling machine: from double, how constants
 * and weights become storage integers with exactly the library's own rounding; and back, what value a
 * constant's bits stand for, so that lowering can tell whether the datatype holds a number exactly. A library
 * function of no argument (a value the library defines, such as its lowest) converts too, whatever the argument.
 */
public interface CompileTimeConversion {
    /** Whether the function takes no argument, so that every value converts to the one it defines. */
    boolean isConstant();

    /** The storage bits of {@code value}, zero-extended. */
    long convert(double value);

    /**
     * Every float32 of {@code float32Values} converted, as storage integers in native byte order; {@code tensor}
     * names them, for the counters of stochastic rounding.
     */
    MemorySegment convertAll(MemorySegment float32Values, String tensor);

    /** The value of the storage bits {@code bits} by the library's to_f32, if its to_f32 is a function to call. */
    Optional<Double> valueOf(long bits);

    /** The conversions of an instance's library: its from_f64 function and, when it is a function too, its to_f32. */
    @FunctionalInterface
    interface Factory {
        CompileTimeConversion of(DatatypeInstance instance, String fromF64, Optional<String> toF32);
    }
}
