package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A number format, as code generation needs it: the machine type its values are stored in, and how each
 * scalar operation on its values is computed, either by machine instructions or by calls into its C
 * library. Datatypes know nothing about operators; the scalar operations are the whole contract.
 */
public interface Datatype {
    /** The name users write after --dtype. */
    String name();

    /** The machine type holding one value: F32 for float32, I16 for a 16-bit posit. */
    ScalarType storageType();

    /** The machine type of a reduction's accumulator (ACC) under the accumulation mode compiled for. */
    ScalarType accumulatorType();

    /** The machine constant standing for a real constant of this datatype. */
    Expr constant(double value);

    /** The machine constant standing for an accumulator holding {@code value}. */
    Expr accumulatorConstant(double value);

    /**
     * The machine expression computing {@code op}, an operation whose operands or result are REAL or ACC.
     * {@code loweredArgs} are op's operands already in machine types; {@code op} keeps the abstract types,
     * so the datatype can tell a REAL operand from an F32 one that happens to have the same storage.
     * Calls name functions of {@link #library()} (or of float32's, when an operation falls back to float32).
     * Reductions reach it as the ACC operations of {@code Exprs}: mac, accumulate, and casts to and from ACC.
     */
    Expr lower(Expr.Op op, List<Expr> loweredArgs);

    /**
     * Weights: float32 values (raw bytes) converted once, at compile time, to this datatype's storage; {@code tensor}
     * names them (stochastic rounding's counters hash it).
     */
    MemorySegment convertWeights(MemorySegment float32Values, String tensor);

    /**
     * Whether a mac may take its operands as F32 values this datatype decoded (its to_f32), so that a dot
     * product decodes each element of its operands once rather than once per product: where the accumulation
     * mode multiplies the to_f32 values of the operands anyway (--accumulate float32, and dtype where the sums run
     * in float32 registers) and the values are not float32 already.
     */
    boolean multipliesDecodedOperands();

    /**
     * With --accumulate exact on the host, for a datatype whose every value is a float32 of at most this many
     * significand bits and whose exact sums, when a double holds them, round as from_f64 rounds that double: a
     * dot product may then sum its products in double wherever its operands' magnitudes prove each partial sum
     * exact ({@link dev.byodt.compiler.lower.DoubleSums}). Empty otherwise.
     */
    OptionalInt exactSumSignificandBits();

    /**
     * With --accumulate dtype on the host, where a dot product's sums run in float32 registers and round by
     * rounded_f32 ({@link RoundedFloat32Accumulator}) and the library has rounded_f32_with_fraction: that rounding and
     * the scales where it is rounded_f32, so that a dot product may round with it wherever its operands' magnitudes
     * prove every value within them ({@link dev.byodt.compiler.lower.RegimeSums}). Empty otherwise.
     */
    Optional<RoundingWithinScales> roundingWithinScales();

    /**
     * Weights as a mac with decoded operands reads them: rounded to the datatype ({@link #convertWeights}) and
     * decoded by its to_f32, as float32 values (raw bytes), when its to_f32 can run at compile time.
     */
    Optional<MemorySegment> decodedWeights(MemorySegment float32Values, String tensor);

    /** The library the datatype's calls go to, if it has one. */
    Optional<NativeLibrary> library();

    /** The library its accumulation mode's calls go to, when the mode has one of its own (a fused unit). */
    Optional<NativeLibrary> accumulationLibrary();
}
