package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Interpreter;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.NodeLowering;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs the kernels of the linear-algebra, convolution, pooling, normalization, softmax and reduction
 * operators with the kernel interpreter on the ONNX node test cases (one node each) and compares them
 * with ONNX's expected outputs. Cases whose tensors have element types byodt does not support, and the
 * listed cases that ask for features byodt refuses, must be rejected rather than computed.
 */
class OnnxNodeConformanceTest {
    private static final Path CASES = Path.of(System.getProperty("byodt.onnxNodeDir", "/work/shared/onnx-node"));
    private static final Set<String> OPERATORS = Set.of("MatMul", "Gemm", "Conv", "MaxPool", "AveragePool",
        "GlobalAveragePool", "GlobalMaxPool", "LRN", "BatchNormalization", "InstanceNormalization",
        "LayerNormalization", "Softmax", "LogSoftmax", "ReduceMean", "ReduceSum", "ReduceMax");
    private static final double RTOL = 1e-4;
    private static final double ATOL = 1e-5;

    /** Cases that need a feature byodt reports as unsupported, with the reason. */
    private static final Map<String, String> EXPECTED_REJECTIONS = Map.of(
        "test_batchnorm_epsilon_training_mode", "training mode",
        "test_batchnorm_example_training_mode", "training mode",
        "test_maxpool_with_argmax_2d_precomputed_pads", "the Indices output",
        "test_maxpool_with_argmax_2d_precomputed_strides", "the Indices output");

    /**
     * Cases whose reference data is less precise than float32: the inputs and expected outputs of this one
     * are written with four decimals (0.1511 for 1.3595 / 9 = 0.151056), so it holds only to about 1e-4.
     */
    private static final Map<String, Double> REFERENCE_ATOL = Map.of(
        "test_averagepool_2d_ceil_last_window_starts_on_pad", 1e-4);

    private static final Map<String, Integer> TALLY = new ConcurrentHashMap<>();

    @TestFactory
    Stream<DynamicTest> nodeCases() throws IOException {
        assertTrue(Files.isDirectory(CASES), "ONNX node cases not found at " + CASES);
        List<Path> dirs;
        try (Stream<Path> listing = Files.list(CASES)) {
            dirs = listing.filter(d -> Files.exists(d.resolve("model.onnx")))
                .filter(d -> OPERATORS.contains(OnnxNodeCase.singleOpType(d))).sorted().toList();
        }
        assertTrue(dirs.size() > 100, "expected the ONNX node cases of these operators, found " + dirs.size());
        return dirs.stream().map(d -> DynamicTest.dynamicTest(d.getFileName().toString(), () -> check(d)));
    }

    private static void check(Path dir) {
        OnnxNodeCase c = OnnxNodeCase.read(dir);
        if (c.unsupportedType() != null) {
            count("unsupported element type");
            return;
        }
        String expectedRejection = EXPECTED_REJECTIONS.get(c.name());
        List<Tensor> actual;
        try {
            actual = run(c);
        } catch (ByodtException e) {
            if (expectedRejection == null) {
                count("failed");
                fail(c.name() + " was rejected: " + e.getMessage());
            }
            assertTrue(e.getMessage().contains(c.node().opType()), "the error names the operator: " + e.getMessage());
            count("rejected as unsupported");
            return;
        }
        if (expectedRejection != null) {
            count("failed");
            fail(c.name() + " should have been rejected for " + expectedRejection);
        }
        try {
            double atol = REFERENCE_ATOL.getOrDefault(c.name(), ATOL);
            for (int i = 0; i < c.expected().size(); i++) {
                compare(c.name() + " output " + i, c.expected().get(i), actual.get(i), atol);
            }
        } catch (AssertionError e) {
            count("failed");
            throw e;
        }
        count("passed");
    }

    private static List<Tensor> run(OnnxNodeCase c) {
        Operator op = Operators.lookup(c.node().opType());
        List<TensorType> types = op.inferTypes(c.node());
        for (int i = 0; i < c.node().outputs().size(); i++) c.node().output(i).setType(types.get(i));
        for (int i = 0; i < c.expected().size(); i++) {
            assertArrayEquals(c.expected().get(i).shape(), types.get(i).shape(), c.name() + ": inferred shape of output " + i);
        }
        Map<Value, Buffer> buffers = new HashMap<>();
        Kernel kernel = NodeLowering.lower(c.node(), v -> buffers.computeIfAbsent(v,
            value -> new Buffer(value.name(), ScalarType.of(value.type().elementType()), value.type().shape())));
        return Interpreter.run(kernel, c.inputs());
    }

    private static void compare(String what, Tensor expected, Tensor actual, double atol) {
        assertArrayEquals(expected.shape(), actual.shape(), what + " shape");
        assertEquals(expected.type(), actual.type(), what + " element type");
        for (long i = 0; i < expected.elementCount(); i++) {
            double e = expected.getDouble(i);
            double a = actual.getDouble(i);
            boolean same = Double.isNaN(e) ? Double.isNaN(a) : e == a || Math.abs(a - e) <= atol + RTOL * Math.abs(e);
            if (!same) {
                fail(what + " of shape " + Shapes.format(expected.shape()) + " differs at flat index " + i
                    + ": expected " + e + ", got " + a);
            }
        }
    }

    private static void count(String outcome) { TALLY.merge(outcome, 1, Integer::sum); }

    @AfterAll
    static void printTally() {
        System.out.println("ONNX node cases of " + OPERATORS.size() + " operators: " + new TreeMap<>(TALLY));
    }
}
