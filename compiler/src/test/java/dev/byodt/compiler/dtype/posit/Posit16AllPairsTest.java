package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.harness.AllPairs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every one of the 2^32 pairs of posit16 (es 2) for add and mul, checked by {@link Posit16TableRounding}
 * (whose table lookups are themselves checked against the exact reference on a sample first). Minutes long:
 * run with {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class Posit16AllPairsTest {
    @Test
    void everyPairOfAddAndMul() {
        Posit16TableRounding table = new Posit16TableRounding();
        PositReference ref = new PositReference(16, 2);
        java.util.Random random = new java.util.Random(4);
        for (int i = 0; i < 200_000; i++) {
            int a = random.nextInt(1 << 16), b = random.nextInt(1 << 16);
            assertEquals(ref.add(a, b), table.add(a, b), "table add " + a + " " + b);
            assertEquals(ref.mul(a, b), table.mul(a, b), "table mul " + a + " " + b);
        }
        try (PositLibrary lib = PositLibrary.compile(16, 2)) {
            for (String op : new String[]{"add", "mul"}) {
                AllPairs.Outcome outcome = AllPairs.compare(lib.lib, op, op.equals("add") ? table::add : table::mul);
                assertEquals(0, outcome.wrong(), op + ": " + outcome.wrong() + " wrong pairs, first " + outcome.firstWrongHex());
                System.out.println("posit16es2 " + op + ": all 4294967296 pairs exact in " + outcome.seconds() + " s");
            }
        }
    }
}
