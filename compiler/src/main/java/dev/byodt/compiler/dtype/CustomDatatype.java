package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * A registered datatype instance as code generation needs it: values are its storage integers, and each
 * scalar operation on them becomes the registered lowering for the target (a library call or inline code).
 * Reductions accumulate as the accumulation mode says; constants and weights are converted at compile time
 * by the library's own from_f64. An operation without a lowering is logged (and computed in float32 when
 * falling back is allowed) so that one error can list every gap.
 */
public final class CustomDatatype implements Datatype {
    private final DatatypeInstance instance;
    private final AccumulationMode accumulation;
    private final LoweringTarget target;
    private final boolean fallbackToFloat32;
    private final LoweringLog log;
    private final BiFunction<DatatypeInstance, String, CompileTimeConversion> conversions;
    private final Float32 float32 = new Float32();
    private CompileTimeConversion conversion;
    private boolean conversionMissing;

    /**
     * @param conversions gives the compile-time conversion running library function {@code name} of an instance
     */
    public CustomDatatype(DatatypeInstance instance, AccumulationMode accumulation, LoweringTarget target,
                          boolean fallbackToFloat32, LoweringLog log,
                          BiFunction<DatatypeInstance, String, CompileTimeConversion> conversions) {
        if (!instance.definition().accumulationModes().contains(accumulation)) {
            throw new ByodtException("datatype " + instance + " does not support --accumulate " + accumulation.optionName()
                + " (it supports " + instance.definition().accumulationModes().stream().map(AccumulationMode::optionName).toList() + ")");
        }
        this.instance = instance;
        this.accumulation = accumulation;
        this.target = target;
        this.fallbackToFloat32 = fallbackToFloat32;
        this.log = log;
        this.conversions = conversions;
    }

    public DatatypeInstance instance() { return instance; }

    @Override
    public String name() { return instance.toString(); }

    @Override
    public ScalarType storageType() { return instance.storage(); }

    @Override
    public ScalarType accumulatorType() {
        return switch (accumulation) {
            case DTYPE -> storageType();
            case FLOAT32 -> ScalarType.F32;
            case EXACT -> instance.exactAccumulator().orElseThrow();
        };
    }

    @Override
    public Optional<NativeLibrary> library() { return instance.library(); }

    // ---- constants

    /** -inf, where max-pooling starts, is the datatype's lowest value when it registered one (register_min_func). */
    @Override
    public Expr constant(double value) {
        if (value == Double.NEGATIVE_INFINITY && instance.lowering(DatatypeOp.LOWEST, target).isPresent()) {
            return apply(DatatypeOp.LOWEST, List.of());
        }
        CompileTimeConversion c = conversion();
        return new Expr.IntConst(storageType(), c == null ? 0 : signExtended(c.convert(value)));
    }

    @Override
    public Expr accumulatorConstant(double value) {
        return switch (accumulation) {
            case DTYPE -> constant(value);
            case FLOAT32 -> new Expr.RealConst(ScalarType.F32, value);
            case EXACT -> value == 0 ? new Expr.IntConst(accumulatorType(), 0) : toAccumulator(constant(value));
        };
    }

    @Override
    public MemorySegment convertWeights(MemorySegment float32Values) {
        CompileTimeConversion c = conversion();
        long count = float32Values.byteSize() / Float.BYTES;
        return c == null ? MemorySegment.ofArray(new byte[(int) (count * storageBytes())]) : c.convertAll(float32Values);
    }

    private CompileTimeConversion conversion() {
        if (conversion == null && !conversionMissing) {
            Expr lowered = lowering(DatatypeOp.FROM_F64, List.of(new Expr.RealConst(ScalarType.F64, 0)));
            if (lowered instanceof Expr.Call call && call.args().size() == 1) {
                log.lowered(name(), DatatypeOp.FROM_F64.functionSuffix(), lowered);
                conversion = conversions.apply(instance, call.function());
            } else {
                conversionMissing = true;
                log.missing(name(), lowered == null ? "from_f64 (constants and weights)"
                    : "from_f64 as a library call T f(double) (constants and weights are converted at compile time)");
            }
        }
        return conversion;
    }

    // ---- operations

    @Override
    public Expr lower(Expr.Op op, List<Expr> args) {
        return switch (op.op()) {
            case SELECT -> new Expr.Op(ScalarOp.SELECT, args.get(1).type(), args);
            case CAST -> cast(op.arg(0).type(), op.type(), args.getFirst());
            case MAC -> mac(args);
            default -> {
                boolean onAccumulator = op.type() == ScalarType.ACC || op.args().stream().anyMatch(a -> a.type() == ScalarType.ACC);
                yield onAccumulator ? accumulatorOp(op, args) : valueOp(op.op(), args);
            }
        };
    }

    private Expr valueOp(ScalarOp op, List<Expr> args) {
        DatatypeOp d = DatatypeOp.of(op);
        if (d == null) {
            log.missing(name(), op.name().toLowerCase(java.util.Locale.ROOT));
            return placeholder(op == ScalarOp.AND || op == ScalarOp.OR || op == ScalarOp.NOT ? ScalarType.BOOL : storageType());
        }
        return apply(d, args);
    }

