package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.dtype.posit.PositReference;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.lower.Program;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.function.BinaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Posit8 add, sub and mul on every pair of operands in compiled programs, whose loops vectorize with the
 * library's vector variants where the host has them (posit_x64.c), give what the scalar functions give called
 * out of line (--no-inline-lib). SmallPositsTest checks both against the exact reference on every pair; this
 * checks that the compiler hands the loops to the variants correctly, the remainder of a loop included.
 */
class SmallPositLoopsTest {
    /** Every pair, and 37 more so that the loop does not end on a whole vector. */
    private static final int SIZE = 256 * 256 + 37;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void everyPairAsTheScalarLibraryGivesIt(int es) {
        String datatype = es == 2 ? "custom[posit]8" : "custom[posit_es" + es + "]8";
        float[] values = valuesOfEveryPattern(es);
        float[] x = new float[SIZE], y = new float[SIZE];
        for (int i = 0; i < SIZE; i++) {
            x[i] = values[i / 256 % 256];
            y[i] = values[i % 256];
        }
        check(datatype, "Add", Exprs::add, x, y);
        check(datatype, "Sub", Exprs::sub, x, y);
        check(datatype, "Mul", Exprs::mul, x, y);
    }

    private static void check(String datatype, String op, BinaryOperator<Expr> f, float[] x, float[] y) {
        Program program = DatatypePrograms.elementwise(op.toLowerCase(), op, SIZE, f);
        CompileOptions options = DatatypePrograms.in(datatype);
        float[] vectorized = DatatypePrograms.run(program, options, x, y);
        float[] scalar = DatatypePrograms.run(program, options.withInlineLibraries(false), x, y);
        assertArrayEquals(scalar, vectorized, datatype + " " + op);
    }

    /**
     * The float32 value of each 8-bit pattern (NaR as NaN, which converts back to NaR), from the exact reference:
     * every posit8 value is a float32. SmallPositsTest checks the library's to_f32 against it on every pattern.
     */
    private static float[] valuesOfEveryPattern(int es) {
        PositReference reference = new PositReference(8, es);
        float[] values = new float[256];
        for (int p = 0; p < 256; p++) values[p] = (float) reference.toDouble(p);
        return values;
    }
}
