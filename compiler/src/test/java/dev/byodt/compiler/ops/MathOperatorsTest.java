package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.ops.MathReference.Reduction;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The math operators in the forms the ONNX node cases here do not reach (the opset 18 reductions, Mish and
 * GroupNormalization came after the onnx release that generated them; ReduceLogSumExp's cases are double),
 * and at the edges of their formulas, against {@link MathReference} in float32, in the interpreter.
 */
class MathOperatorsTest {
    /** A [2, 3, 4] tensor of values in [-1, 1), a few of them 0. */
    private static final Tensor X = floats(new long[] {2, 3, 4}, 0.5f, -0.25f, 0.75f, 0, -1, 0.125f, 0.875f, -0.5f,
        0.25f, 0.625f, -0.75f, 0.375f, -0.125f, 0.5f, 0, -0.875f, 0.25f, 0.75f, -0.375f, 1 / 3f, 0.5f, -0.625f, 0.9f, -0.1f);

    private static void assertClose(double[] expected, Tensor actual, String what) {
        assertEquals(expected.length, actual.elementCount(), what + ": elements");
        for (int i = 0; i < expected.length; i++) {
            double tolerance = 1e-6 * Math.abs(expected[i]) + 1e-7;
            double got = actual.getFloat(i);
            assertTrue(got == expected[i] || Math.abs(got - expected[i]) <= tolerance,
                what + "[" + i + "]: " + got + ", expected " + expected[i]);
        }
    }

    @ParameterizedTest
    @EnumSource(Reduction.class)
    void reductionsTakeAxesAsAnAttributeBeforeOpset18AndAsAnInputFrom(Reduction r) {
        Tensor attribute = new NodeCase(r.opType(), 13).attr("axes", new long[] {-1}).attr("keepdims", 0L).input(X).runOne();
        assertArrayEquals(new long[] {2, 3}, attribute.shape());
        assertClose(r.over(X, 2), attribute, r + " over axis -1 (attribute)");
        Tensor input = new NodeCase(r.opType(), 18).input(X).constant(longs(2, 0)).runOne();
        assertArrayEquals(new long[] {1, 3, 1}, input.shape());
        assertClose(r.over(X, 0, 2), input, r + " over axes 2, 0 (input)");
        Tensor squeezed = new NodeCase(r.opType(), 18).attr("keepdims", 0L).input(X).constant(longs(1)).runOne();
        assertArrayEquals(new long[] {2, 4}, squeezed.shape());
        assertClose(r.over(X, 1), squeezed, r + " over axis 1 (input), keepdims 0");
    }

    @ParameterizedTest
    @EnumSource(Reduction.class)
    void noAxesMeanEveryAxisUnlessNoopWithEmptyAxes(Reduction r) {
        Tensor all = new NodeCase(r.opType(), 18).input(X).runOne();
        assertArrayEquals(new long[] {1, 1, 1}, all.shape());
        assertClose(r.over(X, 0, 1, 2), all, r + " with no axes input");
        Tensor emptyAxes = new NodeCase(r.opType(), 18).input(X).constant(longs()).runOne();
        assertClose(r.over(X, 0, 1, 2), emptyAxes, r + " with empty axes");
        Tensor identity = new NodeCase(r.opType(), 18).attr("noop_with_empty_axes", 1L).input(X).constant(longs()).runOne();
        assertArrayEquals(X.shape(), identity.shape());
        assertArrayEquals(X.toFloatArray(), identity.toFloatArray());
        Tensor everyAxisBefore18 = new NodeCase(r.opType(), 13).attr("keepdims", 0L).input(X).runOne();
        assertArrayEquals(new long[0], everyAxisBefore18.shape());
        assertClose(r.over(X, 0, 1, 2), everyAxisBefore18, r + " with no axes attribute");
    }

    /** Min of nothing is +inf, the product 1, log-sum-exp -inf, the sums 0: what ONNX's empty_set cases expect. */
    @ParameterizedTest
    @EnumSource(Reduction.class)
    void reducingNoElementsGivesTheIdentity(Reduction r) {
        Tensor empty = floats(new long[] {2, 0, 3});
        Tensor y = new NodeCase(r.opType(), 18).input(empty).constant(longs(1)).runOne();
        assertArrayEquals(new long[] {2, 1, 3}, y.shape());
        assertClose(r.over(empty, 1), y, r + " of nothing");
    }

    @Test
    void logSumExpIsShiftedByTheLargestFiniteElementSoExpCannotOverflow() {
        Tensor large = floats(100, 100, 88);
        assertClose(new double[] {100 + Math.log(2 + Math.exp(-12))},
            new NodeCase("ReduceLogSumExp", 18).input(large).runOne(), "log-sum-exp of large values");
        float inf = Float.POSITIVE_INFINITY;
        Tensor infinities = floats(new long[] {3, 2}, -inf, -inf, 1, inf, -inf, 2);
        for (GraphExecutor executor : List.of(GraphInterpreter::run, GraphExecutor.compiled(CompileOptions.host()))) {
            assertArrayEquals(new float[] {-inf, inf, 2}, new NodeCase("ReduceLogSumExp", 18).input(infinities).constant(longs(1))
                .attr("keepdims", 0L).run(executor).getFirst().toFloatArray(), "infinities as log(sum(exp(x))) gives them");
        }
    }

    @Test
    void softplusNeitherOverflowsNorLosesSmallResults() {
        Tensor x = floats(-30, -5, 0, 5, 89, 100);
        // exp(89) overflows float32; log(1 + e) alone would round exp(-30) away.
        double[] expected = {Math.exp(-30), Math.log1p(Math.exp(-5)), Math.log(2), 5 + Math.log1p(Math.exp(-5)), 89, 100};
        Tensor y = new NodeCase("Softplus", 1).input(x).runOne();
        assertClose(expected, y, "Softplus");
        assertEquals(expected[0], y.getFloat(0), 1e-6 * expected[0], "Softplus(-30), relative");
        assertClose(MathReference.map(x, MathReference::mish), new NodeCase("Mish", 18).input(x).runOne(), "Mish");
    }

    @Test
    void activationsFollowTheirDefinitions() {
        Tensor x = floats(-6, -2.5f, -1, -0.25f, 0, 0.25f, 1, 1.5f, 3, 6);
        assertClose(MathReference.map(x, MathReference::mish), new NodeCase("Mish", 18).input(x).runOne(), "Mish");
        assertClose(MathReference.map(x, MathReference::softsign), new NodeCase("Softsign", 1).input(x).runOne(), "Softsign");
        assertClose(MathReference.map(x, v -> MathReference.celu(v, 1)), new NodeCase("Celu", 12).input(x).runOne(), "Celu");
        assertClose(MathReference.map(x, v -> MathReference.celu(v, 2.5)),
            new NodeCase("Celu", 12).attr("alpha", 2.5f).input(x).runOne(), "Celu, alpha 2.5");
        assertClose(MathReference.map(x, v -> MathReference.thresholdedRelu(v, 1)),
            new NodeCase("ThresholdedRelu", 10).input(x).runOne(), "ThresholdedRelu");
        assertClose(MathReference.map(x, v -> MathReference.thresholdedRelu(v, -1)),
            new NodeCase("ThresholdedRelu", 10).attr("alpha", -1f).input(x).runOne(), "ThresholdedRelu, alpha -1");
    }

    @Test
    void hardmaxMarksTheFirstLargestOfEachRowAsSoftmaxTakesRows() {
        Tensor x = floats(new long[] {2, 2, 2}, 3, 1, 3, 2, -1, 0, 0, -2);
        // Opset 11: rows of the tensor seen as a 2 x 4 matrix, the first 3 of a tie wins.
        assertArrayEquals(new float[] {1, 0, 0, 0, 0, 1, 0, 0}, new NodeCase("Hardmax", 11).input(x).runOne().toFloatArray());
        // Opset 13: along the last axis.
        assertArrayEquals(new float[] {1, 0, 1, 0, 0, 1, 1, 0}, new NodeCase("Hardmax", 13).input(x).runOne().toFloatArray());
        assertArrayEquals(new float[] {1, 0, 0, 1, 0, 1, 1, 0},
            new NodeCase("Hardmax", 13).attr("axis", 1L).input(x).runOne().toFloatArray());
        // A NaN ranks above every number, as in ArgMax.
        assertArrayEquals(new float[] {0, 1, 0}, new NodeCase("Hardmax", 13).input(floats(1, Float.NaN, 2)).runOne().toFloatArray());
    }

    @Test
    void groupNormalizationScalesPerGroupInOpset18AndPerChannelFrom21() {
        Tensor x = floats(new long[] {2, 4, 3}, 0.5f, -0.25f, 0.75f, 0, -1, 0.125f, 0.875f, -0.5f, 0.25f, 0.625f, -0.75f, 0.375f,
            -0.125f, 0.5f, 0, -0.875f, 0.25f, 0.75f, -0.375f, 1 / 3f, 0.5f, -0.625f, 0.9f, -0.1f);
        Tensor groupScale = floats(1.5f, -0.5f), groupBias = floats(0.25f, 1);
        Tensor channelScale = floats(1, 0.5f, 2, -1), channelBias = floats(0, 0.25f, -0.5f, 1);
        Tensor perGroup = new NodeCase("GroupNormalization", 18).attr("num_groups", 2L).input(x).input(groupScale)
            .input(groupBias).runOne();
        assertClose(MathReference.groupNormalization(x, 2, groupScale, groupBias, false, 1e-5f), perGroup, "opset 18");
        Tensor perChannel = new NodeCase("GroupNormalization", 21).attr("num_groups", 2L).attr("epsilon", 0.01f).input(x)
            .input(channelScale).input(channelBias).runOne();
        assertClose(MathReference.groupNormalization(x, 2, channelScale, channelBias, true, 0.01f), perChannel, "opset 21");
        Tensor instanceLike = new NodeCase("GroupNormalization", 21).attr("num_groups", 4L).input(x).input(channelScale)
            .input(channelBias).runOne();
        assertClose(MathReference.groupNormalization(x, 4, channelScale, channelBias, true, 1e-5f), instanceLike, "4 groups");
    }

    @Test
    void groupNormalizationRefusesParametersThatDoNotFit() {
        Tensor x = floats(new long[] {1, 4, 2}, new float[8]);
        Tensor two = floats(1, 1), four = floats(1, 1, 1, 1);
        assertMessage("GroupNormalization node 'groupnormalization': attribute num_groups=3 is not supported "
            + "(a positive divisor of the 4 channels)",
            new NodeCase("GroupNormalization", 21).attr("num_groups", 3L).input(x).input(four).input(four));
        assertMessage("GroupNormalization node 'groupnormalization': attribute num_groups is missing",
            new NodeCase("GroupNormalization", 21).input(x).input(four).input(four));
        assertMessage("GroupNormalization node 'groupnormalization': input scale has shape 4, expected 2 "
            + "(one value per group before opset 21)",
            new NodeCase("GroupNormalization", 18).attr("num_groups", 2L).input(x).input(four).input(two));
        assertMessage("GroupNormalization node 'groupnormalization': input bias has shape 2, expected 4 (one value per channel)",
            new NodeCase("GroupNormalization", 21).attr("num_groups", 2L).input(x).input(four).input(two));
        assertMessage("GroupNormalization node 'groupnormalization': attribute stash_type=10 is not supported (1 (float32))",
            new NodeCase("GroupNormalization", 21).attr("num_groups", 2L).attr("stash_type", 10L).input(x).input(four).input(four));
    }

    private static void assertMessage(String expected, NodeCase node) {
        assertEquals(expected, assertThrows(ByodtException.class, node::runOne).getMessage());
    }
}
