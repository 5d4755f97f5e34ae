package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.byodt.compiler.ops.ComparisonAndLogicTest.bools;
import static dev.byodt.compiler.ops.NodeCase.floats;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Attention masks as PyTorch exports them, in datatypes without infinities: a -inf constant that Where selects
 * (masked_fill) or that is added to the scores becomes the datatype's lowest value, not a posit's NaR, and
 * Softmax gives that value weight 0, as float32 gives -inf. The lowest values are worked out here from each
 * format's definition: posit16 (es 2) reaches -useed^(n-2) = -16^14 = -2^56; fxp16_13 reaches -2^15 / 2^13 = -4.
 */
class AttentionMaskTest {
    private static final boolean[] MASKED = {false, true, false, true};
    private static final float[] SCORES = {0.5f, 1.25f, -0.75f, 2};

    @ParameterizedTest
    @CsvSource({"float32, -Infinity", "bfloat16, -Infinity", "custom[posit]16, -7.2057594037927936E16", "fxp16_13, -4"})
    void whereSelectsTheLowestValueForAMinusInfinityConstant(String datatype, float lowest) {
        Tensor y = new NodeCase("Where", 16).input(bools(MASKED)).constant(floats(new long[0], Float.NEGATIVE_INFINITY))
            .input(floats(SCORES)).run(GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype))).getFirst();
        float[] got = y.toFloatArray();
        for (int i = 0; i < SCORES.length; i++) assertEquals(MASKED[i] ? lowest : SCORES[i], got[i], datatype + " at " + i);
    }

    /** The masked scores are the datatype's lowest value; the others' weights are a softmax of them alone. */
    @ParameterizedTest
    @CsvSource({"float32, -Infinity, 1e-6", "bfloat16, -Infinity, 1e-2", "custom[posit]16, -7.2057594037927936E16, 1e-3",
        "fxp16_13, -4, 1e-3"})
    void softmaxGivesTheLowestValueWeightZero(String datatype, float lowest, double tolerance) {
        float[] scores = SCORES.clone();
        double sum = 0;
        for (int i = 0; i < scores.length; i++) {
            if (MASKED[i]) scores[i] = lowest;
            else sum += Math.exp(scores[i]);
        }
        float[] got = new NodeCase("Softmax", 13).input(floats(new long[] {1, scores.length}, scores))
            .compileAndRun(CompileOptions.host().withDatatype(datatype));
        for (int i = 0; i < scores.length; i++) {
            if (MASKED[i]) assertEquals(0, got[i], datatype + " at " + i);
            else assertEquals(Math.exp(scores[i]) / sum, got[i], tolerance, datatype + " at " + i);
        }
    }
}
