package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.onnx.Onnx;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every ONNX backend node case whose nodes are all operators of this package's element-wise and
 * data-movement families (Constant nodes aside, which the loader folds): the kernels run in the
 * interpreter on the case's inputs and must reproduce output_N.pb within rtol 1e-4, atol 1e-5. Cases
 * with element types byodt does not have must be rejected instead. A tally is printed at the end.
 */
class OnnxNodeConformanceTest {
    private static final Path CASES = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));
    private static final double RTOL = 1e-4, ATOL = 1e-5;

    private static final Set<String> OPERATORS = Set.of(
        "Add", "Sub", "Mul", "Div", "Pow", "Neg", "Abs", "Sqrt", "Exp", "Log", "Erf", "Tanh", "Sigmoid", "Relu",
        "LeakyRelu", "PRelu", "Elu", "Selu", "HardSigmoid", "HardSwish", "Clip", "Max", "Min", "Sum", "Mean", "Gelu",
        "Identity", "Dropout", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice",
        "Gather", "Pad", "Shape", "Cast", "ConstantOfShape");

    /**
     * The inputs, by operator, that decide output shapes and so must be known at compile time. The ONNX
     * cases feed some of them as graph inputs; the test binds those to the case's values before compiling.
     */
    private static final Map<String, Set<Integer>> SHAPE_INPUTS = Map.of(
        "Reshape", Set.of(1), "Squeeze", Set.of(1), "Unsqueeze", Set.of(1), "Split", Set.of(1),
        "Slice", Set.of(1, 2, 3, 4), "Pad", Set.of(1, 3), "ConstantOfShape", Set.of(0));

    private static final TreeMap<String, String> OUTCOMES = new TreeMap<>();
    private static final ConcurrentHashMap<String, Integer> TALLY = new ConcurrentHashMap<>();

    static Stream<String> cases() throws IOException {
        assertTrue(Files.isDirectory(CASES), "ONNX node cases not found at " + CASES.toAbsolutePath());
        try (Stream<Path> dirs = Files.list(CASES)) {
            List<String> names = dirs.filter(d -> Files.isRegularFile(d.resolve("model.onnx")))
                .filter(OnnxNodeConformanceTest::inScope).map(d -> d.getFileName().toString()).sorted().toList();
            return names.stream();
        }
    }

    /** The model's nodes are ours (or Constant) and at least one is ours. */
    private static boolean inScope(Path dir) {
        try {
            Onnx.ModelProto model = Onnx.ModelProto.parseFrom(Files.readAllBytes(dir.resolve("model.onnx")));
            List<String> ops = model.getGraph().getNodeList().stream().map(Onnx.NodeProto::getOpType).toList();
            return ops.stream().anyMatch(OPERATORS::contains)
                && ops.stream().allMatch(op -> OPERATORS.contains(op) || op.equals("Constant"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reproducesTheReferenceOutputs(String name) throws IOException {
        Path dir = CASES.resolve(name);
        TestModels.Model model;
        List<Tensor> inputs = new ArrayList<>();
        List<Tensor> expected = new ArrayList<>();
        try {
            model = TestModels.read(dir.resolve("model.onnx"));
            Path data = dir.resolve("test_data_set_0");
            for (int i = 0; Files.exists(data.resolve("input_" + i + ".pb")); i++) inputs.add(TestModels.readTensor(data.resolve("input_" + i + ".pb")));
            for (int i = 0; Files.exists(data.resolve("output_" + i + ".pb")); i++) expected.add(TestModels.readTensor(data.resolve("output_" + i + ".pb")));
        } catch (ByodtException rejected) {
            record(name, "unsupported", rejected.getMessage());
            return;
        }
        List<Tensor> actual;
        try {
            actual = GraphRunner.run(model.graph(), inputs, v -> decidesShapes(model.graph(), v));
        } catch (RuntimeException | AssertionError e) {
            record(name, "failed", e.toString());
            throw e;
        }
        try {
            assertEquals(expected.size(), actual.size(), "output count");
            for (int k = 0; k < expected.size(); k++) assertClose(k, expected.get(k), actual.get(k));
        } catch (AssertionError e) {
            record(name, "failed", e.getMessage());
            throw e;
        }
        record(name, "passed", "");
    }

    private static boolean decidesShapes(Graph graph, Value v) {
        for (Node node : graph.nodes()) {
            for (int i : SHAPE_INPUTS.getOrDefault(node.opType(), Set.of())) {
                if (node.input(i) == v) return true;
            }
        }
        return false;
    }

    private static void assertClose(int output, Tensor expected, Tensor actual) {
        assertNotNull(actual, "output " + output + " was not computed");
        assertEquals(expected.type(), actual.type(), "element type of output " + output);
        assertArrayEquals(expected.shape(), actual.shape(),
            "shape of output " + output + ": expected " + Shapes.format(expected.shape()) + ", got " + Shapes.format(actual.shape()));
        for (long i = 0; i < expected.elementCount(); i++) {
            double e = expected.getDouble(i), a = actual.getDouble(i);
            if (Double.isNaN(e) && Double.isNaN(a)) continue;
            if (e == a) continue;
            if (!(Math.abs(a - e) <= ATOL + RTOL * Math.abs(e))) {
                fail("output " + output + " element " + i + ": expected " + e + ", got " + a);
            }
        }
    }

    private static synchronized void record(String name, String outcome, String detail) {
        OUTCOMES.put(name, outcome + (detail.isEmpty() ? "" : ": " + detail));
        TALLY.merge(outcome, 1, Integer::sum);
    }

    @AfterAll
    static void printTally() {
        OUTCOMES.forEach((name, outcome) -> System.out.println("  " + name + " -> " + outcome));
        System.out.println("ONNX node cases for the element-wise and data-movement operators: " + new TreeMap<>(TALLY));
    }
}
