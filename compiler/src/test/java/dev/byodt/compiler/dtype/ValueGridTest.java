package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference.Specials;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The value grid each minifloat and fixed-point datatype declares holds exactly the datatype's values: every
 * value rounds to itself, every midpoint between neighbours goes to the even significand and a hair beside it
 * to the nearer neighbour, rounding up gives the upper neighbour, and beyond the largest value it clamps. The
 * values come from {@link MinifloatReference}'s decoding of every bit pattern.
 */
class ValueGridTest {
    private static final Map<String, List<Rational>> DATATYPES = Map.ofEntries(
        Map.entry("float16", BlockReference.minifloat(MinifloatReference.ieee(5, 10))),
        Map.entry("custom[minifloat_e4]8", BlockReference.minifloat(MinifloatReference.ieee(4, 3))),
        Map.entry("custom[minifloat_e3]7", BlockReference.minifloat(MinifloatReference.ieee(3, 3))),
        Map.entry("custom[fp8e4m3]8", BlockReference.minifloat(new MinifloatReference(4, 3, Specials.FN, false))),
        Map.entry("custom[fp8e4m3fnuz]8", BlockReference.minifloat(new MinifloatReference(4, 3, Specials.FNUZ, false))),
        Map.entry("custom[fp8e5m2fnuz]8", BlockReference.minifloat(new MinifloatReference(5, 2, Specials.FNUZ, false))),
        Map.entry("custom[fp8e3m4]8", BlockReference.minifloat(MinifloatReference.ieee(3, 4))),
        Map.entry("custom[fp4e2m1]4", BlockReference.minifloat(new MinifloatReference(2, 1, Specials.NONE, false))),
        Map.entry("custom[e8m0]8", BlockReference.minifloat(new MinifloatReference(8, 0, Specials.FN, true))),
        Map.entry("custom[ue4m3]8", BlockReference.minifloat(new MinifloatReference(4, 3, Specials.FN, true))),
        Map.entry("fxp8_3", BlockReference.fixedPoint(8, 3)),
        Map.entry("fxp16_13", BlockReference.fixedPoint(16, 13)));

    @Test
    void everyDeclaredGridHoldsExactlyTheDatatypesValues() {
        for (Map.Entry<String, List<Rational>> datatype : DATATYPES.entrySet()) {
            ValueGrid grid = (ValueGrid) DatatypeChoice.builtInRegistry().instance(datatype.getKey(), Map.of()).valueGrid().orElseThrow();
            List<BigDecimal> values = new ArrayList<>();
            if (grid.hasZero()) values.add(BigDecimal.ZERO);
            datatype.getValue().stream().sorted().map(ValueGridTest::exact).forEach(values::add);
            String name = datatype.getKey();
            assertEquals(values.getLast(), new BigDecimal(grid.largest()), name + " largest");
            assertEquals(exact(datatype.getValue().stream().sorted().findFirst().orElseThrow()), new BigDecimal(grid.smallest()), name + " smallest");
            for (int i = 0; i < values.size(); i++) {
                BigDecimal v = values.get(i);
                assertEquals(v, nearest(grid, v), name + " " + v);
                if (i + 1 == values.size()) continue;
                BigDecimal next = values.get(i + 1), gap = next.subtract(v), midpoint = v.add(next).divide(BigDecimal.TWO);
                boolean lowerIsEven = v.divide(gap).toBigIntegerExact().testBit(0) == false;
                assertEquals(lowerIsEven ? v : next, nearest(grid, midpoint), name + " midpoint of " + v + " and " + next);
                BigDecimal hair = gap.divide(BigDecimal.valueOf(1024));
                assertEquals(v, nearest(grid, midpoint.subtract(hair)), name + " just below the midpoint above " + v);
                assertEquals(next, nearest(grid, midpoint.add(hair)), name + " just above the midpoint above " + v);
                assertEquals(next, new BigDecimal(grid.round(v.add(hair), BigDecimal.ONE, ValueGrid.Direction.UP)), name + " up from " + v);
            }
            assertEquals(values.getLast(), nearest(grid, values.getLast().multiply(BigDecimal.valueOf(3))), name + " beyond the largest");
        }
    }

