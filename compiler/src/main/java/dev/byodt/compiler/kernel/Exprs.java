package dev.byodt.compiler.kernel;

import dev.byodt.compiler.kernel.Expr.IntConst;
import dev.byodt.compiler.kernel.Expr.Op;
import dev.byodt.compiler.kernel.Expr.RealConst;

import java.util.List;

/**
 * Factory for kernel expressions, meant to be imported statically so that operator definitions read as
 * formulas: {@code add(mul(x, real(0.5)), y)}. Integer arithmetic on constants is folded here, so index
 * computations over static shapes come out as short as they would be written by hand.
 */
public final class Exprs {
    private Exprs() {}

    // ---- constants

    /** An I64 constant (indices, extents). */
    public static Expr idx(long value) { return new IntConst(ScalarType.I64, value); }

    /** A REAL constant: a FloatImm the datatype converts at compile time. */
    public static Expr real(double value) { return new RealConst(ScalarType.REAL, value); }

    /** A constant of any type. */
    public static Expr constant(ScalarType type, double value) {
        return type.isInteger() || type == ScalarType.BOOL ? new IntConst(type, (long) value) : new RealConst(type, value);
    }

    public static Expr bool(boolean value) { return new IntConst(ScalarType.BOOL, value ? 1 : 0); }

    // ---- arithmetic

    public static Expr add(Expr a, Expr b) {
        if (isInt(a, 0)) return b;
        if (isInt(b, 0)) return a;
        return foldOrMake(ScalarOp.ADD, a, b);
    }

    public static Expr add(Expr a, long b) { return add(a, new IntConst(a.type(), b)); }

    public static Expr sub(Expr a, Expr b) {
        if (isInt(b, 0)) return a;
        return foldOrMake(ScalarOp.SUB, a, b);
    }

    public static Expr sub(Expr a, long b) { return sub(a, new IntConst(a.type(), b)); }

    public static Expr mul(Expr a, Expr b) {
        if (isInt(a, 1)) return b;
        if (isInt(b, 1)) return a;
        if (isInt(a, 0) || isInt(b, 0)) return new IntConst(a.type(), 0);
        return foldOrMake(ScalarOp.MUL, a, b);
    }

    public static Expr mul(Expr a, long b) { return mul(a, new IntConst(a.type(), b)); }

    /** Division; on integers it truncates toward zero, like C. */
    public static Expr div(Expr a, Expr b) {
        if (isInt(b, 1)) return a;
        return foldOrMake(ScalarOp.DIV, a, b);
    }

    public static Expr div(Expr a, long b) { return div(a, new IntConst(a.type(), b)); }

    public static Expr rem(Expr a, Expr b) { return foldOrMake(ScalarOp.REM, a, b); }

    public static Expr rem(Expr a, long b) { return rem(a, new IntConst(a.type(), b)); }

    public static Expr xor(Expr a, Expr b) { return foldOrMake(ScalarOp.XOR, a, b); }

    /** a >>> bits: zeros shifted in. */
    public static Expr shiftRight(Expr a, long bits) { return foldOrMake(ScalarOp.SHIFT_RIGHT, a, new IntConst(a.type(), bits)); }

    /** a >>> bits, by a count computed at run time (from 0 to 63). */
    public static Expr shiftRight(Expr a, Expr bits) { return foldOrMake(ScalarOp.SHIFT_RIGHT, a, bits); }

    public static Expr neg(Expr a) { return op(ScalarOp.NEG, a.type(), a); }

    public static Expr abs(Expr a) { return op(ScalarOp.ABS, a.type(), a); }

    public static Expr min(Expr a, Expr b) { return foldOrMake(ScalarOp.MIN, a, b); }

    public static Expr max(Expr a, Expr b) { return foldOrMake(ScalarOp.MAX, a, b); }

    public static Expr min(Expr a, long b) { return min(a, new IntConst(a.type(), b)); }

    public static Expr max(Expr a, long b) { return max(a, new IntConst(a.type(), b)); }

    // ---- real-valued functions

    public static Expr sqrt(Expr a) { return op(ScalarOp.SQRT, a.type(), a); }

