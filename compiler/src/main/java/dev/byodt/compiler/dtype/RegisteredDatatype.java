package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A registered datatype instance as code generation needs it, float32 included: each scalar operation on
 * its values becomes the registered lowering for the target (a library call or inline code), and reductions
 * accumulate through the {@link Accumulator} of the accumulation mode. Values are the storage integers,
 * whose constants and weights are converted at compile time by the library's own from_f64; the reference
 * datatype's values are float32 itself ({@link DatatypeDefinition#isReference}). An operation without a
 * lowering is logged (and computed in the fallback datatype when there is one) so that one error can list
 * every gap.
 */
public final class RegisteredDatatype implements Datatype {
    private final DatatypeInstance instance;
    private final boolean valuesAreFloat32;
    private final Accumulator accumulator;
    private final LoweringTarget target;
    private final Optional<DatatypeInstance> fallback;
    private final LoweringLog log;
    private final CompileTimeConversion.Factory conversions;
    private final CountDivision countDivision = new CountDivision(this);
    private CompileTimeConversion conversion;
    private boolean conversionMissing;
    private OptionalLong lowest;

    /**
     * @param fallback the datatype (float32, with --fallback float32) computing the operations this one has no
     *                 lowering for, between to_f32 and from_f32
     * @param conversions gives the compile-time conversions running library functions of an instance
     */
    public RegisteredDatatype(DatatypeInstance instance, AccumulationMode accumulation, LoweringTarget target,
                              Optional<DatatypeInstance> fallback, LoweringLog log, CompileTimeConversion.Factory conversions) {
        instance.requireAccumulation(accumulation);
        this.instance = instance;
        this.valuesAreFloat32 = instance.definition().isReference();
        this.target = target;
        this.fallback = fallback;
        this.log = log;
        this.conversions = conversions;
        this.accumulator = accumulation.accumulator(this);
    }

    public DatatypeInstance instance() { return instance; }

    /** Whether the datatype's values are machine float32s (the reference datatype's), not a library's storage. */
    boolean valuesAreFloat32() { return valuesAreFloat32; }

    @Override
    public String name() { return instance.toString(); }

    @Override
    public ScalarType storageType() { return instance.storage(); }

    @Override
    public ScalarType accumulatorType() { return accumulator.type(); }

    @Override
    public Optional<NativeLibrary> library() { return instance.library(); }

    @Override
    public Optional<NativeLibrary> accumulationLibrary() { return accumulator.library(); }

    // ---- constants

    /** -inf, where max-pooling starts, is the datatype's lowest value when it registered one (register_min_func). */
    @Override
    public Expr constant(double value) {
        if (value == Double.NEGATIVE_INFINITY && instance.lowering(DatatypeOp.LOWEST, target).isPresent()) {
            return apply(DatatypeOp.LOWEST, List.of());
        }
        if (valuesAreFloat32) return new Expr.RealConst(ScalarType.F32, (float) value);
        CompileTimeConversion c = conversion();
        return new Expr.IntConst(storageType(), c == null ? 0 : signExtended(c.convert(value)));
    }

    /** An accumulator holding the datatype's value nearest {@code value}. */
    @Override
    public Expr accumulatorConstant(double value) {
        return value == 0 ? accumulator.zero() : accumulator.holding(constant(value));
    }

    /**
     * Weights and constant tensors, converted by from_f64; a -inf among them (an attention mask's, which a
     * Where selects or an Add adds) becomes the datatype's lowest value, as -inf in a kernel does, rather than
     * what from_f64 makes of it (a posit's NaR, which would spread through the Softmax of every masked row).
     */
    @Override
    public MemorySegment convertWeights(MemorySegment float32Values, String tensor) {
        if (valuesAreFloat32) return float32Values;
        CompileTimeConversion c = conversion();
        long count = float32Values.byteSize() / Float.BYTES;
        if (c == null) return MemorySegment.ofArray(new byte[(int) (count * storageBytes())]);
        MemorySegment converted = c.convertAll(float32Values, tensor);
        for (long i = 0; i < count; i++) {
            if (float32Values.getAtIndex(ValueLayout.JAVA_FLOAT, i) == Float.NEGATIVE_INFINITY) {
                OptionalLong lowest = lowestBits();
                if (lowest.isEmpty()) break;
                storeBits(converted, i, lowest.getAsLong());
            }
        }
        return converted;
    }

