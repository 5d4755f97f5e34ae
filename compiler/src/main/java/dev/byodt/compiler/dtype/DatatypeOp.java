package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.ScalarOp;

import java.util.List;
import java.util.Locale;

/**
 * The operations a datatype lowers: the scalar operations of the kernel IR on its values, plus the
 * conversions, constants and accumulator functions that connect it to the rest of a program. This is the
 * whole contract between a datatype and byodt (operators never see it). Each carries the C signature its
 * library function has when it lowers to a call, with T the storage type; {@link #functionSuffix()} is the
 * name the built-in libraries give it after their prefix ({@code posit16es2_add}).
 */
public enum DatatypeOp {
    ADD(Kind.VALUE, Kind.VALUE, Kind.VALUE), SUB(Kind.VALUE, Kind.VALUE, Kind.VALUE),
    MUL(Kind.VALUE, Kind.VALUE, Kind.VALUE), DIV(Kind.VALUE, Kind.VALUE, Kind.VALUE),
    MIN(Kind.VALUE, Kind.VALUE, Kind.VALUE), MAX(Kind.VALUE, Kind.VALUE, Kind.VALUE),
    POW(Kind.VALUE, Kind.VALUE, Kind.VALUE),
    NEG(Kind.VALUE, Kind.VALUE), ABS(Kind.VALUE, Kind.VALUE), SQRT(Kind.VALUE, Kind.VALUE),
    EXP(Kind.VALUE, Kind.VALUE), LOG(Kind.VALUE, Kind.VALUE), TANH(Kind.VALUE, Kind.VALUE),
    SIGMOID(Kind.VALUE, Kind.VALUE), ERF(Kind.VALUE, Kind.VALUE),
    /** Comparisons: the C function returns int32_t 0 or 1. */
    LT(Kind.INT32, Kind.VALUE, Kind.VALUE), LE(Kind.INT32, Kind.VALUE, Kind.VALUE),
    GT(Kind.INT32, Kind.VALUE, Kind.VALUE), GE(Kind.INT32, Kind.VALUE, Kind.VALUE),
    EQ(Kind.INT32, Kind.VALUE, Kind.VALUE), NE(Kind.INT32, Kind.VALUE, Kind.VALUE),
    FROM_F32(Kind.VALUE, Kind.FLOAT), TO_F32(Kind.FLOAT, Kind.VALUE),
    FROM_I32(Kind.VALUE, Kind.INT32), TO_I32(Kind.INT32, Kind.VALUE),
    /**
     * Constants (TVM's FloatImm) and weights: evaluated at compile time, by calling the library on the host,
     * never in the generated code. Its lowering must be a call of {@code T f(double)}.
     */
    FROM_F64(Kind.VALUE, Kind.DOUBLE),
    /** The most negative value, where max-pooling starts (TVM's register_min_func). */
    LOWEST(Kind.VALUE),
    /** Exact accumulation: {@code void acc_mac(uint64_t *acc, T a, T b)}, acc += a*b in place. */
    ACC_MAC(Kind.NOTHING, Kind.ACCUMULATOR, Kind.VALUE, Kind.VALUE),
    /** {@code void acc_add(uint64_t *acc, T a)}, acc += a in place. */
    ACC_ADD(Kind.NOTHING, Kind.ACCUMULATOR, Kind.VALUE),
    /** {@code T acc_round(const uint64_t *acc)}: the accumulator rounded once. */
    ACC_ROUND(Kind.VALUE, Kind.ACCUMULATOR);

    /** What a parameter or result of the library function is. */
    public enum Kind { VALUE, FLOAT, DOUBLE, INT32, ACCUMULATOR, NOTHING }

    private final Kind result;
    private final List<Kind> params;

    DatatypeOp(Kind result, Kind... params) {
        this.result = result;
        this.params = List.of(params);
    }

    public Kind result() { return result; }

    public List<Kind> params() { return params; }

    public int arity() { return params.size(); }

    /** add, from_f32, acc_mac, ...: the library function's name after its prefix, and what users read. */
    public String functionSuffix() { return name().toLowerCase(Locale.ROOT); }

    public boolean isComparison() { return result == Kind.INT32 && params.equals(List.of(Kind.VALUE, Kind.VALUE)); }

    public boolean isAccumulatorOp() { return this == ACC_MAC || this == ACC_ADD || this == ACC_ROUND; }

    /** The operations every program on a datatype may reach through arithmetic on its values. */
    public static DatatypeOp of(ScalarOp op) {
        return switch (op) {
            case ADD -> ADD;
            case SUB -> SUB;
            case MUL -> MUL;
            case DIV -> DIV;
            case MIN -> MIN;
            case MAX -> MAX;
            case POW -> POW;
            case NEG -> NEG;
            case ABS -> ABS;
            case SQRT -> SQRT;
            case EXP -> EXP;
            case LOG -> LOG;
            case TANH -> TANH;
            case SIGMOID -> SIGMOID;
            case ERF -> ERF;
            case LT -> LT;
            case LE -> LE;
            case GT -> GT;
            case GE -> GE;
            case EQ -> EQ;
            case NE -> NE;
            default -> null;
        };
    }

    /** The kernel IR operation this one computes, for a value operation; null for conversions and the rest. */
    public ScalarOp scalarOp() {
        for (ScalarOp op : ScalarOp.values()) {
            if (of(op) == this) return op;
        }
        return null;
    }

    public static DatatypeOp parse(String suffix) {
        for (DatatypeOp op : values()) {
            if (op.functionSuffix().equals(suffix)) return op;
        }
        throw new IllegalArgumentException("no datatype operation '" + suffix + "'");
    }
}
