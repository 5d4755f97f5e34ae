package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static dev.byodt.compiler.ops.TunedSchedulesTest.bits;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A convolution's kernel with the activation of its output fused in computes what the two nodes' reference nests
 * compute, bit for bit, compiled and interpreted, with one rounding or two in its sums: Relu after register tiles,
 * Clip with constant bounds after a depthwise convolution, HardSwish after a strided one along rows. The values are
 * on either side of the activations' corners, so a fused kernel that skipped the activation, or applied it to a
 * partial sum, would differ. Where the output is also read elsewhere, or is a graph output, or the caller does not
 * accept the pair, each node keeps its kernel.
 */
@Execution(ExecutionMode.CONCURRENT)
class FusedActivationsTest {
    /** A Conv of x by constant weights and bias, then {@code activation} of its output (with constant scalar bounds for Clip). */
    private static Graph convThen(String activation, long[] x, long[] w, Map<String, Object> convAttributes, boolean convOutputReadTwice,
                                  boolean convOutputReturned) {
        Random random = new Random(activation.hashCode());
        Value in = typed(new Value("x"), x);
        Value weights = constant(new Value("w"), w, random);
        Value bias = constant(new Value("b"), new long[] {w[0]}, random);
        Value convolved = new Value("convolved");
        Object[] pairs = convAttributes.entrySet().stream().flatMap(e -> Stream.of(e.getKey(), e.getValue())).toArray();
        Node conv = new Node("conv", "Conv", "", 13, List.of(in, weights, bias), List.of(convolved), attributes(pairs));
        convolved.setType(Operators.lookup("Conv").inferTypes(conv).getFirst());
        List<Value> activationInputs = new ArrayList<>(List.of(convolved));
        if (activation.equals("Clip")) {
            activationInputs.add(scalar(new Value("lo"), 0f));
            activationInputs.add(scalar(new Value("hi"), 1.5f));
        }
        Value y = new Value("y");
        Node act = new Node("act", activation, "", 13, activationInputs, List.of(y), Map.of());
        y.setType(convolved.type());
        List<Node> nodes = new ArrayList<>(List.of(conv, act));
        List<Value> outputs = new ArrayList<>(List.of(y));
        if (convOutputReadTwice) {
            Value doubled = new Value("doubled");
            doubled.setType(convolved.type());
            nodes.add(new Node("add", "Add", "", 13, List.of(convolved, convolved), List.of(doubled), Map.of()));
            outputs.add(doubled);
        }
        if (convOutputReturned) outputs.add(convolved);
        return new Graph("fused", List.of(in), outputs, nodes);
    }

    private static Value typed(Value v, long[] shape) {
        v.setType(new TensorType(ElementType.FLOAT32, shape));
        return v;
    }

    private static Value constant(Value v, long[] shape, Random random) {
        typed(v, shape).setConstant(ScheduleCases.gridValues(shape, random));
        return v;
    }

    private static Value scalar(Value v, float value) {
        typed(v, new long[0]).setConstant(Tensor.ofFloats(new long[0], new float[] {value}));
        return v;
    }

    private static Program scheduled(Graph graph) {
        return GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(16, true), (node, bufferOf) -> Optional.empty(),
            (producer, activation) -> true);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void reluAfterRegisterTiles(MultiplyAdd mode) {
        checkFusedAgainstTheReference(convThen("Relu", new long[] {1, 3, 7, 9}, new long[] {20, 3, 3, 3},
            Map.of("pads", new long[] {1, 1, 1, 1}), false, false), mode);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void clipAfterDepthwise(MultiplyAdd mode) {
        checkFusedAgainstTheReference(convThen("Clip", new long[] {2, 4, 9, 11}, new long[] {4, 1, 3, 3},
            Map.of("group", 4L, "pads", new long[] {1, 1, 1, 1}), false, false), mode);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void hardSwishAfterAStridedConvolutionAlongRows(MultiplyAdd mode) {
        checkFusedAgainstTheReference(convThen("HardSwish", new long[] {1, 3, 11, 10}, new long[] {3, 1, 5, 5},
            Map.of("group", 3L, "strides", new long[] {2, 2}, "pads", new long[] {2, 2, 2, 2}), false, false), mode);
    }

    /**
     * A depthwise convolution whose output rows hold a vector stores each row's sums straight into the output, the
     * activation applied there (Clip); where the activation is one of float32's library functions (Sigmoid, computed
     * in double) it keeps its scratch grid of sums and their copy, so that the library function runs in a loop of its
     * own and not in the sums' loop, which LLVM would then vectorize at the library's 8 lanes. Both compute the
     * reference's bits.
     */
    @ParameterizedTest
    @ValueSource(strings = {"Clip", "Sigmoid"})
    void depthwiseRowsGoStraightToTheOutputUnlessTheActivationIsALibraryFunction(String activation) {
        Graph graph = convThen(activation, new long[] {1, 3, 5, 21}, new long[] {3, 1, 3, 3},
            Map.of("group", 3L, "pads", new long[] {1, 1, 1, 1}), false, false);
        List<String> scratch = scheduled(graph).kernels().getFirst().scratch().stream().map(Buffer::name).toList();
        assertEquals(activation.equals("Sigmoid"), scratch.stream().anyMatch(name -> name.contains(".sums")), scratch.toString());
        checkFusedAgainstTheReference(graph, MultiplyAdd.FUSED);
    }

    private static void checkFusedAgainstTheReference(Graph graph, MultiplyAdd mode) {
        List<Tensor> inputs = List.of(ScheduleCases.gridValues(graph.inputs().getFirst().type().shape(), new Random(3)));
        Program reference = GraphLowering.lower(graph);
        assertEquals(2, reference.kernels().size(), "the reference has a kernel a node");
        int[] bits = bits(run(reference, mode, inputs));
        Program fused = scheduled(graph);
        assertEquals(1, fused.kernels().size(), "one kernel computes both nodes");
        assertArrayEquals(bits, bits(run(fused, mode, inputs)), "compiled");
        assertArrayEquals(bits, bits(GraphInterpreter.run(fused, inputs, mode).getFirst()), "interpreted");
    }

    @Test
    void anOutputReadElsewhereOrReturnedOrRefusedKeepsBothKernels() {
        long[] x = {1, 3, 7, 9}, w = {20, 3, 3, 3};
        Map<String, Object> pads = Map.of("pads", new long[] {1, 1, 1, 1});
        assertEquals(3, scheduled(convThen("Relu", x, w, pads, true, false)).kernels().size(), "read by Add too");
        assertEquals(2, scheduled(convThen("Relu", x, w, pads, false, true)).kernels().size(), "a graph output too");
        Graph fusable = convThen("Relu", x, w, pads, false, false);
        assertEquals(2, GraphLowering.lowerScheduled(fusable, node -> new NodeArithmetic(16, true)).kernels().size(), "not accepted");
    }

    /** A kernel whose stores are transformed cannot read the buffer back, where it would see transformed values. */
    @Test
    void aTransformedOutputIsNeverReadBack() {
        Buffer out = new Buffer("y", ScalarType.REAL, new long[] {4});
        KernelBuilder kb = new KernelBuilder("k", "Conv", List.of(), List.of(out));
        kb.transformStores(out, (index, v) -> v, false);
        assertThrows(IllegalStateException.class, () -> kb.load(out, idx(0)));
    }

    private static Tensor run(Program program, MultiplyAdd mode, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host().withMultiplyAdd(mode));
             HostModel model = Compiler.jit(module)) {
            return model.run(inputs).getFirst();
        }
    }
}
