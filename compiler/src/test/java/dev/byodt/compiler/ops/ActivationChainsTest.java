package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.MultiplyAdd;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static dev.byodt.compiler.ops.TunedSchedulesTest.bits;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Chains of element-wise nodes computed by the kernel of the node before them ({@link FusedActivations},
 * {@link ActivationChain}) give what the nodes' separate reference nests give, bit for bit, compiled (with one
 * rounding or two in the convolutions' sums) and interpreted: SiLU after a pointwise convolution, a residual Add
 * (its convolution the second operand) then Relu after register tiles, per-channel and scalar constants after a
 * depthwise convolution, BatchNormalization then Relu, Sigmoid then the Mul of its own input, an Add of a broadcast
 * gate, and an operand computed after the chain's producer. Each chain's values are on both sides of its
 * activations' corners, so a kernel that applied them in another order, to another operand, or at another element
 * would differ. Where a value inside the chain is also read elsewhere or is a graph output, the chain stops before
 * it or is not formed.
 */
@Execution(ExecutionMode.CONCURRENT)
class ActivationChainsTest {
    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void siluAfterAPointwiseConvolution(MultiplyAdd mode) {
        Net net = new Net();
        Value c = net.node("Conv", net.input("x", 1, 8, 5, 6), net.constant("w", 20, 8, 1, 1), net.constant("b", 20));
        Value silu = net.node("Mul", c, net.node("Sigmoid", c));
        checkAgainstTheReference(net.graph(silu), mode, 1);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void residualAddThenReluAfterRegisterTiles(MultiplyAdd mode) {
        Net net = new Net();
        Value skip = net.input("skip", 1, 20, 7, 9);
        Value c = net.node("Conv", attributes("pads", new long[] {1, 1, 1, 1}), net.input("x", 1, 3, 7, 9),
            net.constant("w", 20, 3, 3, 3), net.constant("b", 20));
        checkAgainstTheReference(net.graph(net.node("Relu", net.node("Add", skip, c))), mode, 1);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void perChannelAndScalarConstantsAfterADepthwiseConvolution(MultiplyAdd mode) {
        Net net = new Net();
        Value c = net.node("Conv", attributes("group", 4L, "pads", new long[] {1, 1, 1, 1}), net.input("x", 2, 4, 9, 11),
            net.constant("w", 4, 1, 3, 3));
        Value scaled = net.node("Mul", c, net.constant("scale", 4, 1, 1));
        Value shifted = net.node("Sub", net.constant("shift", 1, 4, 1, 1), scaled);
        Value divided = net.node("Div", shifted, net.constant("three", Tensor.ofFloats(new long[0], new float[] {3f})));
        Value clipped = net.node("Clip", divided, net.constant("lo", Tensor.ofFloats(new long[0], new float[] {-0.5f})),
            net.constant("hi", Tensor.ofFloats(new long[0], new float[] {1.25f})));
        checkAgainstTheReference(net.graph(net.node("HardSwish", clipped)), mode, 1);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void batchNormalizationThenRelu(MultiplyAdd mode) {
        Net net = new Net();
        float[] variance = ScheduleCases.gridValues(new long[] {5}, new Random(5)).toFloatArray();
        for (int i = 0; i < variance.length; i++) variance[i] = Math.abs(variance[i]) + 0.25f;
        Value normalized = net.node("BatchNormalization", net.input("x", 2, 5, 3, 4), net.constant("scale", 5),
            net.constant("bias", 5), net.constant("mean", 5), net.constant("var", Tensor.ofFloats(new long[] {5}, variance)));
        checkAgainstTheReference(net.graph(net.node("Relu", normalized)), mode, 1);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void sigmoidThenTheMulOfItsInput(MultiplyAdd mode) {
        Net net = new Net();
        Value x = net.input("x", 2, 6, 4, 5);
        checkAgainstTheReference(net.graph(net.node("Mul", x, net.node("Sigmoid", x))), mode, 1);
    }

    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void addThenReluThenABroadcastGate(MultiplyAdd mode) {
        Net net = new Net();
        Value sum = net.node("Add", net.input("x", 2, 6, 4, 5), net.input("y", 2, 6, 4, 5));
        Value gated = net.node("Mul", net.node("Relu", sum), net.input("gate", 2, 6, 1, 1));
        checkAgainstTheReference(net.graph(gated), mode, 1);
    }

    /** A ResNet block's shortcut convolution after the block's: the chain's kernel runs where its Relu stood. */
    @ParameterizedTest
    @EnumSource(MultiplyAdd.class)
    void anOperandComputedAfterTheProducer(MultiplyAdd mode) {
        Net net = new Net();
        Value x = net.input("x", 1, 6, 5, 5);
        Value block = net.node("Conv", attributes("pads", new long[] {1, 1, 1, 1}), x, net.constant("w1", 16, 6, 3, 3));
        Value shortcut = net.node("Conv", x, net.constant("w2", 16, 6, 1, 1));
        checkAgainstTheReference(net.graph(net.node("Relu", net.node("Add", block, shortcut))), mode, 2);
    }

    @Test
    void aValueReadOutsideTheChainOrReturnedEndsItBefore() {
        Net returned = new Net();
        Value c = returned.node("Conv", returned.input("x", 1, 8, 5, 6), returned.constant("w", 20, 8, 1, 1));
        Value s = returned.node("Sigmoid", c);
        checkAgainstTheReference(returned.graph(returned.node("Mul", c, s), s), MultiplyAdd.SEPARATE, 3);

        Net readTwice = new Net();
        Value skip = readTwice.input("skip", 1, 20, 7, 9);
        Value sum = readTwice.node("Add", readTwice.node("Conv", readTwice.input("x", 1, 8, 7, 9), readTwice.constant("w", 20, 8, 1, 1)), skip);
        Value relu = readTwice.node("Relu", sum);
        checkAgainstTheReference(readTwice.graph(relu, readTwice.node("Neg", sum)), MultiplyAdd.SEPARATE, 3);
    }

    @Test
    void pairsTheCallerRefusesKeepTheirKernels() {
        Net net = new Net();
        Value c = net.node("Conv", net.input("x", 1, 8, 5, 6), net.constant("w", 20, 8, 1, 1));
        Value s = net.node("Sigmoid", c);
        Graph graph = net.graph(net.node("Mul", c, s));
        Program refusedMul = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(16, true),
            (node, bufferOf) -> Optional.empty(), (producer, activation) -> !activation.opType().equals("Mul"));
        assertEquals(3, refusedMul.kernels().size(), "without its Mul no chain closes: the Conv's output is the Mul's operand");
    }

    /**
     * A chain whose Mul computes in bfloat16 is not fused into the float32 kernels before it, so the Mul still rounds
     * to bfloat16: the model gives the bits it gives when the Sigmoid's output is also returned, which no chain can
     * span. An operand computed in bfloat16 is read by the fused kernel as the separate Add read it.
     */
    @Test
    void nodesInAnotherDatatypeKeepTheirRoundings() {
        Net net = new Net();
        Value c = net.node("Conv", net.input("x", 1, 8, 5, 6), net.constant("w", 20, 8, 1, 1));
        Value s = net.node("Sigmoid", c);
        Value silu = net.node("Mul", c, s);
        List<Tensor> inputs = List.of(ScheduleCases.gridValues(new long[] {1, 8, 5, 6}, new Random(3)));
        CompileOptions mulInBfloat16 = inBfloat16(net.nodes.getLast());
        assertArrayEquals(bits(compiledGraph(net.graph(silu, s), mulInBfloat16, inputs).getFirst()),
            bits(compiledGraph(net.graph(silu), mulInBfloat16, inputs).getFirst()), "the Mul in bfloat16");

        Net residual = new Net();
        Value x = residual.input("x", 1, 8, 5, 6);
        Value negated = residual.node("Neg", residual.node("Sigmoid", x));
        CompileOptions negationInBfloat16 = inBfloat16(residual.nodes.getLast());
        Value convolved = residual.node("Conv", x, residual.constant("w", 8, 8, 1, 1));
        Value relu = residual.node("Relu", residual.node("Add", convolved, negated));
        assertEquals(2, GraphLowering.lowerScheduled(residual.graph(relu), node -> new NodeArithmetic(16, true),
            (node, bufferOf) -> Optional.empty(), (producer, activation) -> true).kernels().size(), "Sigmoid with Neg, Conv with Add and Relu");
        assertArrayEquals(bits(compiledGraph(residual.graph(relu, convolved), negationInBfloat16, inputs).getFirst()),
            bits(compiledGraph(residual.graph(relu), negationInBfloat16, inputs).getFirst()), "the Add's operand in bfloat16");
    }

    /** Compile options without fused chains (what bench-dtypes measures by) give every node its own kernel function. */
    @Test
    void optionsWithoutFusedChainsKeepEveryKernel() {
        Net net = new Net();
        Value relu = net.node("Relu", net.node("Conv", net.input("x", 1, 8, 5, 6), net.constant("w", 20, 8, 1, 1)));
        CompileOptions unoptimized = CompileOptions.host().withOptimize(false);
        assertEquals(List.of("Conv"), kernelOperators(net.graph(relu), unoptimized), "fused");
        assertEquals(List.of("Conv", "Relu"), kernelOperators(net.graph(relu), unoptimized.withFusedChains(false)), "unfused");
    }

    /** A kernel function's name, "k1.Conv.node": its operator is group 1. */
    private static final Pattern KERNEL_FUNCTION = Pattern.compile("@\"?k\\d+\\.(\\w+)\\.");

    /** The operator of each kernel function the module defines, in order. */
    private static List<String> kernelOperators(Graph graph, CompileOptions options) {
        try (CompiledModule module = Compiler.compile(graph, options)) {
            return module.printIr().lines().filter(line -> line.startsWith("define"))
                .map(KERNEL_FUNCTION::matcher).filter(Matcher::find).map(m -> m.group(1)).toList();
        }
    }

    private static CompileOptions inBfloat16(Node node) {
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32()
            .withOverrides(List.of(new DatatypeChoice.Override(node.name(), "bfloat16"))));
    }

    private static List<Tensor> compiledGraph(Graph graph, CompileOptions options, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            return model.run(inputs);
        }
    }

    /**
     * The fused program has {@code kernels} kernels and gives the reference's bits, compiled and interpreted; the
     * reference has one kernel a node.
     */
    private static void checkAgainstTheReference(Graph graph, MultiplyAdd mode, int kernels) {
        Random random = new Random(3);
        List<Tensor> inputs = graph.inputs().stream().map(v -> ScheduleCases.gridValues(v.type().shape(), random)).toList();
        Program reference = GraphLowering.lower(graph);
        assertEquals(graph.nodes().size(), reference.kernels().size(), "the reference has a kernel a node");
        List<Tensor> expected = run(reference, mode, inputs);
        Program fused = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(16, true), (node, bufferOf) -> Optional.empty(),
            (producer, activation) -> true);
        assertEquals(kernels, fused.kernels().size(), "kernels after fusion");
        List<Tensor> compiled = run(fused, mode, inputs);
        List<Tensor> interpreted = GraphInterpreter.run(fused, inputs, mode);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(bits(expected.get(i)), bits(compiled.get(i)), "compiled, output " + i);
            assertArrayEquals(bits(expected.get(i)), bits(interpreted.get(i)), "interpreted, output " + i);
        }
    }

    private static List<Tensor> run(Program program, MultiplyAdd mode, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(program, CompileOptions.host().withMultiplyAdd(mode));
             HostModel model = Compiler.jit(module)) {
            return model.run(inputs);
        }
    }
}
