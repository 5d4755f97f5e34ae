package dev.byodt.compiler.ops;

import dev.byodt.compiler.CasesInTurn;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostConversion;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.dtype.LoweringTarget;
import dev.byodt.compiler.dtype.RegisteredDatatype;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
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
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With --accumulate float32, and with dtype where sums run in float32 registers, MatMul, Gemm and Conv decode each
 * element of their operands once ({@link DecodedOperands}) and give the bits they gave when every product decoded
 * its own operands: each tuned schedule of
 * {@link TunedSchedulesTest}'s cases (run-time and constant operands, padded planes) against its operator's
 * reference nest compiled under an operator name the pass leaves alone, so that each of its products calls
 * to_f32 on both operands. float16's to_f32 is inline code rather than a call, so its weights are decoded as
 * the kernel runs rather than at compile time. By default each case runs in one datatype and accumulation,
 * taken in turn (every one is run, each by one or two cases); -Pexhaustive runs every other pairing.
 */
@Execution(ExecutionMode.CONCURRENT)
class DecodedOperandsTest {
    private static final String[] FLOAT32_SUMS = {"custom[posit]16", "custom[posit]8", "bfloat16", "float16", "fxp16_8"};
    /** The datatypes whose dtype sums run in float32 registers; the others' add and mul take no decoded operands. */
    private static final String[] DTYPE_SUMS = {"bfloat16", "custom[fp8e4m3]8", "custom[posit]16"};

    /** Each datatype with the accumulation that decodes its operands. */
    private static List<Object[]> datatypesAndAccumulations() {
        return Stream.concat(Arrays.stream(FLOAT32_SUMS).map(d -> new Object[]{d, AccumulationMode.FLOAT32}),
            Arrays.stream(DTYPE_SUMS).map(d -> new Object[]{d, AccumulationMode.DTYPE})).toList();
    }

    static Stream<Arguments> eachCaseInOneDatatype() {
        return CasesInTurn.eachCaseInOneVariant(TunedSchedulesTest.CASES, datatypesAndAccumulations());
    }

    static Stream<Arguments> everyOtherDatatype() {
        return CasesInTurn.everyOtherPairing(TunedSchedulesTest.CASES, datatypesAndAccumulations());
    }

    @ParameterizedTest(name = "{0} in {1}, accumulate {2}")
    @MethodSource("eachCaseInOneDatatype")
    void decodedOnceGivesTheBitsOfDecodingPerProduct(TunedSchedulesTest.Case c, String datatype, AccumulationMode mode) {
        checkAgainstDecodingPerProduct(c, datatype, mode);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "{0} in {1}, accumulate {2}")
    @MethodSource("everyOtherDatatype")
    void decodedOnceInEveryOtherDatatype(TunedSchedulesTest.Case c, String datatype, AccumulationMode mode) {
        checkAgainstDecodingPerProduct(c, datatype, mode);
    }

    private static void checkAgainstDecodingPerProduct(TunedSchedulesTest.Case c, String datatype, AccumulationMode mode) {
        Graph graph = c.graph();
        List<Tensor> inputs = c.runtimeInputs();
        Program scheduled = GraphLowering.lowerScheduled(graph, node -> TunedSchedulesTest.FLOAT32_VECTORS);
        Program decoded = DecodedOperands.apply(DatatypePlan.uniform(scheduled, registered(datatype, mode))).program();
        Kernel kernel = decoded.kernels().getFirst();
        KernelWalker.forEachExpr(kernel.body(), e -> {
            if (e instanceof Expr.Op o && o.op() == ScalarOp.MAC) {
                assertEquals(List.of(ScalarType.F32, ScalarType.F32), List.of(o.arg(1).type(), o.arg(2).type()), c + ": " + o);
            }
        });
        assertTrue(kernel.loadedBuffers().containsAll(decoded.constants().keySet()), "constants only products read are dropped");

        int[] perProduct = TunedSchedulesTest.bits(run(perProduct(GraphLowering.lower(graph)), datatype, mode, inputs));
        assertArrayEquals(perProduct, TunedSchedulesTest.bits(run(scheduled, datatype, mode, inputs)), c + " in " + datatype);
    }

