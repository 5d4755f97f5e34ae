package dev.byodt.compiler.lower;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.codegen.Programs;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.IntermediateOutputs;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.ops.Net;
import dev.byodt.compiler.ops.ScheduleCases;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concats whose inputs are written in place ({@link ConcatsInPlace}): a DenseNet block shares one buffer and runs no
 * copy, its values' bytes never meet another live buffer's or another operand's of a kernel, and the compiled block
 * gives the reference's bits, on one thread and two, in float32 and in posit16, and with a datatype boundary between
 * its layers; what cannot be in place (the caller's memory, constants, a batch of two, an input another Concat holds,
 * an offset short of a cache line) is copied as before.
 */
@Execution(ExecutionMode.CONCURRENT)
class ConcatsInPlaceTest {
    /** Channels of 4 x 4 float32 elements, a cache line each. */
    private static final long SIDE = 4;
    private static final int LAYERS = 3, STEM = 8, GROWTH = 4;

    /**
     * A DenseNet block at batch 1: a stem convolution, then layers that each normalize the concatenation of the stem's
     * and every earlier layer's features (BatchNormalization, Relu) and convolve it into GROWTH more channels; the
     * block's output, the concatenation of them all, normalized once more.
     */
    private static Graph denseBlock() {
        Net net = new Net();
        Value stem = net.node("Conv", ScheduleCases.attributes("pads", new long[] {1, 1, 1, 1}), net.input("x", 1, 3, SIDE, SIDE),
            net.constant("w0", STEM, 3, 3, 3));
        List<Value> features = new ArrayList<>(List.of(stem));
        for (int layer = 1; layer <= LAYERS; layer++) {
            Value normalized = normalized(net, net.node("Concat", ScheduleCases.attributes("axis", 1L), features.toArray(Value[]::new)));
            features.add(net.node("Conv", ScheduleCases.attributes("pads", new long[] {1, 1, 1, 1}), normalized,
                net.constant("w" + layer, GROWTH, STEM + (layer - 1) * GROWTH, 3, 3)));
        }
        return net.graph(normalized(net, net.node("Concat", ScheduleCases.attributes("axis", 1L), features.toArray(Value[]::new))));
    }

    /** Relu of BatchNormalization, with variances above 0. */
    private static Value normalized(Net net, Value v) {
        long channels = v.type().shape()[1];
        float[] variance = new float[(int) channels];
        for (int c = 0; c < channels; c++) variance[c] = 0.25f + c / 8f;
        return net.node("Relu", net.node("BatchNormalization", v, net.constant("scale" + v.name(), channels),
            net.constant("bias" + v.name(), channels), net.constant("mean" + v.name(), channels),
            net.constant("var" + v.name(), Tensor.ofFloats(new long[] {channels}, variance))));
    }

    @Test
    void aDenseBlockSharesOneBufferAndCopiesNothing() {
        Graph graph = denseBlock();
        Program machine = ConcatsInPlace.apply(DatatypeLowering.lower(GraphLowering.lower(graph), Programs.float32()));
        assertEquals(List.of(), kernelsOf(machine, "Concat"), "no Concat runs a kernel");
        assertEquals(graph.nodes().size() - LAYERS - 1, machine.kernels().size());

        List<Buffer> concats = buffersOf(graph, machine, "Concat");
        Buffer block = concats.getLast();
        MemoryPlan plan = MemoryPlan.of(machine);
        long channel = 0;
        for (Buffer features : buffersOf(graph, machine, "Conv")) {
            // The stem's features open the block, and each layer's follow those of the layers before it.
            assertEquals(plan.offsetOf(block) + channel * SIDE * SIDE * Float.BYTES, plan.offsetOf(features), features.name());
            channel += features.dim(1);
        }
        for (Buffer layerInput : concats) assertEquals(plan.offsetOf(block), plan.offsetOf(layerInput), layerInput.name());
        assertBytesMeetOnlyWhereTheyHoldTheSameValues(machine, plan);
    }

    @Test
    void theCompiledBlockGivesTheReferencesBits() {
        Graph graph = denseBlock();
        List<Tensor> inputs = List.of(ScheduleCases.gridValues(new long[] {1, 3, SIDE, SIDE}, new Random(3)));
        float[] expected = GraphInterpreter.run(graph, inputs).getFirst().toFloatArray();
        for (int threads : new int[] {1, 2}) {
            assertArrayEquals(expected, run(graph, CompileOptions.host().withThreads(threads), inputs).getFirst().toFloatArray(),
                threads + " threads");
        }
        CompileOptions unoptimized = CompileOptions.host().withOptimize(false);
        try (CompiledModule module = Compiler.compile(graph, unoptimized)) {
            assertTrue(module.printIr().lines().noneMatch(line -> line.startsWith("define") && line.contains(".Concat.")), "no Concat kernel");
        }
    }

