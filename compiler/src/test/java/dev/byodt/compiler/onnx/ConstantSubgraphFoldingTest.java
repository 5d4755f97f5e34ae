package dev.byodt.compiler.onnx;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.byodt.compiler.onnx.Models.FLOAT;
import static dev.byodt.compiler.onnx.Models.INT64;
import static dev.byodt.compiler.onnx.Models.floatTensor;
import static dev.byodt.compiler.onnx.Models.graph;
import static dev.byodt.compiler.onnx.Models.intAttr;
import static dev.byodt.compiler.onnx.Models.ints;
import static dev.byodt.compiler.onnx.Models.longTensor;
import static dev.byodt.compiler.onnx.Models.model;
import static dev.byodt.compiler.onnx.Models.node;
import static dev.byodt.compiler.onnx.Models.tensor;
import static dev.byodt.compiler.onnx.Models.tensorAttr;
import static dev.byodt.compiler.onnx.Models.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Subgraphs whose inputs are known at compile time are evaluated then, whatever their operators, as an exporter
 * writes them for a transformer: a causal mask built from the scores' shape with Range and Trilu, and a
 * class token expanded to the batch and concatenated to the patches. What remains is the run-time part, and the
 * compiled model agrees with ONNX Runtime on the unfolded one.
 */
class ConstantSubgraphFoldingTest {
    private static final int HEADS = 2, SEQ = 5, BATCH = 2, PATCHES = 4, DIM = 8;
    private static final float MASKED = -5000f;

    @TempDir
    Path dir;

    /**
     * Position j is masked for query i when j > i, twice over: Relu(j - i) capped at 1 from Range, and the strict
     * upper triangle of a ConstantOfShape of ones from Trilu; the sum times -5000 is added to the scores.
     */
    @Test
    void causalMaskFromRangeAndTriluFolds() throws OrtException {
        Path file = write(dir, "causal.onnx", model(graph()
            .addInput(tensor("scores", FLOAT, 1L, (long) HEADS, (long) SEQ, (long) SEQ))
            .addOutput(tensor("probabilities", FLOAT, 1L, (long) HEADS, (long) SEQ, (long) SEQ))
            .addInitializer(longTensor("two", new long[0], 2))
            .addInitializer(longTensor("zero", new long[0], 0))
            .addInitializer(longTensor("one", new long[0], 1))
            .addInitializer(longTensor("axis0", new long[] {1}, 0))
            .addInitializer(longTensor("axis1", new long[] {1}, 1))
            .addInitializer(floatTensor("oneF", new long[0], 1f))
            .addInitializer(floatTensor("scale", new long[0], MASKED / 2))
            .addNode(node("Shape", "shape", List.of("scores"), List.of("s")))
            .addNode(node("Gather", "length", List.of("s", "two"), List.of("seq")))
            .addNode(node("Range", "positions", List.of("zero", "seq", "one"), List.of("p")))
            .addNode(node("Cast", "real", List.of("p"), List.of("pf"), intAttr("to", FLOAT)))
            .addNode(node("Unsqueeze", "rows", List.of("pf", "axis1"), List.of("i")))
            .addNode(node("Unsqueeze", "columns", List.of("pf", "axis0"), List.of("j")))
            .addNode(node("Sub", "ahead", List.of("j", "i"), List.of("d")))
            .addNode(node("Relu", "future", List.of("d"), List.of("f")))
            .addNode(node("Min", "capped", List.of("f", "oneF"), List.of("c")))
            .addNode(node("Unsqueeze", "seq1", List.of("seq", "axis0"), List.of("n")))
            .addNode(node("Concat", "square", List.of("n", "n"), List.of("sq"), intAttr("axis", 0)))
            .addNode(node("ConstantOfShape", "ones", List.of("sq"), List.of("o"),
                tensorAttr("value", floatTensor("v", new long[] {1}, 1f))))
            .addNode(node("Trilu", "upper", List.of("o", "one"), List.of("u"), intAttr("upper", 1)))
            .addNode(node("Add", "both", List.of("c", "u"), List.of("b")))
            .addNode(node("Mul", "mask", List.of("b", "scale"), List.of("m")))
            .addNode(node("Add", "masked", List.of("scores", "m"), List.of("x")))
            .addNode(node("Softmax", "softmax", List.of("x"), List.of("probabilities"), intAttr("axis", -1))), 17));
        Graph graph = OnnxLoader.load(file);
        assertEquals(List.of("masked", "softmax"), graph.nodes().stream().map(Node::name).toList());
        Value mask = graph.nodes().getFirst().input(1);
        assertTrue(mask.isConstant());
        float[] expectedMask = new float[SEQ * SEQ];
        for (int i = 0; i < SEQ; i++) {
            // Unmasked is 0 times a negative scale: -0, as float32 arithmetic computes it.
            for (int j = 0; j < SEQ; j++) expectedMask[i * SEQ + j] = j > i ? MASKED : -0f;
        }
        assertArrayEquals(expectedMask, mask.constant().toFloatArray());
        assertMatchesOnnxRuntime(file, graph, "scores", new long[] {1, HEADS, SEQ, SEQ});
    }

