package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.codegen.SplitCost;
import dev.byodt.compiler.codegen.SplitLoops;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static dev.byodt.compiler.ops.ScheduleCases.gridValues;
import static dev.byodt.compiler.ops.TunedSchedulesTest.bits;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A model compiled for several threads computes the same bits as on one: every tuned schedule of Conv, MatMul
 * and Gemm divides its work among 2 and 3 threads (3: more threads than some loops have iterations; chunks of
 * unequal size), and a small network whose split kernels alternate with kernels that part 0 runs alone (the other
 * threads wait for part 0 to open each split kernel) gives the same outputs call after call, in float32 and in posit16
 * (whose products decode their operands into scratch buffers first). These cases are small: they are compiled to
 * divide every loop they may ({@code withLeastSplitWork(0)}), and one network with the default least work, where
 * only its large convolution is divided.
 */
@Execution(ExecutionMode.CONCURRENT)
class SplitWorkTest {
    /**
     * The cases whose split loop has one iteration: a vector times a matrix (one row), 5 maps on padded planes (taken
     * together, one block of maps), a 1-D convolution across maps (its one row of 8 positions taken together) and
     * a Gemm of 3 rows and 18 columns (one register tile).
     */
    private static final Set<String> NOTHING_TO_DIVIDE = Set.of("matmul, vector times constant matrix",
        "padded planes, uneven pads, dilation", "across maps, 1-D, dilation 2, odd row",
        "gemm, constant transposed B, C, alpha, beta");