    /**
     * posit16's dtype sums round within the posit's fraction-bit scales where the check as a kernel starts proves it
     * (RegimeSums), with rounded_f32 elsewhere: each case on its data, within the check, then scaled over 2^-24..2^14
     * (products too small for it) and with a NaR, against the reference nest decoding per product; and the branch
     * within the scales alone, on the first, against the same.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void posit16SumsOnEitherSideOfTheScaleCheck(TunedSchedulesTest.Case c) {
        String posit16 = "custom[posit]16";
        Program reference = perProduct(GraphLowering.lower(c.graph()));
        Program scheduled = GraphLowering.lowerScheduled(c.graph(), node -> TunedSchedulesTest.FLOAT32_VECTORS);
        List<List<Tensor>> data = List.of(c.runtimeInputs(), DoubleSumsTest.wideRange(c.runtimeInputs()),
            DoubleSumsTest.withSpecials(c.runtimeInputs(), Float.NaN, 1));
        List<Tensor> expected = runEach(reference, posit16, AccumulationMode.DTYPE, data), actual = runEach(scheduled, posit16, AccumulationMode.DTYPE, data);
        int[] within = TunedSchedulesTest.bits(expected.getFirst());
        assertArrayEquals(within, TunedSchedulesTest.bits(actual.getFirst()), c + ", within");
        assertArrayEquals(within, TunedSchedulesTest.bits(run(withinBranch(scheduled, posit16), posit16, AccumulationMode.DTYPE, c.runtimeInputs())),
            c + ": the branch within the scales alone");
        for (int set = 1; set < data.size(); set++) {
            assertArrayEquals(TunedSchedulesTest.bits(expected.get(set)), TunedSchedulesTest.bits(actual.get(set)), c + ", beyond the check");
        }
    }

    static Stream<TunedSchedulesTest.Case> cases() { return TunedSchedulesTest.CASES.stream(); }

    /** The kernel as the pass makes it, its check replaced by the branch that rounds within the scales (under a name the pass leaves alone). */
    private static Program withinBranch(Program scheduled, String datatype) {
        Program p = DecodedOperands.apply(DatatypePlan.uniform(scheduled, registered(datatype, AccumulationMode.DTYPE))).program();
        Kernel k = p.kernels().getFirst();
        List<Stmt> body = new ArrayList<>(k.body().subList(0, k.body().size() - 1));
        body.addAll(assertInstanceOf(Stmt.If.class, k.body().getLast()).then());
        Kernel fast = new Kernel(k.name(), k.opType(), k.inputs(), k.outputs(), k.scratch(), k.constants(), body);
        return perProduct(new Program(p.name(), List.of(fast), p.inputs(), p.inputSpecs(), p.outputs(), p.outputSpecs(), p.constants(), p.temporaries()));
    }

    static RegisteredDatatype registered(String name, AccumulationMode mode) {
        DatatypeChoice choice = DatatypeChoice.float32().withDatatype(name);
        DatatypeInstance instance = choice.registry().instance(name, choice.options());
        return new RegisteredDatatype(instance, mode, LoweringTarget.HOST, Optional.empty(),
            new LoweringLog(), (i, fromF64, toF32) -> HostConversion.of(i.library().orElseThrow(), fromF64, toF32, i.storage(), 0));
    }

    /** The program with its kernels renamed to an operator the pass does not decode for. */
    static Program perProduct(Program p) {
        List<Kernel> kernels = new ArrayList<>();
        for (Kernel k : p.kernels()) {
            kernels.add(new Kernel(k.name(), "per-product " + k.opType(), k.inputs(), k.outputs(), k.scratch(), k.constants(), k.body()));
        }
        return new Program(p.name(), kernels, p.inputs(), p.inputSpecs(), p.outputs(), p.outputSpecs(), p.constants(), p.temporaries());
    }

    static Tensor run(Program program, String datatype, AccumulationMode mode, List<Tensor> inputs) {
        return runEach(program, datatype, mode, List.of(inputs)).getFirst();
    }

    /** The program's first output on each set of inputs, compiled once: a compilation costs far more than a run. */
    static List<Tensor> runEach(Program program, String datatype, AccumulationMode mode, List<List<Tensor>> inputSets) {
        CompileOptions options = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype).withAccumulation(mode));
        try (CompiledModule module = Compiler.compile(program, options); HostModel model = Compiler.jit(module)) {
            return inputSets.stream().map(inputs -> model.run(inputs).getFirst()).toList();
        }
    }
}
