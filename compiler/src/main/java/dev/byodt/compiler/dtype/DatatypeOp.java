package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.ScalarOp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The operations a datatype lowers: the scalar operations of the kernel IR on its values, plus the
 * conversions, constants and accumulator functions that connect it to the rest of a program. This is the
 * whole contract between a datatype and byodt (operators never see it). Each carries the C signature its
 * library function has when it lowers to a call, with T the storage type; {@link #functionSuffix()} is the
 * name the built-in libraries give it after their prefix ({@code posit16es2_add}).
 *
 * <p>The operations on values are not listed here: there is one for each {@link ScalarOp} a datatype computes
 * ({@link ScalarOp#isDatatypeOp()}), with the signature its category gives, reached by {@link #of(ScalarOp)}.
 */
public final class DatatypeOp implements Comparable<DatatypeOp> {
    /** What a parameter or result of the library function is. */
    public enum Kind { VALUE, FLOAT, DOUBLE, INT32, ACCUMULATOR, NOTHING }

    private static final List<DatatypeOp> ALL = new ArrayList<>();
    private static final Map<ScalarOp, DatatypeOp> OF_SCALAR = new EnumMap<>(ScalarOp.class);

    static {
        for (ScalarOp op : ScalarOp.values()) {
            if (!op.isDatatypeOp()) continue;
            DatatypeOp d = new DatatypeOp(op.functionName(), op, op.isComparison() ? Kind.INT32 : Kind.VALUE,
                Collections.nCopies(op.arity(), Kind.VALUE));
            ALL.add(d);
            OF_SCALAR.put(op, d);
        }
    }

    public static final DatatypeOp FROM_F32 = named("from_f32", Kind.VALUE, Kind.FLOAT);
    public static final DatatypeOp TO_F32 = named("to_f32", Kind.FLOAT, Kind.VALUE);
    public static final DatatypeOp FROM_I32 = named("from_i32", Kind.VALUE, Kind.INT32);
    public static final DatatypeOp TO_I32 = named("to_i32", Kind.INT32, Kind.VALUE);
    /**
     * Optional: a value divided by a positive integer, the count a mean divides its sum by, rounded once. A
     * datatype that lowers it divides with it the means of the counts it does not hold (fixed point: fxp16_13
     * holds none from 4 on); the others multiply by 1/count there ({@link CountDivision}).
     */
    public static final DatatypeOp DIV_I32 = named("div_i32", Kind.VALUE, Kind.VALUE, Kind.INT32);
    /**
     * Optional: {@code to_f32(from_f32(x))}, a float32 rounded to the datatype and read back, in one function. Where
     * a datatype's add and mul are float32's rounded once, --accumulate dtype rounds twice per multiply-add this
     * way ({@link RoundedFloat32Accumulator}); a datatype that lowers it there spares the encoding in between.
     * A NaN may come back as any NaN: the sums hand it on to from_f32 alone.
     */
    public static final DatatypeOp ROUNDED_F32 = named("rounded_f32", Kind.FLOAT, Kind.FLOAT);
    /**
     * Optional: rounded_f32 for the float32s a dot product's check proves its values to be (zero, or of a scale
     * within {@link PositScales}'s range), in fewer instructions: --accumulate dtype's sums call it where the check
     * holds ({@link dev.byodt.compiler.lower.RegimeSums}), rounded_f32 elsewhere.
     */
    public static final DatatypeOp ROUNDED_F32_WITH_FRACTION = named("rounded_f32_with_fraction", Kind.FLOAT, Kind.FLOAT);
    /**
     * Constants (TVM's FloatImm) and weights: evaluated at compile time, by calling the library on the host,
     * never in the generated code. Its lowering must be a call of {@code T f(double)}.
     */
    public static final DatatypeOp FROM_F64 = named("from_f64", Kind.VALUE, Kind.DOUBLE);
    /** The most negative value, where max-pooling starts (TVM's register_min_func). */
    public static final DatatypeOp LOWEST = named("lowest", Kind.VALUE);
    /** Exact accumulation: {@code void acc_mac(uint64_t *acc, T a, T b)}, acc += a*b in place. */
    public static final DatatypeOp ACC_MAC = named("acc_mac", Kind.NOTHING, Kind.ACCUMULATOR, Kind.VALUE, Kind.VALUE);
    /** {@code void acc_add(uint64_t *acc, T a)}, acc += a in place. */
    public static final DatatypeOp ACC_ADD = named("acc_add", Kind.NOTHING, Kind.ACCUMULATOR, Kind.VALUE);
    /** {@code T acc_round(const uint64_t *acc)}: the accumulator rounded once. */
    public static final DatatypeOp ACC_ROUND = named("acc_round", Kind.VALUE, Kind.ACCUMULATOR);

    private final int order;
    private final String suffix;
    private final ScalarOp scalarOp;
    private final Kind result;
    private final List<Kind> params;

    private DatatypeOp(String suffix, ScalarOp scalarOp, Kind result, List<Kind> params) {
        this.order = ALL.size();
        this.suffix = suffix;
        this.scalarOp = scalarOp;
        this.result = result;
        this.params = List.copyOf(params);
    }

    private static DatatypeOp named(String suffix, Kind result, Kind... params) {
        DatatypeOp op = new DatatypeOp(suffix, null, result, List.of(params));
        ALL.add(op);
        return op;
    }

    /** Every operation: those on values in {@link ScalarOp}'s order, then conversions, constants, accumulation. */
    public static List<DatatypeOp> values() { return Collections.unmodifiableList(ALL); }

    /** The operations on values (those that compute a {@link ScalarOp}). */
    public static List<DatatypeOp> valueOps() { return List.copyOf(OF_SCALAR.values()); }

    public Kind result() { return result; }

    public List<Kind> params() { return params; }

    public int arity() { return params.size(); }

    /** add, from_f32, acc_mac, ...: the library function's name after its prefix, and what users read. */
    public String functionSuffix() { return suffix; }

    /** ADD, FROM_F32, ...: the name in Java and in messages. */
    public String name() { return suffix.toUpperCase(Locale.ROOT); }

    public boolean isComparison() { return scalarOp != null && scalarOp.isComparison(); }

    public boolean isAccumulatorOp() { return params.contains(Kind.ACCUMULATOR); }

    /**
     * Whether a stochastically rounding library's function for it takes the counter of its random bits, one more
     * uint64_t argument after the others (common/rounding.c's SR_PARAM): every function whose result is a value
     * the library computes and may round (+ - * / sqrt, the functions through double, floor, ceil and round among
     * them, the conversions to the datatype, div_i32, acc_round); not those that only move a sign or choose an
     * operand (neg, abs, min, max), compare, convert from the datatype, give its lowest value or update an
     * accumulator.
     */
    public boolean takesRandomCounter() {
        if (result != Kind.VALUE || this == LOWEST) return false;
        return scalarOp == null || !EnumSet.of(ScalarOp.NEG, ScalarOp.ABS, ScalarOp.MIN, ScalarOp.MAX).contains(scalarOp);
    }

    /** Whether a datatype may leave it out with nothing missing: byodt computes it otherwise (div_i32, rounded_f32). */
    public boolean isOptional() { return this == DIV_I32 || this == ROUNDED_F32 || this == ROUNDED_F32_WITH_FRACTION; }

    /** The operation a datatype computes for {@code op} on its values, or null when datatypes do not compute it. */
    public static DatatypeOp of(ScalarOp op) { return OF_SCALAR.get(op); }

    /** The kernel IR operation this one computes, for a value operation; null for conversions and the rest. */
    public ScalarOp scalarOp() { return scalarOp; }

    public static DatatypeOp parse(String suffix) {
        for (DatatypeOp op : ALL) {
            if (op.functionSuffix().equals(suffix)) return op;
        }
        throw new IllegalArgumentException("no datatype operation '" + suffix + "'");
    }

    /** In the order of {@link #values()}. */
    @Override
    public int compareTo(DatatypeOp other) { return Integer.compare(order, other.order); }

    @Override
    public String toString() { return name(); }
}
