package dev.byodt.compiler;

import ai.onnxruntime.OrtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A QOperator-quantized CNN (scripts/export_qoperator_cnn.py: QLinearConv, QLinearMatMul, DynamicQuantizeLinear,
 * MatMulInteger and ConvInteger) against ONNX Runtime: in float32 every output is ONNX Runtime's, bit for bit; in
 * posit16, bfloat16 and fxp16_13 it runs, its quantized layers within the bounds measured below.
 */
class QOperatorModelCrossCheckTest {
    private static final Path MODEL = Path.of(System.getProperty("byodt.modelsDir", "../models")).resolve("qoperator-cnn.onnx");
    private static final long[] SHAPE = {1, 1, 8, 8};
    private static final List<String> OUTPUTS = List.of("dense", "dynamic", "conv_integer");
    private static final int IMAGES = 50;

    @Test
    void float32IsOnnxRuntimeBitForBit() throws OrtException {
        double[] worst = worstDifferences(CompileOptions.host());
        assertArrayEquals(new double[OUTPUTS.size()], worst, "float32 against onnxruntime, per output " + OUTPUTS);
    }

    /**
     * The largest |byodt - onnxruntime| relative to the largest output, over the outputs (dense, dynamic,
     * conv_integer), measured: posit16 0.043, 0.0059, 0.0055; bfloat16 0.046, 0.0083, 0.0082. The image is quantized
     * in the datatype, so some pixels land one step away from float32's and the integer layers carry that on.
     * fxp16_13 holds nothing beyond 4, so the image's x / scale (up to 255) saturates when it is quantized and
     * every output departs from ONNX Runtime's by about its largest value (1.0, 0.999, 0.99997).
     */
    @ParameterizedTest
    @CsvSource({"custom[posit]16, 0.05", "bfloat16, 0.06", "fxp16_13, 1.01"})
    void runsInOtherDatatypes(String datatype, double bound) throws OrtException {
        double[] worst = worstDifferences(CompileOptions.host().withDatatype(datatype));
        System.out.printf("qoperator-cnn %s: worst |byodt - onnxruntime| / largest output, per output %s = %s%n", datatype,
            OUTPUTS, Arrays.toString(worst));
        for (int o = 0; o < worst.length; o++) {
            assertTrue(worst[o] <= bound, datatype + " output " + OUTPUTS.get(o) + " differs from onnxruntime by " + worst[o]);
        }
    }

    private static double[] worstDifferences(CompileOptions options) throws OrtException {
        return OnnxRuntimeComparison.worstDifferences(MODEL, options, "image", SHAPE, OUTPUTS, IMAGES, 13);
    }
}