    /**
     * Every intermediate value a graph output (--per-layer) leaves nothing in place; the block's output has the bits it
     * has then, in posit16 and with the last layer's convolution in bfloat16 (its features converted at the boundary
     * into the block), and every intermediate tensor is the one the reference computes in float32.
     */
    @Test
    void inDatatypesAndPerLayerTheBitsAreThoseOfTheCopies() {
        Graph graph = denseBlock();
        List<Tensor> inputs = List.of(ScheduleCases.gridValues(new long[] {1, 3, SIDE, SIDE}, new Random(5)));
        Node lastConv = graph.nodes().stream().filter(n -> n.opType().equals("Conv")).toList().getLast();
        List<CompileOptions> choices = List.of(CompileOptions.host(), CompileOptions.host().withDatatype("custom[posit]16"),
            CompileOptions.host().withDatatypes(DatatypeChoice.float32().withOverrides(List.of(new DatatypeChoice.Override(lastConv.name(), "bfloat16")))));
        for (CompileOptions options : choices) {
            List<Tensor> perLayer = run(IntermediateOutputs.expose(graph), options, inputs);
            assertArrayEquals(perLayer.getFirst().toFloatArray(), run(graph, options, inputs).getFirst().toFloatArray(), options.datatypes().toString());
        }
        List<Tensor> expected = GraphInterpreter.run(IntermediateOutputs.expose(graph), inputs);
        List<Tensor> perLayer = run(IntermediateOutputs.expose(graph), CompileOptions.host(), inputs);
        for (int i = 0; i < expected.size(); i++) assertArrayEquals(expected.get(i).toFloatArray(), perLayer.get(i).toFloatArray(), "output " + i);
    }

    /**
     * A graph input, a constant and a value that is also a graph output stay where they are and are copied; of a value
     * two Concats read, the first holds it and the second copies it; so is a value whose place in the output starts
     * short of a whole cache line; the values left go in place, and the Concat's kernel copies only the others.
     */
    @Test
    void whatCannotBeInPlaceIsCopied() {
        Net net = new Net();
        Value x = net.input("x", 1, 16);
        Value returned = net.node("Neg", x), shared = net.node("Relu", x), odd = net.node("Abs", net.input("y", 1, 5));
        Value placed = net.node("Sigmoid", x);
        Value first = net.node("Concat", ScheduleCases.attributes("axis", 1L), shared, placed);
        Value exp = net.node("Exp", x);
        Value second = net.node("Concat", ScheduleCases.attributes("axis", 1L), x, net.constant("c", 1, 16), returned, shared, odd, exp);
        Graph graph = net.graph(net.node("Add", first, net.constant("one", 1, 32)), net.node("Neg", second), returned);

        Program machine = ConcatsInPlace.apply(DatatypeLowering.lower(GraphLowering.lower(graph), Programs.float32()));
        List<Kernel> concats = kernelsOf(machine, "Concat");
        assertEquals(1, concats.size(), "the first Concat has both its inputs in place");
        assertEquals(List.of("x", "c", returned.name(), shared.name(), exp.name()), concats.getFirst().inputs().stream().map(Buffer::name).toList(),
            "the second copies all but the Abs, at element 64 (the Exp starts at element 69)");
        assertEquals(new Slice(temporary(machine, second.name()), 64), machine.slices().get(temporary(machine, odd.name())));
        assertEquals(new Slice(temporary(machine, first.name()), 0), machine.slices().get(temporary(machine, shared.name())));

        List<Tensor> inputs = List.of(ScheduleCases.gridValues(new long[] {1, 16}, new Random(7)), ScheduleCases.gridValues(new long[] {1, 5}, new Random(8)));
        List<Tensor> expected = GraphInterpreter.run(graph, inputs);
        List<Tensor> compiled = run(graph, CompileOptions.host(), inputs);
        for (int i = 0; i < expected.size(); i++) assertArrayEquals(expected.get(i).toFloatArray(), compiled.get(i).toFloatArray(), "output " + i);
        assertBytesMeetOnlyWhereTheyHoldTheSameValues(machine, MemoryPlan.of(machine));
    }

    /** Along the channels of two images each input is two runs apart: the Concat keeps its kernel. */
    @Test
    void aBatchOfTwoKeepsItsCopies() {
        Net net = new Net();
        Value x = net.input("x", 2, 16, 1, 1);
        Graph graph = net.graph(net.node("Neg", net.node("Concat", ScheduleCases.attributes("axis", 1L), net.node("Relu", x), net.node("Exp", x))));
        Program machine = DatatypeLowering.lower(GraphLowering.lower(graph), Programs.float32());
        Program inPlace = ConcatsInPlace.apply(machine);
        assertSame(kernelsOf(machine, "Concat").getFirst(), kernelsOf(inPlace, "Concat").getFirst());
        assertEquals(Map.of(), inPlace.slices());
    }