    /**
     * Whether add and mul are the float32 ones rounded once ({@link DatatypeDefinition.Builder#arithmeticInFloat32})
     * and the code is for the host, whose float32 unit makes that the fast way (a RISC-V core may have none).
     */
    boolean roundsArithmeticFromFloat32() {
        return target == LoweringTarget.HOST && instance.definition().arithmeticInFloat32(instance);
    }

    @Override
    public boolean multipliesDecodedOperands() { return !valuesAreFloat32 && accumulator instanceof DecodedProducts; }

    /** Declared by the definition ({@link DatatypeDefinition.Builder#exactSumsInDouble}); host code only, where doubles are hardware. */
    @Override
    public OptionalInt exactSumSignificandBits() {
        if (target != LoweringTarget.HOST || !(accumulator instanceof ExactAccumulator)) return OptionalInt.empty();
        return instance.definition().exactSumSignificandBits(instance);
    }

    /** Declared by the definition ({@link DatatypeDefinition.Builder#fractionScales}) where the library lowers the rounding. */
    @Override
    public Optional<RoundingWithinScales> roundingWithinScales() {
        if (!(accumulator instanceof RoundedFloat32Accumulator) || !lowers(DatatypeOp.ROUNDED_F32_WITH_FRACTION)) return Optional.empty();
        return instance.definition().fractionScales(instance)
            .map(scales -> new RoundingWithinScales(scales, x -> apply(DatatypeOp.ROUNDED_F32_WITH_FRACTION, List.of(x))));
    }

    /** Each distinct storage value is decoded once (a 16-bit datatype has at most 65,536 of them). */
    @Override
    public Optional<MemorySegment> decodedWeights(MemorySegment float32Values, String tensor) {
        CompileTimeConversion c = conversion();
        if (c == null || c.valueOf(0).isEmpty()) return Optional.empty();
        MemorySegment storage = convertWeights(float32Values, tensor);
        long count = float32Values.byteSize() / Float.BYTES;
        MemorySegment decoded = Arena.ofAuto().allocate(Math.max(1, count * Float.BYTES), 64).asSlice(0, count * Float.BYTES);
        Map<Long, Float> values = new HashMap<>();
        for (long i = 0; i < count; i++) {
            decoded.setAtIndex(ValueLayout.JAVA_FLOAT, i, values.computeIfAbsent(bitsAt(storage, i),
                bits -> c.valueOf(bits).orElseThrow().floatValue()));
        }
        return Optional.of(decoded);
    }

    /** The storage bits of the registered lowest value, when it is a constant or a library function of no argument. */
    private OptionalLong lowestBits() {
        if (lowest == null) {
            Expr lowered = instance.lowering(DatatypeOp.LOWEST, target).isPresent() ? lowering(DatatypeOp.LOWEST, List.of()) : null;
            lowest = switch (lowered) {
                case Expr.IntConst bits -> OptionalLong.of(bits.value());
                case Expr.Call call when call.args().isEmpty() -> constantBits(conversions.of(instance, call.function(), Optional.empty()));
                case null, default -> OptionalLong.empty();
            };
        }
        return lowest;
    }

    private static OptionalLong constantBits(CompileTimeConversion function) {
        return function.isConstant() ? OptionalLong.of(function.convert(0)) : OptionalLong.empty();
    }