    /**
     * Rounding a quotient of doubles n / (d f) in double arithmetic gives what exact rational rounding gives, in
     * every deterministic direction, where it matters most: quotients on a grid value, on a midpoint between
     * two, and a double's step of n beside each, over denominators that are not powers of two (so that the double
     * nearest to the quotient can land on the boundary the quotient misses), and beyond the largest value.
     */
    @Test
    void quotientsOfDoublesRoundAsExactArithmeticDoes() {
        // The last two have 53-bit significands: a grid value t times them is no double, so n = t d f rounded
        // gives a quotient a hair beside t whose nearest double is t itself, where the rest's sign decides.
        double[][] denominators = {{1, 1}, {3, 1.25}, {0x1p-7, 0.75}, {5, 0x1.000002p-3}, {1, 0x1.5555555555555p-2}, {0x1p-3, 0x1.999999999999ap-4}};
        for (Map.Entry<String, List<Rational>> datatype : DATATYPES.entrySet()) {
            ValueGrid grid = (ValueGrid) DatatypeChoice.builtInRegistry().instance(datatype.getKey(), Map.of()).valueGrid().orElseThrow();
            List<Rational> values = new ArrayList<>();
            if (grid.hasZero()) values.add(Rational.ZERO);
            datatype.getValue().stream().sorted().forEach(values::add);
            List<Rational> targets = new ArrayList<>();
            int stride = Math.max(1, values.size() / 100);
            for (int i = 0; i + 1 < values.size(); i += stride) {
                targets.add(values.get(i));
                targets.add(values.get(i).add(values.get(i + 1)).divide(Rational.of(2)));
            }
            targets.add(values.getLast());
            targets.add(values.getLast().multiply(Rational.of(3)));
            for (double[] df : denominators) {
                Rational denominator = Rational.of(df[0]).multiply(Rational.of(df[1]));
                for (Rational target : targets) {
                    if (target.signum() == 0) continue;
                    double n = target.multiply(denominator).toBigDecimal(40).doubleValue();
                    for (double numerator : new double[] {Math.nextDown(n), n, Math.nextUp(n)}) {
                        Rational q = Rational.of(numerator).divide(denominator);
                        for (ValueGrid.Direction direction : ValueGrid.Direction.values()) {
                            assertEquals(Rational.of(expected(values, q, direction)), Rational.of(grid.round(numerator, df[0], df[1], direction)),
                                datatype.getKey() + " " + numerator + " / (" + df[0] + " * " + df[1] + ") " + direction);
                        }
                        assertEquals(q.floorLog2(), ValueGrid.floorLog2(numerator, df[0], df[1]), "floor(log2) of " + numerator + " / (" + df[0] + " * " + df[1] + ")");
                    }
                }
            }
        }
    }

    /** The reference: the grid values around q, picked by the direction's rule in rational arithmetic. */
    private static double expected(List<Rational> values, Rational q, ValueGrid.Direction direction) {
        int found = Collections.binarySearch(values, q), above = found >= 0 ? found : -found - 1;
        if (above == values.size()) return values.getLast().toBigDecimal(40).doubleValue();
        Rational hi = values.get(above);
        if (hi.compareTo(q) == 0 || above == 0) return hi.toBigDecimal(40).doubleValue();
        Rational lo = values.get(above - 1);
        int half = q.subtract(lo).compareTo(hi.subtract(q));
        // Grid neighbours lo < hi: lo's multiple of the step hi - lo is even or odd.
        boolean loEven = !lo.divide(hi.subtract(lo)).toBigDecimal(40).toBigIntegerExact().testBit(0);
        Rational pick = switch (direction) {
            case UP -> hi;
            case TOWARD_ZERO -> lo;
            case NEAREST_AWAY -> half >= 0 ? hi : lo;
            case NEAREST_EVEN -> half > 0 || (half == 0 && !loEven) ? hi : lo;
            case ODD -> loEven ? hi : lo;
        };
        return pick.toBigDecimal(40).doubleValue();
    }

    private static BigDecimal nearest(ValueGrid grid, BigDecimal x) {
        return new BigDecimal(grid.round(x, BigDecimal.ONE, ValueGrid.Direction.NEAREST_EVEN));
    }

    private static BigDecimal exact(Rational r) { return new BigDecimal(r.num()).divide(new BigDecimal(r.den())); }
}
