package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * CumSum in posit16 honours --accumulate. Near 1024 posit16 (es = 2) has 9 fraction bits, so neighbours are 2
 * apart and x + 1 is a tie, rounded to the even pattern (1024, 1028, 1032 end in 0; 1026, 1030 in 1). Rounding
 * every step keeps 1024 + 1 at 1024 for ever; summing exactly (quire, or float32, which holds these integers)
 * and rounding each output once gives the running sums 1024..1032 on the posit grid.
 */
class CumSumAccumulationTest {
    @ParameterizedTest
    @CsvSource({"dtype, 1024;1024;1024;1024;1024;1024;1024;1024;1024",
        "exact, 1024;1024;1026;1028;1028;1028;1030;1032;1032",
        "float32, 1024;1024;1026;1028;1028;1028;1030;1032;1032"})
    void runningSumsRoundAsTheAccumulationModeSays(AccumulationMode mode, String expected) {
        DatatypeChoice posit16 = DatatypeChoice.float32().withDatatype("custom[posit]16").withAccumulation(mode);
        GraphExecutor compiled = GraphExecutor.compiled(CompileOptions.host().withDatatypes(posit16));
        float[] y = new NodeCase("CumSum", 14).input(floats(1024, 1, 1, 1, 1, 1, 1, 1, 1)).constant(longs(0)).run(compiled)
            .getFirst().toFloatArray();
        String[] parts = expected.split(";");
        float[] want = new float[parts.length];
        for (int i = 0; i < parts.length; i++) want[i] = Float.parseFloat(parts[i]);
        assertArrayEquals(want, y);
    }
}