    private void storeBits(MemorySegment storage, long index, long bits) {
        switch (storageBytes()) {
            case 1 -> storage.set(ValueLayout.JAVA_BYTE, index, (byte) bits);
            case 2 -> storage.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, index, (short) bits);
            default -> storage.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, index, (int) bits);
        }
    }

    /** The zero-extended storage bits of element {@code index}. */
    private long bitsAt(MemorySegment storage, long index) {
        return switch (storageBytes()) {
            case 1 -> Byte.toUnsignedLong(storage.get(ValueLayout.JAVA_BYTE, index));
            case 2 -> Short.toUnsignedLong(storage.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, index));
            default -> Integer.toUnsignedLong(storage.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, index));
        };
    }

    private CompileTimeConversion conversion() {
        if (conversion == null && !conversionMissing) {
            Expr lowered = lowering(DatatypeOp.FROM_F64, List.of(new Expr.RealConst(ScalarType.F64, 0)));
            if (lowered instanceof Expr.Call call && call.args().size() == 1) {
                log.lowered(name(), DatatypeOp.FROM_F64.functionSuffix(), lowered);
                // to_f32 reads constants back (CountDivision) where it is a call of float f(T), as libraries have it.
                Expr back = lowering(DatatypeOp.TO_F32, List.of(new Expr.IntConst(storageType(), 0)));
                Optional<String> toF32 = back instanceof Expr.Call c && c.args().size() == 1 && c.type() == ScalarType.F32
                    ? Optional.of(c.function()) : Optional.empty();
                conversion = conversions.of(instance, call.function(), toF32);
                if (conversion.isConstant()) {
                    throw new ByodtException(call.function() + " takes no argument, but from_f64 needs one (T f(double))");
                }
            } else {
                conversionMissing = true;
                log.missing(name(), lowered == null ? "from_f64 (constants and weights)"
                    : "from_f64 as a library call T f(double) (constants and weights are converted at compile time)");
            }
        }
        return conversion;
    }

    /**
     * Whether the datatype holds the integer {@code n} exactly: its constant n read back at compile time is n.
     * A datatype whose constants cannot be read back (no to_f32 function) is taken to hold it, as every mean
     * took it to before {@link CountDivision}.
     */
    boolean holdsExactly(long n) {
        if (valuesAreFloat32) return (float) n == n;
        CompileTimeConversion c = conversion();
        if (c == null) return true;
        return c.valueOf(c.convert(n)).map(value -> value == n).orElse(true);
    }

    // ---- operations

    @Override
    public Expr lower(Expr.Op op, List<Expr> args) {
        return switch (op.op()) {
            case SELECT -> new Expr.Op(ScalarOp.SELECT, args.get(1).type(), args);
            case CAST -> cast(op.arg(0).type(), op.type(), args.getFirst());
            case MAC -> multiplyAdd(op, args);
            case DIVIDE_BY_COUNT -> countDivision.lower(args.get(0), args.get(1), ((Expr.IntConst) args.get(2)).value());
            default -> {
                boolean onAccumulator = op.type() == ScalarType.ACC || op.args().stream().anyMatch(a -> a.type() == ScalarType.ACC);
                if (!onAccumulator) yield valueOp(op.op(), args);
                // acc + value, what reductions do (Exprs.accumulate): the value goes to the accumulator as it is.
                if (op.op() == ScalarOp.ADD && op.type() == ScalarType.ACC && op.arg(1).type() == ScalarType.REAL) {
                    yield accumulator.add(args.get(0), args.get(1));
                }
                log.missing(name(), op.op().name().toLowerCase(Locale.ROOT) + " on an accumulator");
                yield placeholder(accumulatorType());
            }
        };
    }

    /**
     * A mac, whose operands are values of the datatype or, where {@link #multipliesDecodedOperands}, F32 values
     * already decoded ahead of the loops (the op's abstract types tell which).
     */
    private Expr multiplyAdd(Expr.Op mac, List<Expr> args) {
        boolean decoded = mac.arg(1).type() == ScalarType.F32 || mac.arg(2).type() == ScalarType.F32;
        if (decoded && multipliesDecodedOperands() && accumulator instanceof DecodedProducts products) {
            return products.multiplyAddDecoded(args.get(0), decodedOperand(mac.arg(1), args.get(1)),
                decodedOperand(mac.arg(2), args.get(2)));
        }
        return accumulator.multiplyAdd(args.get(0), args.get(1), args.get(2));
    }

    private Expr decodedOperand(Expr operand, Expr lowered) { return operand.type() == ScalarType.F32 ? lowered : toF32(lowered); }

    Expr valueOp(ScalarOp op, List<Expr> args) {
        DatatypeOp d = DatatypeOp.of(op);
        if (d == null) {
            log.missing(name(), op.name().toLowerCase(Locale.ROOT));
            return placeholder(op == ScalarOp.AND || op == ScalarOp.OR || op == ScalarOp.NOT ? ScalarType.BOOL : storageType());
        }
        return apply(d, args);
    }

    private Expr toF32(Expr value) { return apply(DatatypeOp.TO_F32, List.of(value)); }

    /** A conversion; {@code from} and {@code to} are the abstract or machine types of the kernel IR. */
    Expr cast(ScalarType from, ScalarType to, Expr value) {
        if (from == to) return value;
        if (from == ScalarType.ACC) {
            Expr real = accumulator.round(value);
            return to == ScalarType.REAL ? real : cast(ScalarType.REAL, to, real);
        }
        if (to == ScalarType.ACC) return accumulator.holding(from == ScalarType.REAL ? value : cast(from, ScalarType.REAL, value));
        // float32's values are machine floats: one machine conversion, where the other datatypes go through
        // their library's to_i32/from_i32 (so an int64 converts directly, not through 32 bits).
        if (valuesAreFloat32) return new Expr.Op(ScalarOp.CAST, to == ScalarType.REAL ? ScalarType.F32 : to, List.of(value));
        if (from == ScalarType.REAL) {
            return switch (to) {
                case F32 -> toF32(value);
                case F64 -> new Expr.Op(ScalarOp.CAST, ScalarType.F64, List.of(toF32(value)));
                case BOOL -> apply(DatatypeOp.of(ScalarOp.NE), List.of(value, constant(0)));
                case I32 -> apply(DatatypeOp.TO_I32, List.of(value));
                default -> new Expr.Op(ScalarOp.CAST, to, List.of(apply(DatatypeOp.TO_I32, List.of(value))));
            };
        }
        return switch (from) {
            case F32 -> apply(DatatypeOp.FROM_F32, List.of(value));
            // Rounded once where the library converts doubles (an exact sum in double, DoubleSums), else through float32.
            case F64 -> instance.lowering(DatatypeOp.FROM_F64, target).isPresent() ? apply(DatatypeOp.FROM_F64, List.of(value))
                : apply(DatatypeOp.FROM_F32, List.of(new Expr.Op(ScalarOp.CAST, ScalarType.F32, List.of(value))));
            case BOOL -> new Expr.Op(ScalarOp.SELECT, storageType(), List.of(value, constant(1), constant(0)));
            case I32 -> apply(DatatypeOp.FROM_I32, List.of(value));
            default -> apply(DatatypeOp.FROM_I32, List.of(new Expr.Op(ScalarOp.CAST, ScalarType.I32, List.of(value))));
        };
    }

    /**
     * The registered lowering of {@code op}; without one, the fallback datatype's (between to_f32 and
     * from_f32) when there is one, else a placeholder of the right type and an entry in the log.
     */
    Expr apply(DatatypeOp op, List<Expr> args) {
        Expr lowered = lowering(op, args);
        if (lowered != null) {
            log.lowered(name(), op.functionSuffix(), lowered);
            return lowered;
        }
        if (fallback.isPresent() && op.scalarOp() != null) {
            Expr computed = inFallback(fallback.get(), op, args);
            if (computed != null) {
                log.fellBack(name(), op.functionSuffix());
                return computed;
            }
        }
        log.missing(name(), op.functionSuffix());
        return placeholder(resultType(op, args));
    }

    /** Whether the datatype has its own lowering of {@code op} on the target compiled for. */
    boolean lowers(DatatypeOp op) { return instance.lowering(op, target).isPresent(); }

    private Expr lowering(DatatypeOp op, List<Expr> args) { return lowering(instance, op, args); }

    private Expr lowering(DatatypeInstance of, DatatypeOp op, List<Expr> args) {
        return of.lowering(op, target).map(f -> f.lower(new LoweringSite(op, of, args))).orElse(null);
    }

    /** {@code op} computed by {@code other} on the operands converted to float32, or null if it has no lowering. */
    private Expr inFallback(DatatypeInstance other, DatatypeOp op, List<Expr> args) {
        List<Expr> floats = new ArrayList<>();
        for (Expr a : args) floats.add(toF32(a));
        Expr computed = lowering(other, op, floats);
        if (computed == null || op.isComparison()) return computed;
        return apply(DatatypeOp.FROM_F32, List.of(computed));
    }

    private ScalarType resultType(DatatypeOp op, List<Expr> args) {
        if (op.isComparison()) return ScalarType.BOOL;
        return switch (op.result()) {
            case VALUE -> storageType();
            case FLOAT -> ScalarType.F32;
            case DOUBLE -> ScalarType.F64;
            case INT32 -> ScalarType.I32;
            case ACCUMULATOR, NOTHING -> args.getFirst().type();
        };
    }

    /** Stands in for a missing lowering so that lowering can go on and find every other gap. */
    private static Expr placeholder(ScalarType type) {
        return type.isMachineFloat() ? new Expr.RealConst(type, 0) : new Expr.IntConst(type, 0);
    }

    private int storageBytes() {
        return switch (storageType()) {
            case I8 -> 1;
            case I16 -> 2;
            default -> 4;
        };
    }

    /** The storage bits as the IntConst of a signed machine type holds them. */
    private long signExtended(long bits) {
        int width = storageBytes() * 8;
        return width == 64 ? bits : (bits << (64 - width)) >> (64 - width);
    }
}
