package dev.byodt.runtime;

import java.util.Arrays;

/**
 * How far an actual tensor is from an expected one, with ONNX's test criterion: each element must satisfy
 * |actual - expected| <= atol + rtol * |expected|; NaN matches NaN and infinities match themselves.
 * Tensors of different element types or shapes are not compared element by element.
 *
 * @param mismatch how the element type or shape differs from the expected one, or null when they agree
 */
public record TensorDiff(long elements, double maxAbsError, double maxRelError, long worstIndex,
                         double worstExpected, double worstActual, long violations, String mismatch) {

    public static TensorDiff of(Tensor expected, Tensor actual, double rtol, double atol) {
        if (expected.type() != actual.type()) {
            return mismatched("element type " + actual.type() + " differs from the expected " + expected.type());
        }
        if (!Arrays.equals(expected.shape(), actual.shape())) {
            return mismatched("shape " + Shapes.format(actual.shape()) + " differs from the expected " + Shapes.format(expected.shape()));
        }
        double maxAbs = 0, maxRel = 0, worstExcess = -1;
        long worst = -1, violations = 0;
        for (long i = 0; i < expected.elementCount(); i++) {
            double e = expected.getDouble(i), a = actual.getDouble(i);
            double err = errorBetween(e, a);
            double rel = err == 0 ? 0 : err / Math.abs(e);
            maxAbs = Math.max(maxAbs, err);
            maxRel = Math.max(maxRel, rel);
            // An exact match needs no tolerance, which for a NaN or infinite expected value is NaN or infinite;
            // a mismatch with an infinite expected value (infinite error less infinite tolerance) is as bad as it gets.
            double excess = err == 0 ? 0 : err - (atol + rtol * Math.abs(e));
            if (Double.isNaN(excess)) excess = Double.POSITIVE_INFINITY;
            if (excess > 0) violations++;
            if (excess > worstExcess || worst < 0) {
                worstExcess = excess;
                worst = i;
            }
        }
        return new TensorDiff(expected.elementCount(), maxAbs, maxRel, worst,
            worst >= 0 ? expected.getDouble(worst) : 0, worst >= 0 ? actual.getDouble(worst) : 0, violations, null);
    }

    private static TensorDiff mismatched(String how) {
        return new TensorDiff(0, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, -1, 0, 0, 1, how);
    }

    private static double errorBetween(double e, double a) {
        if (Double.isNaN(e) || Double.isNaN(a)) return Double.isNaN(e) && Double.isNaN(a) ? 0 : Double.POSITIVE_INFINITY;
        if (e == a) return 0;
        return Math.abs(a - e);
    }

    public boolean withinTolerance() { return violations == 0; }

    /** "max abs 3.1e-07, max rel 2.0e-06" or, on failure, where the worst element is. */
    public String describe() {
        if (mismatch != null) return mismatch;
        String summary = String.format("max abs error %.3g, max rel error %.3g", maxAbsError, maxRelError);
        if (withinTolerance()) return summary;
        return summary + String.format("; %d of %d elements out of tolerance, worst at index %d: expected %s, got %s",
            violations, elements, worstIndex, (float) worstExpected, (float) worstActual);
    }
}
