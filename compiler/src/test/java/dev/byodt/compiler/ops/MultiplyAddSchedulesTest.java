package dev.byodt.compiler.ops;

import dev.byodt.compiler.CasesInTurn;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.TunedSchedulesTest.bits;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * float32 under either --multiply-add: every tuned schedule of {@link TunedSchedulesTest}'s cases (register tiles
 * among them) computes its operator's reference nest's bits, compiled and in the interpreter alike, on values of
 * full float32 precision, whose products and sums round (that test's grid values make every float32 sum exact, so
 * one rounding or two give the same bits there). The two modes' bits differ on every case, so code that fused no
 * multiply-add, or the interpreter that fused every one, would fail. By default each case runs in one mode, taken
 * in turn; -Pexhaustive runs the other.
 */
@Execution(ExecutionMode.CONCURRENT)
class MultiplyAddSchedulesTest {
    /** The lane counts of 256-bit and 512-bit vectors of float32, register tiles' and the host's. */
    private static final int[] LANES = {8, 16};

    static Stream<Arguments> eachCaseInOneMode() {
        return CasesInTurn.eachCaseInOneVariant(TunedSchedulesTest.CASES, CasesInTurn.oneArgumentEach((Object[]) MultiplyAdd.values()));
    }

    static Stream<Arguments> eachCaseInTheOtherMode() {
        return CasesInTurn.everyOtherPairing(TunedSchedulesTest.CASES, CasesInTurn.oneArgumentEach((Object[]) MultiplyAdd.values()));
    }

    @ParameterizedTest(name = "{0}, multiply-add {1}")
    @MethodSource("eachCaseInOneMode")
    void everyScheduleComputesTheReferenceBitsCompiledAndInterpreted(TunedSchedulesTest.Case c, MultiplyAdd mode) {
        check(c, mode);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "{0}, multiply-add {1}")
    @MethodSource("eachCaseInTheOtherMode")
    void everyScheduleInTheOtherMode(TunedSchedulesTest.Case c, MultiplyAdd mode) {
        check(c, mode);
    }

    private static void check(TunedSchedulesTest.Case c, MultiplyAdd mode) {
        Graph graph = c.graph(MultiplyAddSchedulesTest::fullPrecision);
        List<Tensor> inputs = c.runtimeInputs(MultiplyAddSchedulesTest::fullPrecision);
        Program reference = GraphLowering.lower(graph);
        int[] bits = bits(run(reference, mode, inputs));
        assertArrayEquals(bits, bits(GraphInterpreter.run(reference, inputs, mode).getFirst()), c + ": the reference nest interpreted");
        for (int lanes : LANES) {
            Program scheduled = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(lanes, true));
            assertArrayEquals(bits, bits(run(scheduled, mode, inputs)), c + ", " + lanes + " lanes");
            assertArrayEquals(bits, bits(GraphInterpreter.run(scheduled, inputs, mode).getFirst()), c + ", " + lanes + " lanes interpreted");
        }
        MultiplyAdd other = mode == MultiplyAdd.FUSED ? MultiplyAdd.SEPARATE : MultiplyAdd.FUSED;
        assertFalse(Arrays.equals(bits, bits(run(reference, other, inputs))), c + ": the values tell one rounding from two");
    }

    /** Values in (-2, 2) with every bit of float32's significand random. */
    private static Tensor fullPrecision(long[] shape, Random random) {
        float[] v = new float[(int) Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < v.length; i++) v[i] = (float) (random.nextDouble() * 4 - 2);
        return Tensor.ofFloats(shape, v);
    }

    private static Tensor run(Program program, MultiplyAdd mode, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host().withMultiplyAdd(mode));
             HostModel model = Compiler.jit(module)) {
            return model.run(inputs).getFirst();
        }
    }
}