    static Stream<TunedSchedulesTest.Case> cases() {
        return TunedSchedulesTest.CASES.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyScheduleSplitsItsWorkWithTheSameBits(TunedSchedulesTest.Case c) {
        String datatype = "float32";
        Program scheduled = GraphLowering.lowerScheduled(c.graph(), node -> TunedSchedulesTest.FLOAT32_VECTORS);
        assertEquals(!NOTHING_TO_DIVIDE.contains(c.name()), SplitLoops.of(scheduled.kernels().getFirst()).isPresent(),
            c + " splits a loop");
        List<Tensor> inputs = c.runtimeInputs();
        int[] oneThread = bits(run(scheduled, datatype, 1, inputs, 1).getFirst());
        for (int threads : new int[] {2, 3}) {
            assertArrayEquals(oneThread, bits(run(scheduled, datatype, threads, inputs, 1).getFirst()),
                c + " in " + datatype + " on " + threads + " threads");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16"})
    void aNetworkOfSplitAndSingleThreadKernelsKeepsItsBitsCallAfterCall(String datatype) {
        Graph net = residualNet();
        Program scheduled = GraphLowering.lowerScheduled(net, node -> TunedSchedulesTest.FLOAT32_VECTORS);
        long split = scheduled.kernels().stream().filter(k -> SplitLoops.of(k).isPresent()).count();
        assertEquals(5, split, "the three convolutions, the Relu and the Add split their work (the Gemm has one row)");
        Random random = new Random(7);
        List<Tensor> inputs = List.of(gridValues(new long[] {1, 3, 12, 12}, random));
        List<Tensor> oneThread = run(scheduled, datatype, 1, inputs, 1);
        for (Tensor t : run(scheduled, datatype, 2, inputs, 50, 0)) {
            assertArrayEquals(bits(oneThread.getFirst()), bits(t), "logits on 2 threads in " + datatype);
        }
    }

    /**
     * A convolution long enough (256 maps of 28x28, each of its chunks about a millisecond) that the worker is
     * often still in a chunk when the caller has finished its own, followed by a kernel the caller runs alone: that
     * kernel must see every map, which it does only if the caller waits for the chunks the worker took.
     */
    @Test
    void theKernelAfterADividedOneSeesEveryChunk() {
        Random random = new Random(5);
        List<Node> nodes = new ArrayList<>();
        Value image = value("image", 1, 256, 28, 28);
        Value conv = node(nodes, "conv", "Conv", attributes("pads", s(1, 1, 1, 1)), image, weights(random, 256, 256, 3, 3));
        Value pooled = node(nodes, "pool", "GlobalAveragePool", Map.of(), conv);
        Program scheduled = GraphLowering.lowerScheduled(new Graph("conv", List.of(image), List.of(pooled), nodes), node -> TunedSchedulesTest.FLOAT32_VECTORS);
        assertEquals(2, scheduled.kernels().size(), "the convolution and the pooling are kernels of their own");
        List<Tensor> inputs = List.of(gridValues(new long[] {1, 256, 28, 28}, random));
        int[] oneThread = bits(run(scheduled, "float32", 1, inputs, 1).getFirst());
        for (Tensor t : run(scheduled, "float32", 2, inputs, 60)) {
            assertArrayEquals(oneThread, bits(t), "the pooling after a convolution divided between 2 threads");
        }
    }

    /**
     * Conv 3x3 of 16 maps to 32 at 32x32 (4.7 million multiply-adds) -> Relu -> GlobalAveragePool -> Flatten ->
     * Gemm (10 classes), with the default least work to divide: the threads divide the convolution, while the Relu
     * (32,768 elements) and the pooling (two vectors of channels), which they might divide, run on the caller's
     * thread, and the outputs keep their bits.
     */
    @Test
    void onlyAKernelWithTheWorkToPayForItIsDividedAndTheBitsStay() {
        Random random = new Random(13);
        List<Node> nodes = new ArrayList<>();
        Value image = value("image", 1, 16, 32, 32);
        Value conv = node(nodes, "conv", "Conv", attributes("pads", s(1, 1, 1, 1)), image, weights(random, 32, 16, 3, 3),
            weights(random, 32));
        Value relu = node(nodes, "relu", "Relu", Map.of(), conv);
        Value pooled = node(nodes, "pool", "GlobalAveragePool", Map.of(), relu);
        Value flat = node(nodes, "flatten", "Flatten", Map.of(), pooled);
        Value logits = node(nodes, "fc", "Gemm", attributes("transB", 1L), flat, weights(random, 10, 32), weights(random, 10));
        Program scheduled = GraphLowering.lowerScheduled(new Graph("small", List.of(image), List.of(logits), nodes),
            node -> TunedSchedulesTest.FLOAT32_VECTORS);
        Map<String, Boolean> divided = new HashMap<>();
        Map<String, Boolean> divisible = new HashMap<>();
        for (Kernel k : scheduled.kernels()) {
            divided.put(k.opType(), SplitCost.chunks(k, 2, SplitCost.LEAST_WORK) > 0);
            divisible.put(k.opType(), SplitLoops.of(k).isPresent());
        }
        assertEquals(Map.of("Conv", true, "Relu", true, "GlobalAveragePool", true, "Flatten", false, "Gemm", false), divisible);
        assertEquals(Map.of("Conv", true, "Relu", false, "GlobalAveragePool", false, "Flatten", false, "Gemm", false), divided);
        List<Tensor> inputs = List.of(gridValues(new long[] {1, 16, 32, 32}, random));
        int[] oneThread = bits(run(scheduled, "float32", 1, inputs, 1).getFirst());
        for (Tensor t : run(scheduled, "float32", 2, inputs, 30, SplitCost.LEAST_WORK)) {
            assertArrayEquals(oneThread, bits(t), "logits on 2 threads, the convolution divided");
        }
    }

    /**
     * Conv 3x3 (8 maps) -> Relu -> depthwise Conv 3x3 -> Add (the Relu's output) -> Conv 1x1 stride 2 (16 maps)
     * -> GlobalAveragePool -> Flatten -> Gemm (10 classes), on a 1x3x12x12 image, weights on a grid.
     */
    private static Graph residualNet() {
        Random random = new Random(11);
        List<Node> nodes = new ArrayList<>();
        Value image = value("image", 1, 3, 12, 12);
        Value conv1 = node(nodes, "conv1", "Conv", attributes("pads", s(1, 1, 1, 1)),
            image, weights(random, 8, 3, 3, 3), weights(random, 8));
        Value relu = node(nodes, "relu", "Relu", Map.of(), conv1);
        Value depthwise = node(nodes, "depthwise", "Conv", attributes("pads", s(1, 1, 1, 1), "group", 8L),
            relu, weights(random, 8, 1, 3, 3), weights(random, 8));
        Value sum = node(nodes, "add", "Add", Map.of(), depthwise, relu);
        Value conv2 = node(nodes, "conv2", "Conv", attributes("strides", s(2, 2)), sum, weights(random, 16, 8, 1, 1));
        Value pooled = node(nodes, "pool", "GlobalAveragePool", Map.of(), conv2);
        Value flat = node(nodes, "flatten", "Flatten", Map.of(), pooled);
        Value logits = node(nodes, "fc", "Gemm", attributes("transB", 1L), flat, weights(random, 10, 16), weights(random, 10));
        return new Graph("residual", List.of(image), List.of(logits), nodes);
    }

    /** Appends a node of one output to {@code nodes}; returns its output, typed. */
    private static Value node(List<Node> nodes, String name, String opType, Map<String, Attribute> attributes, Value... inputs) {
        Value out = new Value(name + ".out");
        Node node = new Node(name, opType, "", 13, List.of(inputs), List.of(out), attributes);
        out.setType(Operators.lookup(opType).inferTypes(node).getFirst());
        nodes.add(node);
        return out;
    }

    private static Value value(String name, long... shape) {
        Value v = new Value(name);
        v.setType(new TensorType(ElementType.FLOAT32, shape));
        return v;
    }

    private static Value weights(Random random, long... shape) {
        Value v = value("w" + random.nextInt(1_000_000), shape);
        v.setConstant(gridValues(shape, random));
        return v;
    }

    private static long[] s(long... dims) { return dims; }

    /**
     * The outputs of {@code calls} calls on {@code threads} threads, the first output of each call, every loop that
     * threads may divide divided.
     */
    private static List<Tensor> run(Program program, String datatype, int threads, List<Tensor> inputs, int calls) {
        return run(program, datatype, threads, inputs, calls, 0);
    }

    /** As above, with the threads dividing the runs of loops of at least {@code leastSplitWork} operations. */
    private static List<Tensor> run(Program program, String datatype, int threads, List<Tensor> inputs, int calls,
                                    long leastSplitWork) {
        CompileOptions options = CompileOptions.host().withDatatype(datatype).withThreads(threads).withLeastSplitWork(leastSplitWork);
        try (CompiledModule module = Compiler.compile(program, options); HostModel model = Compiler.jit(module)) {
            List<Tensor> outputs = new ArrayList<>();
            for (int i = 0; i < calls; i++) outputs.add(model.run(inputs).getFirst());
            return outputs;
        }
    }
}
