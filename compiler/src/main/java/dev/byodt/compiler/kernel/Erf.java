package dev.byodt.compiler.kernel;

/** erf in double for the interpreter: Java's Math has none. */
final class Erf {
    private Erf() {}

    /** erf by its Maclaurin series near 0 and the continued fraction of erfc beyond: double accuracy for float results. */
    static double erf(double x) {
        if (Double.isNaN(x)) return x;
        double ax = Math.abs(x);
        if (ax < 2.5) {
            double term = ax, sum = ax, x2 = ax * ax;
            for (int n = 1; n < 60; n++) {
                term *= -x2 / n;
                sum += term / (2 * n + 1);
            }
            return Math.copySign(sum * 2 / Math.sqrt(Math.PI), x);
        }
        if (ax > 6) return Math.copySign(1, x);
        double f = 0;
        for (int n = 60; n >= 1; n--) f = n / 2.0 / (ax + f);
        double erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f);
        return Math.copySign(1 - erfc, x);
    }
}
