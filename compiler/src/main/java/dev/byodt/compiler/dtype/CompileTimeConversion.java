package dev.byodt.compiler.dtype;

import java.lang.foreign.MemorySegment;

/**
 * A datatype library's conversion from double, run at compile time on the compiling machine: how constants
 * and weights become storage integers with exactly the library's own rounding. A library function of no
 * argument (a value the library defines, such as its lowest) is one too, whose result ignores the argument.
 */
public interface CompileTimeConversion {
    /** Whether the function takes no argument, so that every value converts to the one it defines. */
    boolean isConstant();

    /** The storage bits of {@code value}, zero-extended. */
    long convert(double value);

    /** Every float32 of {@code float32Values} converted, as storage integers in native byte order. */
    MemorySegment convertAll(MemorySegment float32Values);
}
