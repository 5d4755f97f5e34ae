package dev.byodt.compiler.dtype.reference;

import java.math.BigDecimal;
import java.math.MathContext;

/** The error function for references (Java has no Math.erf). */
public final class Erf {
    private Erf() {}

    /** erf by its Maclaurin series in 60-digit decimal arithmetic (cancellation is absorbed by the precision); +-1 beyond 6. */
    public static double erf(double x) {
        if (Double.isNaN(x)) return x;
        if (Math.abs(x) >= 6) return Math.signum(x);
        MathContext mc = new MathContext(60);
        BigDecimal a = new BigDecimal(x), a2 = a.multiply(a, mc), power = a, sum = BigDecimal.ZERO;
        BigDecimal factorial = BigDecimal.ONE;
        for (int n = 0; n < 400; n++) {
            BigDecimal term = power.divide(factorial.multiply(BigDecimal.valueOf(2L * n + 1)), mc);
            sum = n % 2 == 0 ? sum.add(term, mc) : sum.subtract(term, mc);
            power = power.multiply(a2, mc);
            factorial = factorial.multiply(BigDecimal.valueOf(n + 1));
            if (term.abs().compareTo(BigDecimal.ONE.movePointLeft(70)) < 0 && n > 4) break;
        }
        BigDecimal twoOverSqrtPi = new BigDecimal("1.1283791670955125738961589031215451716881012586580");
        double y = sum.multiply(twoOverSqrtPi, mc).doubleValue();
        return x == 0 ? x : y;
    }
}