    public static Expr exp(Expr a) { return op(ScalarOp.EXP, a.type(), a); }

    public static Expr log(Expr a) { return op(ScalarOp.LOG, a.type(), a); }

    public static Expr tanh(Expr a) { return op(ScalarOp.TANH, a.type(), a); }

    public static Expr sigmoid(Expr a) { return op(ScalarOp.SIGMOID, a.type(), a); }

    public static Expr erf(Expr a) { return op(ScalarOp.ERF, a.type(), a); }

    public static Expr pow(Expr a, Expr b) { return op(ScalarOp.POW, a.type(), a, b); }

    /** Any operation of one operand whose result has its type: neg, sqrt, sin, floor, ... */
    public static Expr unary(ScalarOp op, Expr a) {
        if (op.arity() != 1 || op.isComparison() || op.category() == ScalarOp.Category.STRUCTURE) {
            throw new IllegalArgumentException(op + " is not an operation of one value");
        }
        return op(op, a.type(), a);
    }

    // ---- comparisons and logic

    public static Expr lt(Expr a, Expr b) { return compare(ScalarOp.LT, a, b); }

    public static Expr le(Expr a, Expr b) { return compare(ScalarOp.LE, a, b); }

    public static Expr gt(Expr a, Expr b) { return compare(ScalarOp.GT, a, b); }

    public static Expr ge(Expr a, Expr b) { return compare(ScalarOp.GE, a, b); }

    public static Expr eq(Expr a, Expr b) { return compare(ScalarOp.EQ, a, b); }

    public static Expr ne(Expr a, Expr b) { return compare(ScalarOp.NE, a, b); }

    public static Expr lt(Expr a, long b) { return lt(a, new IntConst(a.type(), b)); }

    public static Expr ge(Expr a, long b) { return ge(a, new IntConst(a.type(), b)); }

    public static Expr and(Expr a, Expr b) {
        if (isInt(a, 1)) return b;
        if (isInt(b, 1)) return a;
        return op(ScalarOp.AND, ScalarType.BOOL, a, b);
    }

    public static Expr or(Expr a, Expr b) { return op(ScalarOp.OR, ScalarType.BOOL, a, b); }

    public static Expr not(Expr a) { return op(ScalarOp.NOT, ScalarType.BOOL, a); }

    /** condition ? ifTrue : ifFalse */
    public static Expr select(Expr condition, Expr ifTrue, Expr ifFalse) {
        requireType(condition, ScalarType.BOOL, "select condition");
        sameType(ScalarOp.SELECT, ifTrue, ifFalse);
        return new Op(ScalarOp.SELECT, ifTrue.type(), List.of(condition, ifTrue, ifFalse));
    }

    // ---- conversions and accumulation

    /** Converts to another type; a no-op when the type already matches. */
    public static Expr cast(ScalarType to, Expr a) {
        if (a.type() == to) return a;
        if (a instanceof IntConst c && to.isInteger()) return new IntConst(to, c.value());
        return new Op(ScalarOp.CAST, to, List.of(a));
    }

    /** a's bits as {@code to}: F32 and I32, or F64 and I64, either way. */
    public static Expr bitcast(ScalarType to, Expr a) {
        boolean float32 = a.type() == ScalarType.F32 && to == ScalarType.I32 || a.type() == ScalarType.I32 && to == ScalarType.F32;
        boolean float64 = a.type() == ScalarType.F64 && to == ScalarType.I64 || a.type() == ScalarType.I64 && to == ScalarType.F64;
        if (!float32 && !float64) throw new IllegalArgumentException("no bitcast from " + a.type() + " to " + to);
        return new Op(ScalarOp.BITCAST, to, List.of(a));
    }

    /** acc + a * b, accumulated as the accumulation mode says (a and b REAL, acc ACC). */
    public static Expr mac(Expr acc, Expr a, Expr b) {
        requireType(acc, ScalarType.ACC, "mac accumulator");
        return new Op(ScalarOp.MAC, ScalarType.ACC, List.of(acc, a, b));
    }