    /** An operation whose operand or result is an accumulator (other than mac and casts): sums of accumulators. */
    private Expr accumulatorOp(Expr.Op op, List<Expr> args) {
        return switch (accumulation) {
            case DTYPE -> valueOp(op.op(), args);
            case FLOAT32 -> float32.lower(new Expr.Op(op.op(), op.type() == ScalarType.ACC ? ScalarType.F32 : op.type(), args), args);
            case EXACT -> {
                // acc + value (what reductions do): the library adds the value in place. Adding the value's own
                // accumulator as an integer would not do: an accumulator may keep flags beside its number
                // (minifloat.c keeps NaN and infinities in its top bits), which integer carries would corrupt.
                if (op.op() == ScalarOp.ADD && op.arg(1) instanceof Expr.Op c && c.op() == ScalarOp.CAST
                        && args.get(1) instanceof Expr.Call converted) {
                    yield apply(DatatypeOp.ACC_ADD, List.of(args.get(0), converted.args().get(1)));
                }
                // Sums of two accumulators: two's-complement fixed point, so the integers' sum.
                if (op.op() == ScalarOp.ADD) yield new Expr.Op(ScalarOp.ADD, accumulatorType(), args);
                log.missing(name(), op.op().name().toLowerCase(java.util.Locale.ROOT) + " on an exact accumulator");
                yield placeholder(accumulatorType());
            }
        };
    }

    private Expr mac(List<Expr> args) {
        Expr acc = args.get(0), a = args.get(1), b = args.get(2);
        return switch (accumulation) {
            case DTYPE -> apply(DatatypeOp.of(ScalarOp.ADD), List.of(acc, apply(DatatypeOp.of(ScalarOp.MUL), List.of(a, b))));
            case FLOAT32 -> new Expr.Op(ScalarOp.ADD, ScalarType.F32,
                List.of(acc, new Expr.Op(ScalarOp.MUL, ScalarType.F32, List.of(toF32(a), toF32(b)))));
            case EXACT -> apply(DatatypeOp.ACC_MAC, List.of(acc, a, b));
        };
    }

    private Expr toAccumulator(Expr value) {
        return switch (accumulation) {
            case DTYPE -> value;
            case FLOAT32 -> toF32(value);
            case EXACT -> apply(DatatypeOp.ACC_ADD, List.of(new Expr.IntConst(accumulatorType(), 0), value));
        };
    }

    private Expr fromAccumulator(Expr acc) {
        return switch (accumulation) {
            case DTYPE -> acc;
            case FLOAT32 -> apply(DatatypeOp.FROM_F32, List.of(acc));
            case EXACT -> apply(DatatypeOp.ACC_ROUND, List.of(acc));
        };
    }

    private Expr toF32(Expr value) { return apply(DatatypeOp.TO_F32, List.of(value)); }

    /** A conversion; {@code from} and {@code to} are the abstract or machine types of the kernel IR. */
    private Expr cast(ScalarType from, ScalarType to, Expr value) {
        if (from == to) return value;
        if (from == ScalarType.ACC) {
            Expr real = fromAccumulator(value);
            return to == ScalarType.REAL ? real : cast(ScalarType.REAL, to, real);
        }
        if (to == ScalarType.ACC) return toAccumulator(from == ScalarType.REAL ? value : cast(from, ScalarType.REAL, value));
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
            case F64 -> apply(DatatypeOp.FROM_F32, List.of(new Expr.Op(ScalarOp.CAST, ScalarType.F32, List.of(value))));
            case BOOL -> new Expr.Op(ScalarOp.SELECT, storageType(), List.of(value, constant(1), constant(0)));
            case I32 -> apply(DatatypeOp.FROM_I32, List.of(value));
            default -> apply(DatatypeOp.FROM_I32, List.of(new Expr.Op(ScalarOp.CAST, ScalarType.I32, List.of(value))));
        };
    }

    /**
     * The registered lowering of {@code op}; without one, float32's (between to_f32 and from_f32) when falling
     * back is allowed, else a placeholder of the right type and an entry in the log.
     */
    private Expr apply(DatatypeOp op, List<Expr> args) {
        Expr lowered = lowering(op, args);
        if (lowered != null) {
            log.lowered(name(), op.functionSuffix(), lowered);
            return lowered;
        }
        if (fallbackToFloat32 && op.scalarOp() != null) {
            log.fellBack(name(), op.functionSuffix());
            return inFloat32(op, args);
        }
        log.missing(name(), op.functionSuffix());
        return placeholder(resultType(op, args));
    }

    private Expr lowering(DatatypeOp op, List<Expr> args) {
        return instance.lowering(op, target).map(f -> f.lower(new LoweringSite(op, instance, args))).orElse(null);
    }

    private Expr inFloat32(DatatypeOp op, List<Expr> args) {
        List<Expr> floats = new ArrayList<>();
        for (Expr a : args) floats.add(toF32(a));
        ScalarType result = op.isComparison() ? ScalarType.BOOL : ScalarType.F32;
        Expr computed = float32.lower(new Expr.Op(op.scalarOp(), result, floats), floats);
        return op.isComparison() ? computed : apply(DatatypeOp.FROM_F32, List.of(computed));
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
