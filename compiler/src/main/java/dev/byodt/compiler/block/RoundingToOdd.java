package dev.byodt.compiler.block;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * Doubles rounded to odd: of an exact value Q, Q itself where it is a double, else the one of its two neighbouring
 * doubles whose last significand bit is 1. Such a double RO(Q) is on the same side as Q of every number of at most 52
 * significant bits, and equal to one only where Q is (no double lies strictly between Q and RO(Q), and an odd
 * 53-bit significand has no shorter form). So RO(Q) rounds to any precision of up to 51 bits as Q does (Boldo and
 * Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008), and
 * every comparison of it with such a point decides as Q's.
 */
final class RoundingToOdd {
    private static final double TWO_52 = 0x1p52;
    /** Veltkamp's splitter for doubles: 2^27 + 1 cuts a double into two halves of at most 26 bits. */
    private static final double SPLITTER = 0x1p27 + 1;

    private RoundingToOdd() {}

    /**
     * RO(Q) from s, Q rounded to a double (to nearest), and {@code error}, whose sign is that of Q - s (F64): s where
     * the error is 0 or s is odd, else the neighbour of s on the error's side. The last bit is read off |s| / ulp(s),
     * ulp from {@link ActivationQuantizer#powerOfTwoBelow}; below a power of two the doubles are twice as dense.
     */
    static Expr towardExact(KernelBuilder kb, Expr s, Expr error) {
        Local sum = kb.local("rounded", s), e = kb.local("error", error);
        Expr magnitude = abs(kb.get(sum));
        Local ulp = kb.local("ulp", mul(ActivationQuantizer.powerOfTwoBelow(select(gt(magnitude, f64(0)), magnitude, f64(1))), f64(Math.scalb(1.0, -52))));
        Local units = kb.local("units", div(magnitude, kb.get(ulp)));
        Expr half = mul(kb.get(units), f64(0.5));
        Expr even = eq(sub(add(half, f64(TWO_52)), f64(TWO_52)), half);
        Expr towardZero = or(and(lt(kb.get(e), f64(0)), gt(kb.get(sum), f64(0))), and(gt(kb.get(e), f64(0)), lt(kb.get(sum), f64(0))));
        Expr step = select(and(towardZero, eq(kb.get(units), f64(TWO_52))), mul(kb.get(ulp), f64(0.5)), kb.get(ulp));
        Local odd = kb.local("odd", select(and(ne(kb.get(e), f64(0)), even), select(towardZero, sub(magnitude, step), add(magnitude, step)), magnitude));
        // A local, not the expression: callers read the quotient several times, and each read of an expression
        // copies its whole tree (mobilenet_v2 in NVFP4 took twice as long to compile that way).
        Local result = kb.local("rounded.to.odd", select(lt(kb.get(sum), f64(0)), neg(kb.get(odd)), kb.get(odd)));
        return kb.get(result);
    }

    /**
     * RO(x / y) of doubles x >= 0 and y > 0 (F64) whose quotient and the products below stay within double's normal
     * range: q = x / y rounded to nearest, and the sign of x - q y, exact: q y = h + l with h its rounded product and l
     * the product's error ({@link #productError}); x - h is exact (Sterbenz: h is within a factor of two of x), and the rounded difference of it and l
     * has the sign of the exact one.
     */
    static Expr quotient(KernelBuilder kb, Expr x, Expr y) {
        Local dividend = kb.local("dividend", x), divisor = kb.local("divisor", y);
        Local q = kb.local("quotient", div(kb.get(dividend), kb.get(divisor)));
        Local h = kb.local("product", mul(kb.get(q), kb.get(divisor)));
        Expr error = productError(kb, kb.get(q), kb.get(divisor), kb.get(h));
        return towardExact(kb, kb.get(q), sub(sub(kb.get(dividend), kb.get(h)), error));
    }

    /**
     * x y - h exactly, h the rounded product of doubles x and y (F64) whose products stay within double's normal range:
     * Dekker's product of Veltkamp's halves, each partial product of two 26-bit halves exact (Dekker 1971).
     */
    static Expr productError(KernelBuilder kb, Expr x, Expr y, Expr h) {
        Local xHigh = kb.local("x.high", high(kb, x)), yHigh = kb.local("y.high", high(kb, y));
        Expr xLow = sub(x, kb.get(xHigh)), yLow = sub(y, kb.get(yHigh));
        return add(add(add(sub(mul(kb.get(xHigh), kb.get(yHigh)), h), mul(kb.get(xHigh), yLow)), mul(xLow, kb.get(yHigh))), mul(xLow, yLow));
    }

    /** Veltkamp's high half of a: at most 26 significant bits, a less it exact in at most 26 more. */
    private static Expr high(KernelBuilder kb, Expr a) {
        Local t = kb.local("split", mul(a, f64(SPLITTER)));
        return sub(kb.get(t), sub(kb.get(t), a));
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
