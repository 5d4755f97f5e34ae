package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The lns16 example's (examples/lns16/lns16.c) sin, cos, floor, ceil and round on every one of its 65536 codes,
 * against Java: the value 2^((F - 16384)/1024) in double, StrictMath's sin and cos or Math's floor, ceil and rint,
 * and lns16's rounding (the log2 of the magnitude to the nearest 1/1024, saturating above 2^16, zero below 2^-16).
 * Both sides compute the value in double, so a result is accepted when it is the rounding of the reference moved
 * by at most {@link #SLACK} (relative to the argument's magnitude): a log that lies that close to a rounding
 * boundary may go either way, and the count of those is printed.
 */
class Lns16ExampleTest {
    private static final Path SOURCE = Path.of(System.getProperty("byodt.examplesDir", "../examples"), "lns16/lns16.c");
    private static final double SLACK = 0x1p-40;
    private static final int NAN = 0x8000;

    @Test
    void sinesAndRoundingsOfEveryValue() {
        int[] every = new int[1 << 16];
        for (int i = 0; i < every.length; i++) every[i] = i;
        Map<String, FunctionShape> ops = Map.of("sin", FunctionShape.UNARY, "cos", FunctionShape.UNARY,
            "floor", FunctionShape.UNARY, "ceil", FunctionShape.UNARY, "round", FunctionShape.UNARY);
        try (NativeLibrary lib = NativeLibrary.builder(LibrarySource.file(SOURCE), "lns16", 16).operations(ops).build()) {
            check(lib, "sin", every, StrictMath::sin);
            check(lib, "cos", every, StrictMath::cos);
            check(lib, "floor", every, Math::floor);
            check(lib, "ceil", every, Math::ceil);
            check(lib, "round", every, Math::rint);
        }
    }

    private static void check(NativeLibrary lib, String op, int[] codes, DoubleUnaryOperator f) {
        int[] actual = lib.unary(op, codes);
        int nearBoundary = 0;
        for (int i = 0; i < codes.length; i++) {
            double x = value(codes[i]);
            if (Double.isNaN(x)) {
                if (actual[i] != NAN) fail(String.format("lns16_%s(NaN) = 0x%04X", op, actual[i]));
                continue;
            }
            double slack = SLACK * Math.max(1, Math.abs(x));
            int want = round(f.applyAsDouble(x));
            if (actual[i] == want) continue;
            int low = round(f.applyAsDouble(x - slack)), high = round(f.applyAsDouble(x + slack));
            int lower = round(f.applyAsDouble(x) - slack), upper = round(f.applyAsDouble(x) + slack);
            if (actual[i] == low || actual[i] == high || actual[i] == lower || actual[i] == upper) {
                nearBoundary++;
                continue;
            }
            fail(String.format("lns16_%s(0x%04X = %s) = 0x%04X, expected 0x%04X (%s)", op, codes[i], x, actual[i], want, f.applyAsDouble(x)));
        }
        System.out.printf("lns16 %s: %d values, %d within %s of a rounding boundary%n", op, codes.length, nearBoundary, SLACK);
    }

    /** The value of a code: 0x0000 zero, 0x8000 NaN, else sign and 2^((F - 16384)/1024). */
    private static double value(int code) {
        if (code == NAN) return Double.NaN;
        int field = code & 0x7fff;
        if (field == 0) return 0;
        double magnitude = Math.pow(2, (field - 16384) / 1024.0);
        return (code & 0x8000) != 0 ? -magnitude : magnitude;
    }

    /** y as lns16: zero below 2^-16 (F < 1 after rounding), the largest magnitude from the top of the range on. */
    private static int round(double y) {
        if (Double.isNaN(y)) return NAN;
        double magnitude = Math.abs(y);
        if (magnitude < 0x1p-20) return 0;
        long field = Math.round(1024 * (Math.log(magnitude) / Math.log(2))) + 16384;
        if (field < 1) return 0;
        return (y < 0 ? 0x8000 : 0) | (int) Math.min(field, 0x7fff);
    }
}
