package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference.Specials;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
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

    private static BigDecimal nearest(ValueGrid grid, BigDecimal x) {
        return new BigDecimal(grid.round(x, BigDecimal.ONE, ValueGrid.Direction.NEAREST_EVEN));
    }

    private static BigDecimal exact(Rational r) { return new BigDecimal(r.num()).divide(new BigDecimal(r.den())); }
}
