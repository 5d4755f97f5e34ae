package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.ConvAlgorithm;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static dev.byodt.compiler.ops.TunedSchedulesTest.bits;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --conv-algorithm winograd: the 3x3 convolutions it takes compute, on values of full float32 precision, outputs
 * within a few roundings of the exact sums (a reference in double written here, the sum of the window's products), the
 * same bits compiled and in the interpreter (the smaller cases), for 8 and 16 lanes, on one thread and two, and
 * through the compiler's option; the convolutions it leaves to the direct schedules are left.
 */
@Execution(ExecutionMode.CONCURRENT)
class WinogradConvTest {
    /**
     * How far an output may be from the exact sum, in units of the sum of its terms' magnitudes: 2^-20, 16 of float32's
     * 2^-24. The cases' worst outputs were 1.5 to 2.2 of them away, in either multiply-add mode; a transform with one
     * wrong coefficient is off by a whole term.
     */
    private static final double TOLERANCE = 0x1p-20;

    /**
     * The largest convolution the interpreter checks, in its multiply-adds: the case of 192 channels (48 million an
     * image) took it most of a minute; its compiled code runs the same loops as the others' (transformed an image at a
     * time).
     */
    private static final long MOST_INTERPRETED_MULTIPLY_ADDS = 1_000_000;

    static Stream<TunedSchedulesTest.Case> cases() {
        return Stream.of(
            conv("16 maps, 8x8, pads 1", s(1, 8, 8, 8), s(16, 8, 3, 3), "pads", s(1, 1, 1, 1)),
            conv("24 maps (a tile of zero maps), 7x9, pads 1: odd rows and columns", s(1, 5, 7, 9), s(24, 5, 3, 3), "pads", s(1, 1, 1, 1)),
            conv("32 maps, no padding, batch 2", s(2, 3, 6, 11), s(32, 3, 3, 3)),
            conv("asymmetric pads", s(1, 4, 9, 6), s(16, 4, 3, 3), "pads", s(0, 1, 2, 0)),
            conv("one output, one tile", s(1, 6, 3, 3), s(16, 6, 3, 3)),
            conv("weights past the second-level cache, 36 tiles: transformed an image at a time, batch 2", s(2, 192, 12, 12),
                s(192, 192, 3, 3), "pads", s(1, 1, 1, 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void outputsAreTheExactSumsWithinAFewRoundingsAndTheSameBitsEverywhere(TunedSchedulesTest.Case c) {
        Graph graph = c.graph(ScheduleCases::valuesWhoseSumsRound);
        List<Tensor> inputs = c.runtimeInputs(ScheduleCases::valuesWhoseSumsRound);
        for (MultiplyAdd mode : MultiplyAdd.values()) {
            Program program = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(16, true, 16, false, true));
            assertTrue(usesWinograd(program), c + ": Winograd's schedule chosen");
            Tensor y = run(program, mode, 1, inputs);
            assertWithinAFewRoundings(graph, inputs, y, c + ", " + mode);
            int[] bits = bits(y);
            if (convolutionMultiplyAdds(c) <= MOST_INTERPRETED_MULTIPLY_ADDS) {
                assertArrayEquals(bits, bits(GraphInterpreter.run(program, inputs, mode).getFirst()), c + ", " + mode + ", interpreted");
            }
            assertArrayEquals(bits, bits(run(program, mode, 2, inputs)), c + ", " + mode + ", two threads");
            Program eightLanes = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(8, true, 8, false, true));
            assertArrayEquals(bits, bits(run(eightLanes, mode, 1, inputs)), c + ", " + mode + ", 8 lanes");
        }
    }

    @Test
    void theCompilersOptionChoosesIt() {
        TunedSchedulesTest.Case c = cases().findFirst().orElseThrow();
        Graph graph = c.graph(ScheduleCases::valuesWhoseSumsRound);
        List<Tensor> inputs = c.runtimeInputs(ScheduleCases::valuesWhoseSumsRound);
        Program program = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(16, true, 16, false, true));
        CompileOptions winograd = CompileOptions.host().withConvAlgorithm(ConvAlgorithm.WINOGRAD);
        int[] bits = bits(run(program, MultiplyAdd.SEPARATE, 1, inputs));
        assertArrayEquals(bits, bits(compileAndRun(graph, winograd, inputs)), "--conv-algorithm winograd");
        assertFalse(Arrays.equals(bits, bits(compileAndRun(graph, CompileOptions.host(), inputs))), "direct: other bits");
    }

    @Test
    void convolutionsItDoesNotSpeedUpStayDirect() {
        List<TunedSchedulesTest.Case> direct = List.of(
            conv("weights past the second-level cache, 9 tiles", s(1, 192, 6, 6), s(192, 192, 3, 3), "pads", s(1, 1, 1, 1)),
            conv("stride 2", s(1, 8, 8, 8), s(16, 8, 3, 3), "strides", s(2, 2)),
            conv("dilation 2", s(1, 8, 8, 8), s(16, 8, 3, 3), "dilations", s(2, 2)),
            conv("two groups", s(1, 8, 8, 8), s(32, 4, 3, 3), "group", 2L),
            conv("5x5", s(1, 8, 8, 8), s(16, 8, 5, 5)),
            conv("fewer maps than a vector", s(1, 8, 8, 8), s(8, 8, 3, 3)));
        for (TunedSchedulesTest.Case c : direct) {
            Program program = GraphLowering.lowerScheduled(c.graph(), node -> new NodeArithmetic(16, true, 16, false, true));
            assertFalse(usesWinograd(program), c.toString());
        }
        TunedSchedulesTest.Case c = cases().findFirst().orElseThrow();
        assertFalse(usesWinograd(GraphLowering.lowerScheduled(c.graph(), node -> new NodeArithmetic(16, true, 16, false, false))),
            "not asked for");
        assertFalse(usesWinograd(GraphLowering.lowerScheduled(c.graph(), node -> new NodeArithmetic(16, false, 0, false, true))),
            "an emulated datatype");
    }

    /** Every output within {@link #TOLERANCE} of the sum of its terms' magnitudes from the exact sum, computed in double. */
    private static void assertWithinAFewRoundings(Graph graph, List<Tensor> inputs, Tensor y, String what) {
        float[] x = inputs.getFirst().toFloatArray();
        float[] w = graph.nodes().getFirst().input(1).constant().toFloatArray();
        float[] bias = graph.nodes().getFirst().input(2).constant().toFloatArray();
        long[] xs = inputs.getFirst().shape(), ws = graph.nodes().getFirst().input(1).constant().shape(), ys = y.shape();
        long[] pads = graph.nodes().getFirst().intsAttr("pads", new long[4]);
        float[] out = y.toFloatArray();
        int checked = 0;
        for (int n = 0; n < ys[0]; n++) {
            for (int m = 0; m < ys[1]; m++) {
                for (int oy = 0; oy < ys[2]; oy++) {
                    for (int ox = 0; ox < ys[3]; ox++) {
                        double sum = bias[m], magnitude = Math.abs(bias[m]);
                        for (int c = 0; c < xs[1]; c++) {
                            for (int ky = 0; ky < 3; ky++) {
                                for (int kx = 0; kx < 3; kx++) {
                                    long iy = oy + ky - pads[0], ix = ox + kx - pads[1];
                                    if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
                                    double term = (double) x[(int) (((n * xs[1] + c) * xs[2] + iy) * xs[3] + ix)]
                                        * w[(int) (((m * ws[1] + c) * 3 + ky) * 3 + kx)];
                                    sum += term;
                                    magnitude += Math.abs(term);
                                }
                            }
                        }
                        float got = out[(int) (((n * ys[1] + m) * ys[2] + oy) * ys[3] + ox)];
                        assertTrue(Math.abs(got - sum) <= TOLERANCE * magnitude,
                            what + ": output (" + n + ", " + m + ", " + oy + ", " + ox + ") is " + got + ", the exact sum " + sum);
                        checked++;
                    }
                }
            }
        }
        assertEquals(out.length, checked);
    }

    private static long convolutionMultiplyAdds(TunedSchedulesTest.Case c) {
        long[] x = c.inputShapes().get(0), w = c.inputShapes().get(1);
        return x[0] * w[0] * w[1] * 9 * x[2] * x[3];
    }

    private static boolean usesWinograd(Program program) {
        return !TunedSchedulesTest.scheduleBuffers(program, TunedSchedulesTest.Schedule.WINOGRAD).isEmpty();
    }

    private static Tensor run(Program program, MultiplyAdd mode, int threads, List<Tensor> inputs) {
        CompileOptions options = CompileOptions.host().withMultiplyAdd(mode).withThreads(threads).withLeastSplitWork(0);
        try (CompiledModule module = Compiler.compile(program, options); HostModel model = Compiler.jit(module)) {
            return model.run(inputs).getFirst();
        }
    }

    private static Tensor compileAndRun(Graph graph, CompileOptions options, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            return model.run(inputs).getFirst();
        }
    }

    private static TunedSchedulesTest.Case conv(String name, long[] x, long[] w, Object... attributes) {
        return new TunedSchedulesTest.Case(name, TunedSchedulesTest.Schedule.WINOGRAD, "Conv", attributes(attributes),
            List.of(x, w, new long[] {w[0]}), new boolean[] {false, true, true});
    }

    private static long[] s(long... dims) { return dims; }
}
