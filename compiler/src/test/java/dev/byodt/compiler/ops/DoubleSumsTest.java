package dev.byodt.compiler.ops;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.DatatypePlan;
import dev.byodt.compiler.lower.DecodedOperands;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.DecodedOperandsTest.perProduct;
import static dev.byodt.compiler.ops.DecodedOperandsTest.registered;
import static dev.byodt.compiler.ops.DecodedOperandsTest.run;
import static dev.byodt.compiler.ops.DecodedOperandsTest.runEach;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With --accumulate exact, MatMul, Gemm and Conv in datatypes whose values are float32s sum in double where their
 * operands prove the sum exact ({@link dev.byodt.compiler.lower.DoubleSums}), and in the quire elsewhere: each gives
 * the bits of its operator's reference nest with a quire per output (compiled under an operator name the pass
 * leaves alone). On values of a grid of 1/64 in [-2, 2) (signs mixed, so sums cancel) the double branch alone
 * gives them too; on values whose magnitudes span up to 2^38, and with a NaN or infinities among the operands,
 * the whole kernel gives them (the check sends such sums to the quire). The nodes take the schedules they take when
 * compiled so: register tiles of AVX-512's doubles where the weights are constant ({@link #EXACT_IN_DOUBLE}). Default
 * run: a convolution in register tiles, a grouped convolution on padded planes with weights at run time (its maps
 * summed two at a time, each with its bias), a Gemm with constant B and three rows, and a MatMul of four rows of 128
 * columns, in posit16, bfloat16, fp8e4m3 and fxp16_8; every case of {@link TunedSchedulesTest} as well, in posit8
 * and float16 too, with -Pexhaustive.
 */
@Execution(ExecutionMode.CONCURRENT)
class DoubleSumsTest {
    private static final String[] DATATYPES = {"custom[posit]16", "custom[posit]8", "bfloat16", "float16", "custom[fp8e4m3]8", "fxp16_8"};
    /** A posit, an IEEE-style float with infinities and one without, and fixed point for the default run; all six with -Pexhaustive. */
    private static final String[] DEFAULT_DATATYPES = {"custom[posit]16", "bfloat16", "custom[fp8e4m3]8", "fxp16_8"};
    private static final Set<String> DEFAULT_CASES = Set.of("register tiles, 20 maps, uneven pads, dilation", "padded planes, groups, 7 maps",
        "gemm, constant transposed B, C, alpha, beta");
    /** What the compiler schedules a node for whose exact sums may run in double on an AVX-512 host: tiles of 8 doubles. */
    static final NodeArithmetic EXACT_IN_DOUBLE = new NodeArithmetic(16, false, 8);

    /** Two rows of 128 sums taken together, B at run time, as tiles of 64 columns in registers (DoubleSums' RowTiles). */
    private static final TunedSchedulesTest.Case TILED = new TunedSchedulesTest.Case("matmul, B at run time, 128 columns, rows in tiles",
        TunedSchedulesTest.Schedule.ROW_OF_SUMS, "MatMul", Map.of(), List.of(new long[] {4, 9}, new long[] {9, 128}), new boolean[] {false, false});

    static Stream<Arguments> defaultCases() { return cases(c -> c == TILED || DEFAULT_CASES.contains(c.name()), DEFAULT_DATATYPES); }

    static Stream<Arguments> allCases() { return cases(c -> true, DATATYPES); }