    /** A ViT's class token: Expand of a parameter to [batch, 1, dim] folds; Concat with the patches and Add remain. */
    @Test
    void classTokenExpandedToTheBatchFolds() throws OrtException {
        float[] token = new float[DIM], position = new float[(PATCHES + 1) * DIM];
        for (int d = 0; d < DIM; d++) token[d] = 0.25f * d - 1;
        for (int k = 0; k < position.length; k++) position[k] = (float) Math.sin(k);
        Path file = write(dir, "class-token.onnx", model(graph()
            .addInput(tensor("patches", FLOAT, (long) BATCH, (long) PATCHES, (long) DIM))
            .addOutput(tensor("embedded", FLOAT, (long) BATCH, (long) PATCHES + 1, (long) DIM))
            .addInitializer(floatTensor("class_token", new long[] {1, 1, DIM}, token))
            .addInitializer(floatTensor("position", new long[] {1, PATCHES + 1, DIM}, position))
            .addInitializer(longTensor("first", new long[] {1}, 0))
            .addInitializer(longTensor("rest", new long[] {2}, 1, DIM))
            .addNode(node("Shape", "shape", List.of("patches"), List.of("s")))
            .addNode(node("Gather", "batch", List.of("s", "first"), List.of("b")))
            .addNode(node("Concat", "target", List.of("b", "rest"), List.of("t"), intAttr("axis", 0)))
            .addNode(node("Expand", "tokens", List.of("class_token", "t"), List.of("c")))
            .addNode(node("Concat", "sequence", List.of("c", "patches"), List.of("x"), intAttr("axis", 1)))
            .addNode(node("Add", "embed", List.of("x", "position"), List.of("embedded"))), 17));
        Graph graph = OnnxLoader.load(file);
        assertEquals(List.of("sequence", "embed"), graph.nodes().stream().map(Node::name).toList());
        Tensor tokens = graph.nodes().getFirst().input(0).constant();
        assertArrayEquals(new long[] {BATCH, 1, DIM}, tokens.shape());
        for (int b = 0; b < BATCH; b++) {
            for (int d = 0; d < DIM; d++) assertEquals(token[d], tokens.getFloat((long) b * DIM + d));
        }
        assertMatchesOnnxRuntime(file, graph, "patches", new long[] {BATCH, PATCHES, DIM});
    }

    /** byodt's compiled float32 against ONNX Runtime on the model file, on seeded random inputs, to 1e-6. */
    private static void assertMatchesOnnxRuntime(Path file, Graph graph, String inputName, long[] shape) throws OrtException {
        Random random = new Random(13);
        float[] values = new float[Math.toIntExact(java.util.Arrays.stream(shape).reduce(1, Math::multiplyExact))];
        for (int k = 0; k < values.length; k++) values[k] = (float) random.nextGaussian() * 3;
        float[] ours;
        try (CompiledModule module = Compiler.compile(graph, CompileOptions.host()); HostModel model = Compiler.jit(module)) {
            ours = model.run(List.of(Tensor.ofFloats(shape, values))).getFirst().toFloatArray();
        }
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession session = env.createSession(file.toString(), new OrtSession.SessionOptions());
             OnnxTensor input = OnnxTensor.createTensor(env, FloatBuffer.wrap(values), shape);
             OrtSession.Result result = session.run(Map.of(inputName, input))) {
            FloatBuffer theirs = ((OnnxTensor) result.get(0)).getFloatBuffer();
            assertEquals(ours.length, theirs.remaining());
            for (int k = 0; k < ours.length; k++) {
                float expected = theirs.get(k);
                assertTrue(Math.abs(expected - ours[k]) <= 1e-6 * Math.max(1, Math.abs(expected)),
                    "element " + k + ": onnxruntime " + expected + ", byodt " + ours[k]);
            }
        }
    }
}
