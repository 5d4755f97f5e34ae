package dev.byodt.compiler.dtype.reference;

import java.math.BigDecimal;
import java.math.MathContext;

/** The error function for references (Java has no Math.erf). */
public final class Erf {
    private Erf() {}

    /**
     * erf by its Maclaurin series in 60-digit decimal arithmetic (cancellation is absorbed by the precision); +-1
     * beyond 6. The series' numerators q_n = x^(2n+1)/n! are carried from one term to the next (two 60-digit
     * roundings each) rather than from an exact n!, which grows to hundreds of digits: after at most 400 terms q_n
     * is off by less than 10^-56 relative, and as no term exceeds 10^15 for |x| < 6, the sum is off by less than
     * 10^-38, far below the 10^-16 a double resolves.
     */
    public static double erf(double x) {
        if (Double.isNaN(x)) return x;
        if (Math.abs(x) >= 6) return Math.signum(x);
        MathContext mc = new MathContext(60);
        BigDecimal a = new BigDecimal(x), a2 = a.multiply(a, mc), q = a, sum = BigDecimal.ZERO;
        for (int n = 0; n < 400; n++) {
            BigDecimal term = q.divide(BigDecimal.valueOf(2L * n + 1), mc);
            sum = n % 2 == 0 ? sum.add(term, mc) : sum.subtract(term, mc);
            q = q.multiply(a2, mc).divide(BigDecimal.valueOf(n + 1), mc);
            if (term.abs().compareTo(BigDecimal.ONE.movePointLeft(70)) < 0 && n > 4) break;
        }
        BigDecimal twoOverSqrtPi = new BigDecimal("1.1283791670955125738961589031215451716881012586580");
        double y = sum.multiply(twoOverSqrtPi, mc).doubleValue();
        return x == 0 ? x : y;
    }
}