    private static Stream<Arguments> cases(Predicate<TunedSchedulesTest.Case> chosen, String[] datatypes) {
        return Stream.concat(TunedSchedulesTest.CASES.stream(), Stream.of(TILED)).filter(chosen)
            .flatMap(c -> Arrays.stream(datatypes).map(d -> Arguments.of(c, d)));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("defaultCases")
    void sumsInDoubleOrInTheQuireGiveTheReferenceBits(TunedSchedulesTest.Case c, String datatype) {
        check(c, datatype);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("allCases")
    void everyScheduleSumsInDoubleOrInTheQuireGivingTheReferenceBits(TunedSchedulesTest.Case c, String datatype) {
        check(c, datatype);
    }

    /** A NaN among constant weights sends every sum to the quire: the kernel keeps its loops as they are. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("datatypes")
    void aNaNAmongTheWeightsKeepsTheQuire(String datatype) {
        TunedSchedulesTest.Case c = TunedSchedulesTest.CASES.stream().filter(x -> x.name().startsWith("gemm, constant")).findFirst().orElseThrow();
        Graph graph = c.graph();
        Tensor b = graph.nodes().getFirst().input(1).constant();
        b.setFloat(5, Float.NaN);
        Program scheduled = GraphLowering.lowerScheduled(graph, node -> EXACT_IN_DOUBLE);
        Kernel kernel = DecodedOperands.apply(DatatypePlan.uniform(scheduled, registered(datatype, AccumulationMode.EXACT))).program().kernels().getFirst();
        assertEquals(scheduled.kernels().getFirst().body(), kernel.body());
        List<Tensor> inputs = c.runtimeInputs();
        assertArrayEquals(bits(perProduct(GraphLowering.lower(graph)), datatype, inputs), bits(scheduled, datatype, inputs));
    }

    static Stream<String> datatypes() { return Stream.of("custom[posit]16", "bfloat16"); }

    private static void check(TunedSchedulesTest.Case c, String datatype) {
        Graph graph = c.graph();
        Program reference = perProduct(GraphLowering.lower(graph));
        Program scheduled = GraphLowering.lowerScheduled(graph, node -> EXACT_IN_DOUBLE);
        List<String> names = List.of("grid", "wide range", "a NaN", "infinities");
        List<List<Tensor>> data = List.of(c.runtimeInputs(), wideRange(c.runtimeInputs()), withSpecials(c.runtimeInputs(), Float.NaN, Float.NaN),
            withSpecials(c.runtimeInputs(), Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY));
        List<Tensor> expected = runEach(reference, datatype, AccumulationMode.EXACT, data), actual = runEach(scheduled, datatype, AccumulationMode.EXACT, data);
        for (int set = 0; set < data.size(); set++) {
            assertArrayEquals(TunedSchedulesTest.bits(expected.get(set)), TunedSchedulesTest.bits(actual.get(set)), c + " in " + datatype + ", " + names.get(set));
        }
        assertArrayEquals(TunedSchedulesTest.bits(expected.getFirst()), bits(doubleBranch(scheduled, datatype), datatype, data.getFirst()),
            c + " in " + datatype + ": the double branch alone");
    }

    /** The kernel as the pass makes it, its check replaced by the branch that sums in double (under a name the pass leaves alone). */
    private static Program doubleBranch(Program scheduled, String datatype) {
        Program p = DecodedOperands.apply(DatatypePlan.uniform(scheduled, registered(datatype, AccumulationMode.EXACT))).program();
        Kernel k = p.kernels().getFirst();
        List<Stmt> body = new ArrayList<>(k.body().subList(0, k.body().size() - 1));
        body.addAll(assertInstanceOf(Stmt.If.class, k.body().getLast()).then());
        Kernel fast = new Kernel(k.name(), k.opType(), k.inputs(), k.outputs(), k.scratch(), k.constants(), body);
        if (k.inputs().get(1).dim(1) == 128) {
            assertTrue(k.scratch().stream().anyMatch(b -> b.name().endsWith(".tile")), "rows of 128 sums are taken in tiles");
        }
        return perProduct(new Program(p.name(), List.of(fast), p.inputs(), p.inputSpecs(), p.outputs(), p.outputSpecs(), p.constants(), p.temporaries()));
    }

    /**
     * Each value times 2^e, e from -24 to 14: products whose lowest and highest bits lie too far apart for a double,
     * and no value beyond float16's range (an infinite weight times a padded plane's 0 is NaN, where the reference
     * nest, which skips the padding, has no such term).
     */
    static List<Tensor> wideRange(List<Tensor> inputs) {
        Random random = new Random(7);
        for (Tensor t : inputs) {
            for (long i = 0; i < t.elementCount(); i++) t.setFloat(i, Math.scalb(t.getFloat(i), random.nextInt(39) - 24));
        }
        return inputs;
    }

    /** The first operand with {@code first} at its first element and {@code last} at its last. */
    static List<Tensor> withSpecials(List<Tensor> inputs, float first, float last) {
        Tensor t = inputs.getFirst();
        t.setFloat(0, first);
        t.setFloat(t.elementCount() - 1, last);
        return inputs;
    }

    private static int[] bits(Program program, String datatype, List<Tensor> inputs) {
        return TunedSchedulesTest.bits(run(program, datatype, AccumulationMode.EXACT, inputs));
    }
}