    /** acc + a * b on machine floats of one type where the product and the sum are exact ({@link ScalarOp#EXACT_MAC}). */
    public static Expr exactMac(Expr acc, Expr a, Expr b) {
        if (!acc.type().isMachineFloat() || a.type() != acc.type() || b.type() != acc.type()) {
            throw new IllegalArgumentException("exactMac takes machine floats of one type, got " + acc.type() + ", " + a.type() + ", " + b.type());
        }
        return new Op(ScalarOp.EXACT_MAC, acc.type(), List.of(acc, a, b));
    }

    /**
     * acc + a in the accumulator (acc ACC, a REAL). Like {@link #mac}, a is not cast to ACC first, so that the
     * datatype's accumulator receives the value itself.
     */
    public static Expr accumulate(Expr acc, Expr a) {
        requireType(acc, ScalarType.ACC, "accumulator");
        requireType(a, ScalarType.REAL, "accumulated value");
        return new Op(ScalarOp.ADD, ScalarType.ACC, List.of(acc, a));
    }

    /**
     * A mean: {@code value} (REAL) divided by {@code count} (I64), an element count from 1 to {@code largestCount}
     * known at compile time. Not div(value, cast(REAL, count)): a datatype of small range cannot hold the count
     * (fxp16_13 none from 4 on), so each datatype divides by a count as its lowering says (see ScalarOp).
     */
    public static Expr divideByCount(Expr value, Expr count, long largestCount) {
        requireType(value, ScalarType.REAL, "divided value");
        requireType(count, ScalarType.I64, "count");
        if (largestCount < 1 || count instanceof IntConst c && (c.value() < 1 || c.value() > largestCount)) {
            throw new IllegalArgumentException("a count from 1 to " + largestCount + ", not " + count);
        }
        return new Op(ScalarOp.DIVIDE_BY_COUNT, ScalarType.REAL, List.of(value, count, idx(largestCount)));
    }

    /** {@link #divideByCount(Expr, Expr, long)} by a count known at compile time. */
    public static Expr divideByCount(Expr value, long count) { return divideByCount(value, idx(count), count); }

    /** Row-major flat offset of the given indices in a tensor of this shape. */
    public static Expr flatIndex(long[] shape, Expr... indices) {
        if (indices.length != shape.length) {
            throw new IllegalArgumentException(indices.length + " indices for a rank-" + shape.length + " shape");
        }
        Expr offset = idx(0);
        long stride = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            if (shape[d] != 1) offset = add(offset, mul(indices[d], stride));
            stride *= shape[d];
        }
        return offset;
    }

    /** The indices of the element at flat index {@code i} of a row-major tensor of this shape: {@link #flatIndex}'s inverse. */
    public static Expr[] unflatten(long[] shape, Expr i) {
        Expr[] at = new Expr[shape.length];
        long stride = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            Expr quotient = div(i, stride);
            at[d] = d == 0 ? quotient : rem(quotient, shape[d]);
            stride *= shape[d];
        }
        return at;
    }

    // ---- plumbing

    private static Expr op(ScalarOp op, ScalarType type, Expr... args) {
        return new Op(op, type, List.of(args));
    }

    private static Expr compare(ScalarOp op, Expr a, Expr b) {
        sameType(op, a, b);
        return op(op, ScalarType.BOOL, a, b);
    }

    private static Expr foldOrMake(ScalarOp op, Expr a, Expr b) {
        sameType(op, a, b);
        if (a instanceof IntConst x && b instanceof IntConst y && a.type().isInteger()) {
            long v = op.onIntegers(x.value(), y.value());
            return new IntConst(a.type(), v);
        }
        return op(op, a.type(), a, b);
    }

    private static boolean isInt(Expr e, long v) {
        return e instanceof IntConst c && c.value() == v;
    }

    private static void sameType(ScalarOp op, Expr a, Expr b) {
        if (a.type() != b.type()) {
            throw new IllegalArgumentException(op + " of " + a.type() + " and " + b.type());
        }
    }

    private static void requireType(Expr e, ScalarType type, String what) {
        if (e.type() != type) throw new IllegalArgumentException(what + " must be " + type + ", not " + e.type());
    }
}
