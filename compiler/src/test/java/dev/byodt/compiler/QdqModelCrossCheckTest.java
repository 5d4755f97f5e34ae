package dev.byodt.compiler;

import ai.onnxruntime.OrtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A QDQ-quantized CNN (scripts/export_qdq_cnn.py: uint8 activations, int8 per-channel conv weights) against
 * ONNX Runtime: in float32 the outputs agree to 1e-4 of the largest; in posit16 and bfloat16 the quantized layers
 * still see the same values to within a few quanta.
 */
class QdqModelCrossCheckTest {
    private static final Path MODEL = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("qdq-cnn.onnx");
    private static final long[] SHAPE = {1, 1, 8, 8};
    private static final int IMAGES = 50;

    @Test
    void float32MatchesOnnxRuntime() throws OrtException {
        double worst = worstDifference(CompileOptions.host());
        System.out.printf("qdq-cnn float32: worst |byodt - onnxruntime| / largest output = %.3g%n", worst);
        assertTrue(worst <= 1e-4, "float32 differs from onnxruntime by " + worst + " of the largest output");
    }

    /**
     * Measured: posit16 0.0175, bfloat16 0.0502 (a few quanta of the uint8 output, whose step is 0.02 against
     * outputs near 1). fxp16_13 is not here: it holds nothing beyond 4, so the input's x / scale (up to 255)
     * saturates before rounding and the model departs from float32 by about the largest output (1.05).
     */
    @ParameterizedTest
    @CsvSource({"custom[posit]16, 0.05", "bfloat16, 0.1"})
    void runsInOtherDatatypes(String datatype, double bound) throws OrtException {
        double worst = worstDifference(CompileOptions.host().withDatatype(datatype));
        System.out.printf("qdq-cnn %s: worst |byodt - onnxruntime| / largest output = %.3g%n", datatype, worst);
        assertTrue(worst <= bound, datatype + " differs from onnxruntime by " + worst + " of the largest output");
    }

    /** The largest |byodt - onnxruntime| over seeded random images, relative to the largest |output| of each. */
    private static double worstDifference(CompileOptions options) throws OrtException {
        return OnnxRuntimeComparison.worstDifferences(MODEL, options, "image", SHAPE, List.of("dense_dq"), IMAGES, 13)[0];
    }
}
