package dev.byodt.compiler.train;

import dev.byodt.compiler.CasesInTurn;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static dev.byodt.compiler.ops.ScheduleCases.gridValues;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tuned schedules of the training step compute what the reference nests compute, bit for bit. Each gradient
 * rule with schedules (Conv's weights, input and bias, Gemm's A and B) on shapes that reach their cases: padding
 * (the weights' mask of taps inside the input), groups, strides and dilations (where the input's gradient keeps the
 * reference nest, runs on padded planes, or, with no column padded, scatters dY's rows), a window over the whole input, transposed Gemm operands; in float32 and
 * in posits of 8 and 16 bits (by default each case in one of them, taken in turn; -Pexhaustive every other
 * pairing), for 1 and 16 lanes. Then a whole training step of the small CNN (Conv, Tanh, pools,
 * Gemm, Relu, the loss and Adam), tuned against reference, in float32 and posit16.
 */
@Execution(ExecutionMode.CONCURRENT)
class TunedGradientsTest {
    private static final String[] DATATYPES = {"float32", "custom[posit]16", "custom[posit]8"};
    private static final int[] LANES = {1, 16};

    /** One node whose inputs are all differentiated. */
    private record Case(String name, String opType, Map<String, Attribute> attributes, List<long[]> inputShapes) {
        @Override
        public String toString() { return name; }

        TrainableGraph graph() {
            Random random = new Random(name.hashCode());
            List<Value> inputs = new ArrayList<>();
            Map<Value, Tensor> values = new LinkedHashMap<>();
            for (int i = 0; i < inputShapes.size(); i++) {
                Value v = new Value("in" + i);
                v.setType(new TensorType(ElementType.FLOAT32, inputShapes.get(i)));
                inputs.add(v);
                values.put(v, gridValues(inputShapes.get(i), random));
            }
            Value y = new Value("y");
            Node node = new Node(name, opType, "", 13, inputs, List.of(y), attributes);
            y.setType(Operators.lookup(opType).inferTypes(node).getFirst());
            return new TrainableGraph(new Graph(name, inputs, List.of(y), List.of(node)), values);
        }

        List<Tensor> inputs(TrainableGraph graph) {
            List<Tensor> all = new ArrayList<>(graph.weights().values());
            all.add(gridValues(graph.graph().outputs().getFirst().type().shape(), new Random(name.hashCode() + 1)));
            return all;
        }
    }

    private static long[] s(long... dims) { return dims; }

    private static final List<Case> CASES = List.of(
        new Case("conv, padded, as LeNet's first layer", "Conv", attributes("pads", s(2, 2, 2, 2)),
            List.of(s(2, 1, 12, 12), s(3, 1, 5, 5), s(3))),
        new Case("conv, groups, stride 2, padded", "Conv", attributes("group", 2L, "strides", s(2, 2), "pads", s(1, 1, 1, 1)),
            List.of(s(2, 4, 9, 8), s(6, 2, 3, 3), s(6))),
        new Case("conv, dilated, uneven pads", "Conv", attributes("dilations", s(2, 1), "pads", s(1, 0, 2, 1)),
            List.of(s(1, 3, 10, 9), s(4, 3, 3, 2))),
        new Case("conv, pads beyond the window's reach", "Conv", attributes("pads", s(0, 2, 0, 2)),
            List.of(s(1, 2, 6, 6), s(3, 2, 3, 2))),
        new Case("conv, rows padded, columns not, groups, dilated", "Conv",
            attributes("pads", s(1, 0, 2, 0), "group", 2L, "dilations", s(2, 2)), List.of(s(2, 4, 9, 8), s(6, 2, 3, 2), s(6))),
        new Case("conv, unpadded, as LeNet's second layer", "Conv", Map.of(), List.of(s(2, 3, 9, 9), s(4, 3, 3, 3), s(4))),
        new Case("conv, window over the whole input", "Conv", Map.of(), List.of(s(3, 4, 5, 5), s(7, 4, 5, 5), s(7))),
        new Case("conv, groups, window over the whole input", "Conv", attributes("group", 2L),
            List.of(s(2, 4, 3, 3), s(6, 2, 3, 3), s(6))),
        new Case("conv, 1-D", "Conv", attributes("pads", s(1, 1)), List.of(s(2, 3, 11), s(5, 3, 3), s(5))),
        new Case("gemm, transposed B, alpha, beta", "Gemm", attributes("transB", 1L, "alpha", 0.5f, "beta", 2f),
            List.of(s(5, 7), s(3, 7), s(3))),
        new Case("gemm, transposed A, C a column", "Gemm", attributes("transA", 1L), List.of(s(6, 4), s(6, 5), s(4, 1))),
        new Case("gemm, both transposed", "Gemm", attributes("transA", 1L, "transB", 1L), List.of(s(6, 4), s(5, 6), s(5))));

    static Stream<Arguments> eachCaseInOneDatatype() {
        return CasesInTurn.eachCaseInOneVariant(CASES, CasesInTurn.oneArgumentEach((Object[]) DATATYPES));
    }

    static Stream<Arguments> everyOtherDatatype() {
        return CasesInTurn.everyOtherPairing(CASES, CasesInTurn.oneArgumentEach((Object[]) DATATYPES));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("eachCaseInOneDatatype")
    void everyGradientScheduleComputesTheReferenceBitForBit(Case c, String datatype) {
        checkAgainstTheReference(c, datatype);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("everyOtherDatatype")
    void everyGradientScheduleInEveryOtherDatatype(Case c, String datatype) {
        checkAgainstTheReference(c, datatype);
    }

    private static void checkAgainstTheReference(Case c, String datatype) {
        TrainableGraph graph = c.graph();
        List<Tensor> inputs = c.inputs(graph);
        List<int[]> reference = bits(run(GradientProgram.of(graph), datatype, inputs));
        for (int lanes : LANES) {
            // The machine's float32 arithmetic in float32, emulated in the posits, as Compiler.arithmeticOf says on the host.
            Program tuned = GradientProgram.of(graph, Optional.of(node -> new NodeArithmetic(lanes, datatype.equals("float32"))));
            assertBitsEqual(reference, bits(run(tuned, datatype, inputs)), c + " in " + datatype + ", " + lanes + " lanes");
            if (datatype.equals("float32")) {
                assertBitsEqual(reference, bits(GraphInterpreter.run(tuned, inputs)), c + " interpreted, " + lanes + " lanes");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16"})
    void aTunedTrainingStepComputesTheReferenceStepBitForBit(String datatype) {
        TrainableGraph graph = SampleBatches.smallCnn();
        Optimizer adam = new Optimizer(Optimizer.Kind.ADAM, 0.001, 0, 0, 0.9, 0.999, 1e-8);
        Program reference = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE, Optional.empty());
        Program tuned = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE,
            Optional.of(Compiler.arithmeticOf(CompileOptions.host().withDatatype(datatype))));
        List<Tensor> inputs = SampleBatches.adamStepInputs(reference.inputSpecs(), graph, adam);
        assertBitsEqual(bits(run(reference, datatype, inputs)), bits(run(tuned, datatype, inputs)), "training step in " + datatype);
    }

    /**
     * float32's training step with fused multiply-adds (the gradients' sums, the forward pass's): the tuned step
     * computes the reference step's bits, and other bits than with separate ones. (The interpreter is no reference
     * for a whole step: its exp and log are Java's, float32.c's may be a neighbour.)
     */
    @Test
    void aTunedTrainingStepWithFusedMultiplyAddsComputesTheReferenceStep() {
        TrainableGraph graph = SampleBatches.smallCnn();
        Optimizer adam = new Optimizer(Optimizer.Kind.ADAM, 0.001, 0, 0, 0.9, 0.999, 1e-8);
        CompileOptions fused = CompileOptions.host().withMultiplyAdd(MultiplyAdd.FUSED);
        Program reference = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE, Optional.empty());
        Program tuned = TrainingStep.of(graph, Loss.CROSS_ENTROPY, adam, LossScaling.NONE, Optional.of(Compiler.arithmeticOf(fused)));
        List<Tensor> inputs = SampleBatches.adamStepInputs(reference.inputSpecs(), graph, adam);
        List<int[]> expected = bits(run(reference, fused, inputs));
        assertBitsEqual(expected, bits(run(tuned, fused, inputs)), "fused training step");
        List<int[]> separate = bits(run(reference, CompileOptions.host(), inputs));
        assertTrue(IntStream.range(0, expected.size()).anyMatch(i -> !Arrays.equals(expected.get(i), separate.get(i))),
            "the step's values tell one rounding from two");
    }

    private static List<Tensor> run(Program program, String datatype, List<Tensor> inputs) {
        return run(program, CompileOptions.host().withDatatype(datatype), inputs);
    }

    private static List<Tensor> run(Program program, CompileOptions options, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(program, options);
             HostModel model = Compiler.jit(module)) {
            return model.run(inputs);
        }
    }

    private static List<int[]> bits(List<Tensor> tensors) {
        return tensors.stream().map(t -> t.type() == ElementType.INT64
            ? Arrays.stream(t.toLongArray()).mapToInt(Math::toIntExact).toArray()
            : toBits(t.toFloatArray())).toList();
    }

    private static int[] toBits(float[] values) {
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Float.floatToRawIntBits(values[i]);
        return bits;
    }

    private static void assertBitsEqual(List<int[]> expected, List<int[]> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": outputs");
        for (int i = 0; i < expected.size(); i++) assertArrayEquals(expected.get(i), actual.get(i), what + ", output " + i);
    }
}