    @Test
    void aSliceMustFitItsWhole() {
        Graph graph = denseBlock();
        Program machine = DatatypeLowering.lower(GraphLowering.lower(graph), Programs.float32());
        Buffer small = machine.temporaries().getFirst(), large = machine.temporaries().getLast();
        Program misplaced = new Program(machine.name(), machine.kernels(), machine.inputs(), machine.inputSpecs(), machine.outputs(),
            machine.outputSpecs(), machine.constants(), machine.temporaries(), Map.of(large, new Slice(small, 1)));
        assertThrows(IllegalArgumentException.class, () -> MemoryPlan.of(misplaced));
    }

    /**
     * Two buffers of the workspace share bytes only where one lies inside the other by slices (so the shared bytes hold
     * one value), and the buffers one kernel touches share none: kernels take them as noalias pointers.
     */
    private static void assertBytesMeetOnlyWhereTheyHoldTheSameValues(Program program, MemoryPlan plan) {
        List<Buffer> buffers = new ArrayList<>(program.temporaries());
        program.kernels().forEach(k -> buffers.addAll(k.scratch()));
        for (int k = 0; k < program.kernels().size(); k++) {
            List<Buffer> touched = touched(program.kernels().get(k)).stream().filter(buffers::contains).toList();
            for (Buffer a : touched) {
                for (Buffer b : touched) {
                    if (a != b) assertTrue(apart(a, b, plan), "kernel " + k + " touches " + a + " and " + b);
                }
            }
        }
        for (Buffer a : buffers) {
            for (Buffer b : buffers) {
                boolean nested = a == b || within(a, b, program.slices()) || within(b, a, program.slices());
                if (!nested && livesOverlap(program, a, b)) assertTrue(apart(a, b, plan), a + " and " + b + " are live together");
            }
        }
    }

    private static List<Buffer> touched(Kernel k) {
        List<Buffer> touched = new ArrayList<>(k.loadedBuffers());
        touched.addAll(k.outputs());
        touched.addAll(k.scratch());
        return touched.stream().distinct().toList();
    }

    private static boolean within(Buffer part, Buffer whole, Map<Buffer, Slice> slices) {
        for (Buffer b = part; slices.containsKey(b); b = slices.get(b).whole()) {
            if (slices.get(b).whole() == whole) return true;
        }
        return false;
    }

    private static boolean livesOverlap(Program program, Buffer a, Buffer b) {
        Predicate<Buffer> everTouched = buffer -> program.kernels().stream().anyMatch(k -> touched(k).contains(buffer));
        if (!everTouched.test(a) || !everTouched.test(b)) return false;
        return first(program, a) <= last(program, b) && first(program, b) <= last(program, a);
    }

    private static int first(Program program, Buffer b) {
        for (int k = 0; k < program.kernels().size(); k++) if (touched(program.kernels().get(k)).contains(b)) return k;
        throw new AssertionError(b.toString());
    }

    private static int last(Program program, Buffer b) {
        for (int k = program.kernels().size() - 1; k >= 0; k--) if (touched(program.kernels().get(k)).contains(b)) return k;
        throw new AssertionError(b.toString());
    }

    private static boolean apart(Buffer a, Buffer b, MemoryPlan plan) {
        return plan.offsetOf(a) + bytes(a) <= plan.offsetOf(b) || plan.offsetOf(b) + bytes(b) <= plan.offsetOf(a);
    }

    private static long bytes(Buffer b) { return b.size() * MachineTypes.byteSize(b.elementType()); }

    private static List<Kernel> kernelsOf(Program program, String opType) {
        return program.kernels().stream().filter(k -> k.opType().equals(opType)).toList();
    }

    /** The buffers of the outputs of the graph's nodes of {@code opType}, in graph order. */
    private static List<Buffer> buffersOf(Graph graph, Program machine, String opType) {
        return graph.nodes().stream().filter(n -> n.opType().equals(opType)).map(n -> temporary(machine, n.outputs().getFirst().name())).toList();
    }

    private static Buffer temporary(Program machine, String name) {
        return machine.temporaries().stream().filter(b -> b.name().equals(name)).findFirst().orElseThrow();
    }

    private static List<Tensor> run(Graph graph, CompileOptions options, List<Tensor> inputs) {
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            return model.run(inputs);
        }
    }
}
