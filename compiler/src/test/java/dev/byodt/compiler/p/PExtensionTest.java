package dev.byodt.compiler.p;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.Targets;
import dev.byodt.compiler.aot.EmitKind;
import dev.byodt.compiler.aot.Emitter;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.counts.ElfFunctions;
import dev.byodt.compiler.counts.RiscvInstructions;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * P code checked without a P simulator. (1) The same kernels built for the host with fixed_p.c's exact C
 * model of each P instruction in place of the .insn blocks must give the same bits as the kernels without
 * P, on LeNet-5 and on single operators with random tensors. (2) Every P instruction word in the RISC-V
 * objects must be one of the encodings of the table (PExtension.INSTRUCTIONS, from the P 0.9.11 spec), under the chosen
 * major opcode.
 */
@Execution(ExecutionMode.CONCURRENT)
class PExtensionTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final Path NODE_TESTS = Path.of(System.getProperty("byodt.onnxNodeDir", "../../shared/onnx-node"));

    @TempDir
    Path work;

    private static DatatypeChoice choice(String datatype, String accumulate, Map<String, String> options) {
        return DatatypeChoice.float32().withDatatype(datatype).withAccumulation(AccumulationMode.parse(accumulate)).withOptions(options);
    }

    private static List<float[]> run(Graph graph, Target target, DatatypeChoice datatypes, List<Tensor> inputs) {
        CompileOptions options = CompileOptions.host().withTarget(target).withDatatypes(datatypes);
        try (CompiledModule compiled = Compiler.compile(graph, options); HostModel model = Compiler.jit(compiled)) {
            return model.run(inputs).stream().map(Tensor::toFloatArray).toList();
        }
    }

    private static Target hostWithPModel() { return Target.host().with(new PExtension(PExtension.OPCODE)); }

    @ParameterizedTest(name = "LeNet-5 {0} --accumulate {1} {2}")
    @CsvSource({"fxp16_13, exact, ''", "fxp16_13, dtype, ''", "fxp16_13, exact, overflow=wrap", "fxp16_15, dtype, rounding=truncate",
        "fxp8_4, dtype, ''", "fxp8_4, exact, overflow=wrap"})
    void leNetWithThePModelHasTheSameBitsAsWithoutP(String datatype, String accumulate, String option) {
        Graph graph = OnnxLoader.load(MODELS.resolve("lenet5-fashion.onnx"), Map.of("image", new long[]{20, 1, 28, 28}));
        Tensor images = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), 20).images();
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        DatatypeChoice datatypes = choice(datatype, accumulate, options);
        float[] withP = run(graph, hostWithPModel(), datatypes, List.of(images)).getFirst();
        float[] without = run(graph, Target.host(), datatypes, List.of(images)).getFirst();
        assertArrayEquals(without, withP);
        assertFalse(pFunctionsCalled(graph, datatypes).isEmpty(), "no P function called: the comparison checks nothing of P");
    }

    /**
     * LeNet-5's 5x5 windows in fxp8 on 64-bit registers: conv1's 25 products are 3 groups of 8 across the window's
     * rows and a single step, conv2's 150 (6 channels) 18 groups of 8, one of 4 and 2 single steps, each group
     * one call in the unoptimized kernel.
     */
    @ParameterizedTest(name = "{0}: {1} groups of 8, {2} of 4, {3} single steps")
    @CsvSource({"conv1, 3, 0, 1", "conv2, 18, 1, 2"})
    void leNetsFiveByFiveWindowsInFxp8AreGroupedByEightAcrossRows(String conv, int eights, int fours, int singles) {
        Graph graph = OnnxLoader.load(MODELS.resolve("lenet5-fashion.onnx"), Map.of("image", new long[]{1, 1, 28, 28}));
        CompileOptions options = CompileOptions.host().withTarget(hostWithPModel()).withDatatypes(choice("fxp8_4", "exact", Map.of()))
            .withOptimize(false).withInlineLibraries(false);
        try (CompiledModule compiled = Compiler.compile(graph, options)) {
            String ir = compiled.printIr();
            java.util.regex.Matcher definition = java.util.regex.Pattern.compile("define [^\n]*/" + conv + "/Conv\"\\(").matcher(ir);
            assertTrue(definition.find(), "no kernel for " + conv);
            String body = ir.substring(definition.start(), ir.indexOf("\n}\n", definition.start()));
            assertEquals(eights, calls(body, "byodt_p8_acc_mac8_word"), "groups of 8");
            assertEquals(fours, calls(body, "byodt_p8_acc_mac4_word"), "groups of 4");
            assertEquals(singles, calls(body, "byodt_p8_acc_mac"), "single steps");
        }
    }

    private static long calls(String ir, String function) {
        return java.util.regex.Pattern.compile("call [^@\\n]*@" + function + "\\(").matcher(ir).results().count();
    }

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource({"test_add, fxp16_13, dtype", "test_sub, fxp16_13, dtype", "test_max_example, fxp16_13, dtype",
        "test_min_example, fxp16_13, dtype", "test_relu, fxp16_12, dtype", "test_matmul_2d, fxp16_10, exact",
        "test_gemm_default_no_bias, fxp16_8, exact", "test_gemm_default_no_bias, fxp16_8x2, exact", "test_add, fxp16_15, dtype",
        "test_add, fxp8_4, dtype", "test_sub, fxp8_4, dtype", "test_max_example, fxp8_3, dtype", "test_min_example, fxp8_3, dtype",
        "test_relu, fxp8_5, dtype", "test_clip, fxp8_4, dtype"})
    void operatorsOnRandomTensorsHaveTheSameBitsWithThePModel(String testCase, String datatype, String accumulate) {
        Graph graph = OnnxLoader.load(NODE_TESTS.resolve(testCase).resolve("model.onnx"));
        Random random = new Random(testCase.hashCode());
        List<Tensor> inputs = new ArrayList<>();
        for (var input : graph.inputs()) {
            long[] shape = input.type().shape();
            float[] values = new float[(int) java.util.Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
            // Beyond the datatype's range now and then, so that saturation is exercised.
            for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextGaussian() * (i % 7 == 0 ? 300 : 2));
            inputs.add(Tensor.ofFloats(shape, values));
        }
        for (Map<String, String> options : List.of(Map.<String, String>of(), Map.of("overflow", "wrap"))) {
            List<float[]> withP = run(graph, hostWithPModel(), choice(datatype, accumulate, options), inputs);
            List<float[]> without = run(graph, Target.host(), choice(withoutLanes(datatype), accumulate, options), inputs);
            for (int i = 0; i < without.size(); i++) assertArrayEquals(without.get(i), withP.get(i), testCase + " " + options);
            assertFalse(pFunctionsCalled(graph, choice(datatype, accumulate, options)).isEmpty(),
                testCase + " " + options + ": no P function called, the comparison checks nothing of P");
        }
    }

    /**
     * The P library functions (byodt_p...) that the host build with the P model calls: the P lowerings and
     * passes that fired. Unoptimized, with the library out of line, so that each call is still in the IR.
     */
    private static Set<String> pFunctionsCalled(Graph graph, DatatypeChoice datatypes) {
        CompileOptions options = CompileOptions.host().withTarget(hostWithPModel()).withDatatypes(datatypes)
            .withOptimize(false).withInlineLibraries(false);
        try (CompiledModule compiled = Compiler.compile(graph, options)) {
            java.util.regex.Matcher call = java.util.regex.Pattern.compile("call [^@\\n]*@(byodt_p\\d+\\w*)\\(").matcher(compiled.printIr());
            Set<String> called = new java.util.TreeSet<>();
            while (call.find()) called.add(call.group(1));
            return called;
        }
    }

    /**
     * Packed element-wise kernels: groups of 4 or 2 16-bit lanes, 8 or 4 8-bit lanes, with the odd elements
     * left over one at a time, rows whose offsets are multiples of a 32-bit word's lanes but not of the
     * register's (2 16-bit or 4 8-bit lanes), operands broadcast along the packed loop or adjacent in it,
     * nested operations (Relu's max with a constant), saturation and wrap-around.
     */
    @ParameterizedTest(name = "{0} {1} and {2} in {3} {4}: {5}")
    @CsvSource({
        "Add, 7, 7, fxp16_13, '', @byodt_p16x4_add_saturate(",
        "Add, 7, 7, fxp16_13x2, '', @byodt_p16x2_add_saturate(",
        "Add, 2x9, 9, fxp16_13, overflow=wrap, ",
        "Add, 3x12, 12, fxp16_13, overflow=wrap, @byodt_p16x4_add_wrap(",
        "Sub, 3x6, 6, fxp16_13, '', @byodt_p16x2_sub_saturate(",
        "Sub, 11, 11, fxp16_13x2, overflow=wrap, @byodt_p16x2_sub_wrap(",
        "Max, 3x8, 8, fxp16_12, '', @byodt_p16x4_max(",
        "Min, 4x8, 4x1, fxp16_12, '', @byodt_p16x4_min(",
        "Relu, 5x12, , fxp16_10, '', @byodt_p16x4_max(",
        "Mul, 13, 13, fxp16_15, rounding=truncate, @byodt_p16x4_q15_mul(",
        "Add, 19, 19, fxp8_4, '', @byodt_p8x8_add_saturate(",
        "Add, 2x9, 9, fxp8_4, overflow=wrap, ",
        "Add, 3x12, 12, fxp8_4, overflow=wrap, @byodt_p8x4_add_wrap(",
        "Sub, 3x16, 3x16, fxp8_4, '', @byodt_p8x8_sub_saturate(",
        "Sub, 13, 13, fxp8_3, overflow=wrap, @byodt_p8x8_sub_wrap(",
        "Max, 3x8, 8, fxp8_3, '', @byodt_p8x8_max(",
        "Min, 4x8, 4x1, fxp8_4, '', @byodt_p8x8_min(",
        "Min, 3x4, 3x1, fxp8_4, '', @byodt_p8x4_min(",
        "Relu, 5x16, , fxp8_5, '', @byodt_p8x8_max(", "Add, 19, 19, fxp8_4x4, '', @byodt_p8x4_add_saturate("})
    void packedKernelsHaveTheSameBitsWithThePModel(String op, String aShape, String bShape, String datatype, String option, String call) {
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        DatatypeChoice datatypes = choice(datatype, "dtype", options);
        checkPackedKernel(oneNode(op, shape(aShape), bShape == null ? null : shape(bShape)), datatypes,
            choice(withoutLanes(datatype), "dtype", options), call);
    }

    /**
     * fxp8 on registers of 2 16-bit lanes (riscv32p's, or what an fxp16_PxLANES datatype asks for: the map names
     * one that no node matches): 4 8-bit lanes, odd lengths and broadcast operands, saturating and wrapping.
     */
    @ParameterizedTest(name = "{0} {1} and {2} in fxp8_4 {3} on 32-bit words: {4}")
    @CsvSource({"Add, 19, 19, '', @byodt_p8x4_add_saturate(", "Sub, 3x12, 1, overflow=wrap, @byodt_p8x4_sub_wrap(",
        "Max, 2x20, 20, '', @byodt_p8x4_max(", "Relu, 27, , '', @byodt_p8x4_max("})
    void fxp8KernelsInFourLanesHaveTheSameBitsWithThePModel(String op, String aShape, String bShape, String option, String call) {
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        DatatypeChoice fxp8 = choice("fxp8_4", "dtype", options);
        DatatypeChoice twoSixteenBitLanes = fxp8.withOverrides(DatatypeChoice.parseOverrides("no-such-node=fxp16_13x2"));
        Graph graph = oneNode(op, shape(aShape), bShape == null ? null : shape(bShape));
        checkPackedKernel(graph, twoSixteenBitLanes, fxp8, call);
        assertFalse(llvmIr(graph, hostWithPModel(), twoSixteenBitLanes).contains("@byodt_p8x8_"), "8 lanes on 32-bit words");
    }

    /**
     * The kernel of {@code graph} with the P model and {@code datatypes} gives the bits it gives without P and
     * {@code unpacked}; its IR calls {@code call} (@byodt_pBITSxLANES_OP) on words loaded and stored whole, or,
     * {@code call} null, packs nothing (rows of 9 fxp16 or fxp8 values, whose offsets are odd) and keeps the
     * one-lane calls of add_wrap.
     */
    private void checkPackedKernel(Graph graph, DatatypeChoice datatypes, DatatypeChoice unpacked, String call) {
        Random random = new Random((graph.name() + java.util.Arrays.toString(graph.inputs().getFirst().type().shape()) + datatypes).hashCode());
        List<Tensor> inputs = new ArrayList<>();
        for (var input : graph.inputs()) {
            float[] values = new float[(int) java.util.Arrays.stream(input.type().shape()).reduce(1, (a, b) -> a * b)];
            for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextGaussian() * (i % 3 == 0 ? 4 : 0.7));
            inputs.add(Tensor.ofFloats(input.type().shape(), values));
        }
        List<float[]> withP = run(graph, hostWithPModel(), datatypes, inputs);
        List<float[]> without = run(graph, Target.host(), unpacked, inputs);
        assertArrayEquals(without.getFirst(), withP.getFirst());
        String ir = llvmIr(graph, hostWithPModel(), datatypes);
        String bits = datatypes.instances().getFirst().toString().startsWith("fxp8") ? "8" : "16";
        if (call == null) {
            assertFalse(ir.contains("@byodt_p" + bits + "x"), "packed calls in rows of 9");
            assertTrue(ir.contains("@byodt_p" + bits + "_add_wrap("), "one-lane calls in rows of 9");
        } else {
            assertTrue(ir.contains(call), call + " in the IR");
            // Adjacent elements travel as one word: 2 16-bit or 4 8-bit lanes in an i32, 4 or 8 in an i64.
            java.util.regex.Matcher packed = java.util.regex.Pattern.compile("@byodt_p(\\d+)x(\\d+)_").matcher(call);
            assertTrue(packed.find(), call);
            String word = "i" + Integer.parseInt(packed.group(1)) * Integer.parseInt(packed.group(2));
            assertTrue(ir.contains("load " + word + ",") && ir.contains("store " + word + " "), word + " loads and stores in the IR");
        }
    }

    /**
     * fxp8 dot products with exact accumulation, by SMAQA: 19 products are two groups of 8 (4-lane registers)
     * or four of 4 (2 lanes, which only an fxp16_PxLANES datatype can request, so the map names one that no
     * node matches) and 3 single steps. Inputs fill fxp8_4's range, saturating now and then.
     */
    @ParameterizedTest(name = "fxp8_4 MatMul with {0} lanes calls {1}")
    @CsvSource({"4, @byodt_p8_acc_mac8(", "2, @byodt_p8_acc_mac4("})
    void fxp8DotProductsHaveTheSameBitsWithThePModel(int lanes, String call) {
        Graph graph = oneNode("MatMul", new long[]{3, 19}, new long[]{19, 5});
        Random random = new Random(lanes);
        List<Tensor> inputs = new ArrayList<>();
        for (var input : graph.inputs()) {
            float[] values = new float[(int) java.util.Arrays.stream(input.type().shape()).reduce(1, (a, b) -> a * b)];
            for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextGaussian() * 5);
            inputs.add(Tensor.ofFloats(input.type().shape(), values));
        }
        DatatypeChoice fxp8 = choice("fxp8_4", "exact", Map.of());
        DatatypeChoice datatypes = lanes == 4 ? fxp8 : fxp8.withOverrides(DatatypeChoice.parseOverrides("no-such-node=fxp16_13x2"));
        assertArrayEquals(run(graph, Target.host(), fxp8, inputs).getFirst(), run(graph, hostWithPModel(), datatypes, inputs).getFirst());
        assertTrue(llvmIr(graph, hostWithPModel(), datatypes).contains(call), call + " in the IR");
    }

    /**
     * fxp16_P's and fxp8_P's multiplies in every rounding and overflow mode (byodt_pBITS_mul_MODE, SMBB16/SMTT16 in
     * 32-bit lanes or KHM16 in 16-bit lanes) give fixed.c's bits: a column of values times a row (Mul,
     * broadcast), every pair once. fxp8: all 2^16 pairs of values, rows of 256 packed by 8 (and rows of 12 by 4,
     * 9 not at all); fxp16: the extremes, 0, +-1, 2^(P-1) (whose products with odd values are ties) and seeded
     * random raw values, 256 of them times 260 packed by 4 (258 by 2, 9 not at all). The IR calls the form the
     * row packs into, so that the comparison checks the P lowering.
     */
    @ParameterizedTest(name = "{0} rounding {1} overflow {2}, rows of {3}: {4}")
    @CsvSource({"fxp16_13, nearest, saturate, 260, @byodt_p16x4_mul_nearest_saturate(",
        "fxp16_13, nearest, wrap, 258, @byodt_p16x2_mul_nearest_wrap(", "fxp16_8, truncate, saturate, 260, @byodt_p16x4_mul_truncate_saturate(",
        "fxp16_5, truncate, wrap, 260, @byodt_p16x4_mul_truncate_wrap(", "fxp16_0, nearest, saturate, 9, @byodt_p16_mul_nearest_saturate(",
        "fxp16_15, nearest, saturate, 260, @byodt_p16x4_mul_nearest_saturate(", "fxp16_1, nearest, wrap, 9, @byodt_p16_mul_nearest_wrap(",
        "fxp8_4, nearest, saturate, 256, @byodt_p8x8_mul_nearest_saturate(", "fxp8_4, nearest, wrap, 256, @byodt_p8x8_mul_nearest_wrap(",
        "fxp8_7, truncate, saturate, 256, @byodt_p8x8_mul_truncate_saturate(", "fxp8_1, truncate, wrap, 256, @byodt_p8x8_mul_truncate_wrap(",
        "fxp8_2, truncate, wrap, 12, @byodt_p8x4_mul_truncate_wrap(",
        "fxp8_0, nearest, saturate, 256, @byodt_p8x8_mul_nearest_saturate(", "fxp8_3, nearest, saturate, 9, @byodt_p8_mul_nearest_saturate("})
    void productsHaveTheSameBitsWithThePModel(String datatype, String rounding, String overflow, int row, String call) {
        int bits = datatype.startsWith("fxp8") ? 8 : 16, fraction = Integer.parseInt(datatype.substring(datatype.indexOf('_') + 1));
        List<Integer> raw = new ArrayList<>();
        if (bits == 8) {
            for (int v = -128; v < 128; v++) raw.add(v);
        } else {
            raw.addAll(List.of(-32768, -32767, -1, 0, 1, 32767, 1 << Math.max(fraction - 1, 0), -(1 << Math.max(fraction - 1, 0)), 3, -3));
            Random random = new Random(datatype.hashCode() + row);
            while (raw.size() < Math.max(256, row)) raw.add(random.nextInt(65536) - 32768);
        }
        float scale = (float) Math.scalb(1.0, -fraction);
        float[] column = new float[256], values = new float[row];
        for (int i = 0; i < column.length; i++) column[i] = raw.get(i) * scale;
        for (int j = 0; j < row; j++) values[j] = raw.get((j * 7 + 3) % raw.size()) * scale;
        Graph graph = oneNode("Mul", new long[]{256, 1}, new long[]{1, row});
        List<Tensor> inputs = List.of(Tensor.ofFloats(new long[]{256, 1}, column), Tensor.ofFloats(new long[]{1, row}, values));
        DatatypeChoice datatypes = choice(datatype, "dtype", Map.of("rounding", rounding, "overflow", overflow));
        assertArrayEquals(run(graph, Target.host(), datatypes, inputs).getFirst(), run(graph, hostWithPModel(), datatypes, inputs).getFirst());
        String ir = llvmIr(graph, hostWithPModel(), datatypes);
        assertTrue(ir.contains(call), call + " in the IR");
        assertEquals(row != 9, ir.contains("@byodt_p" + bits + "x"), "packed forms only where rows pack");
    }

    /**
     * Dot products with --accumulate dtype: each product rounded to the format and added with saturation (or
     * wrapped) in the scalar nest's order, computed in lanes across outputs: MatMul's and Gemm's rows of
     * accumulators (12, 10 or 7 columns, in words of 4 or 8 lanes, those left over one at a time; B gathered
     * where it is the caller's), Conv across output maps (8 maps of
     * 6x6 outputs) and on padded planes (5 maps of 9x9, the windows' values gathered). Inputs beyond the range
     * now and then, so that products and sums saturate.
     */
    @ParameterizedTest(name = "{0} in {1} {2}: {3}")
    @CsvSource({"MatMul 3x19 19x12, fxp16_13, '', @byodt_p16x4_mul_nearest_saturate(",
        "MatMul 3x19 19x10, fxp16_10, overflow=wrap, @byodt_p16x4_mul_nearest_wrap(", "MatMul 4x5 5x7, fxp16_13, '', @byodt_p16_mul_nearest_saturate(",
        "Gemm 5x9 9x12, fxp16_12, rounding=truncate, @byodt_p16x4_mul_truncate_saturate(",
        "Conv 3x6x6 8, fxp16_13, '', @byodt_p16x4_mul_nearest_saturate(", "Conv 2x9x9 5, fxp16_13, '', @byodt_p16x4_mul_nearest_saturate(",
        "Conv 2x9x9 5, fxp16_11, overflow=wrap, @byodt_p16x4_mul_nearest_wrap(",
        "MatMul 3x19 19x16, fxp8_4, '', @byodt_p8x8_mul_nearest_saturate(", "Gemm 5x9 9x12, fxp8_3, overflow=wrap, @byodt_p8x8_mul_nearest_wrap(",
        "Conv 3x6x6 8, fxp8_4, '', @byodt_p8x8_mul_nearest_saturate(", "Conv 2x9x9 5, fxp8_5, rounding=truncate, @byodt_p8x8_mul_truncate_saturate("})
    void dotProductsWithDatatypeAccumulationHaveTheSameBitsWithThePModel(String shapes, String datatype, String option, String call) {
        String[] parts = shapes.split(" ");
        Graph graph = parts[0].equals("Conv") ? conv(shape(parts[1]), Integer.parseInt(parts[2])) : oneNode(parts[0], shape(parts[1]), shape(parts[2]));
        Random random = new Random(shapes.hashCode());
        List<Tensor> inputs = new ArrayList<>();
        for (var input : graph.inputs()) {
            float[] values = new float[(int) java.util.Arrays.stream(input.type().shape()).reduce(1, (a, b) -> a * b)];
            for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextGaussian() * (i % 7 == 0 ? 40 : 1.5));
            inputs.add(Tensor.ofFloats(input.type().shape(), values));
        }
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        DatatypeChoice datatypes = choice(datatype, "dtype", options);
        assertArrayEquals(run(graph, Target.host(), datatypes, inputs).getFirst(), run(graph, hostWithPModel(), datatypes, inputs).getFirst());
        assertTrue(llvmIr(graph, hostWithPModel(), datatypes).contains(call), call + " in the IR");
    }

    /** A 3x3 Conv, padding 1, of an input of {@code chw} (channels, height, width) into {@code maps} maps, constant random weights and bias. */
    private static Graph conv(long[] chw, int maps) {
        Random random = new Random(maps);
        Value x = new Value("x");
        x.setType(new TensorType(ElementType.FLOAT32, new long[]{1, chw[0], chw[1], chw[2]}));
        float[] weights = new float[(int) (maps * chw[0] * 9)], bias = new float[maps];
        for (int i = 0; i < weights.length; i++) weights[i] = (float) (random.nextGaussian() * (i % 11 == 0 ? 30 : 0.8));
        for (int i = 0; i < maps; i++) bias[i] = (float) random.nextGaussian();
        Value w = new Value("w");
        w.setConstant(Tensor.ofFloats(new long[]{maps, chw[0], 3, 3}, weights));
        Value b = new Value("b");
        b.setConstant(Tensor.ofFloats(new long[]{maps}, bias));
        Value out = new Value("out");
        Map<String, dev.byodt.compiler.graph.Attribute> attributes = Map.of("pads", new dev.byodt.compiler.graph.Attribute.IntsAttr(new long[]{1, 1, 1, 1}));
        Node node = new Node("conv", "Conv", "", 13, List.of(x, w, b), List.of(out), attributes);
        out.setType(Operators.lookup("Conv").inferTypes(node).getFirst());
        return new Graph("Conv" + maps, List.of(x), List.of(out), List.of(node));
    }

    /**
     * Clip to the symmetric saturation range [-2^k, 2^k - 1] (raw values of fxp16_13: [-1, 1 - 2^-13] is k = 13,
     * [-0.5, 0.5 - 2^-13] k = 12; of fxp8_4: [-8, 8 - 2^-4] is k = 7, [-1, 1 - 2^-4] k = 4) is one SCLIP16 or
     * SCLIP8, from attributes (opset 6) or constant inputs (opset 13); other bounds keep SMAX and SMIN. Inputs
     * reach beyond the bounds often.
     */
    @ParameterizedTest(name = "Clip opset {0} [{1}, {2}] in {3} calls {4}")
    @CsvSource({"6, -1, 0.9998779296875, fxp16_13, @byodt_p16x4_clip13(", "13, -0.5, 0.4998779296875, fxp16_13, @byodt_p16x4_clip12(",
        "13, -1, 1, fxp16_13, @byodt_p16x4_max(", "6, 0, 6, fxp16_13, @byodt_p16x4_max(", "6, -8, 7.9375, fxp8_4, @byodt_p8x8_clip7(",
        "13, -1, 0.9375, fxp8_4, @byodt_p8x8_clip4(", "13, -1, 1, fxp8_4, @byodt_p8x8_max("})
    void clipsHaveTheSameBitsWithThePModel(int opset, float low, float high, String datatype, String call) {
        Graph graph = clip(opset, low, high);
        Random random = new Random(opset);
        long[] shape = graph.inputs().getFirst().type().shape();
        float[] values = new float[(int) (shape[0] * shape[1])];
        for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextGaussian() * 0.8);
        List<Tensor> inputs = List.of(Tensor.ofFloats(shape, values));
        DatatypeChoice datatypes = choice(datatype, "dtype", Map.of());
        assertArrayEquals(run(graph, Target.host(), datatypes, inputs).getFirst(), run(graph, hostWithPModel(), datatypes, inputs).getFirst());
        String ir = llvmIr(graph, hostWithPModel(), datatypes);
        assertTrue(ir.contains(call), call + " in the IR");
        String max = call.substring(0, call.lastIndexOf('_')) + "_max(";
        assertEquals(call.contains("clip"), !ir.contains(max), max + " where no clip applies only");
    }

    /** Clip of a [5, 13] input: bounds as attributes before opset 11, as constant inputs from it on. */
    static Graph clip(int opset, float low, float high) {
        Value x = new Value("x");
        x.setType(new TensorType(ElementType.FLOAT32, new long[]{5, 13}));
        List<Value> inputs = new ArrayList<>(List.of(x));
        Map<String, dev.byodt.compiler.graph.Attribute> attributes = new java.util.HashMap<>();
        if (opset < 11) {
            attributes.put("min", new dev.byodt.compiler.graph.Attribute.FloatAttr(low));
            attributes.put("max", new dev.byodt.compiler.graph.Attribute.FloatAttr(high));
        } else {
            for (float bound : new float[]{low, high}) {
                Value v = new Value("bound" + inputs.size());
                v.setConstant(Tensor.ofFloats(new long[0], new float[]{bound}));
                inputs.add(v);
            }
        }
        Value out = new Value("out");
        Node node = new Node("clip", "Clip", "", opset, inputs, List.of(out), attributes);
        out.setType(Operators.lookup("Clip").inferTypes(node).getFirst());
        return new Graph("Clip" + opset, List.of(x), List.of(out), List.of(node));
    }

    /** fxp16_13 for fxp16_13x2: lanes are an error without P, and the results must not depend on them. */
    private static String withoutLanes(String datatype) { return datatype.replaceFirst("x\\d+$", ""); }

    private static long[] shape(String text) { return java.util.Arrays.stream(text.split("x")).mapToLong(Long::parseLong).toArray(); }

    /** A graph of one node of {@code opType} on float inputs of these shapes (b null: a unary node). */
    static Graph oneNode(String opType, long[] a, long[] b) {
        List<Value> inputs = new ArrayList<>();
        for (long[] shape : b == null ? List.of(a) : List.of(a, b)) {
            Value v = new Value("in" + inputs.size());
            v.setType(new TensorType(ElementType.FLOAT32, shape));
            inputs.add(v);
        }
        Value out = new Value("out");
        Node node = new Node(opType.toLowerCase(), opType, "", 13, inputs, List.of(out), Map.of());
        out.setType(Operators.lookup(opType).inferTypes(node).getFirst());
        return new Graph(opType, inputs, List.of(out), List.of(node));
    }

    private String llvmIr(Graph graph, Target target, DatatypeChoice datatypes) {
        CompileOptions options = CompileOptions.host().withTarget(target).withDatatypes(datatypes).withInlineLibraries(false);
        Path ll = work.resolve(graph.name() + ".ll");
        try (CompiledModule compiled = Compiler.compile(graph, options)) {
            new Emitter().emit(EmitKind.LLVM, compiled, ll);
        }
        return assertDoesNotThrow(() -> Files.readString(ll));
    }

    @ParameterizedTest(name = "{0} on {1}: {2}")
    @CsvSource({"fxp16_13x4, riscv64p, ''", "fxp16_13x2, riscv64p, ''", "fxp16_13x2, riscv32p, ''", "fxp8_4x8, riscv64p, ''",
        "fxp8_4x4, riscv64p, ''", "fxp8_4x4, riscv32p, ''", "fxp16_13x4, riscv32p, a register holds 2 16-bit lanes",
        "fxp8_4x8, riscv32p, a register holds 4 8-bit lanes",
        "fxp16_13x2, riscv64, 'packed lanes need a P target (fxp16_P x2 or fxp8_P x4: riscv32p or riscv64p; x4 or x8: riscv64p)'",
        "custom[posit]16x2, riscv64p, the P extension packs fxp16_P and fxp8_P only", "fxp16_13x8, riscv64p, P packs 2 or 4 16-bit lanes",
        "fxp8_4x2, riscv64p, P packs 4 or 8 8-bit lanes"})
    void lanesAreValidOnlyWhereAPRegisterHoldsThem(String datatype, String target, String problem) {
        Target chosen = Targets.named(target, null, null);
        DatatypeChoice datatypes = choice(datatype, "dtype", Map.of());
        if (problem.isEmpty()) {
            // The register's 16-bit lanes: fxp8_P's 8-bit lanes fill the same word.
            int laneBits = datatype.startsWith("fxp8") ? 8 : 16;
            assertEquals(Integer.parseInt(datatype.substring(datatype.length() - 1)) * laneBits / 16, PExtension.lanes(chosen, datatypes));
        } else {
            ByodtException e = assertThrows(ByodtException.class, () -> chosen.check(datatypes));
            assertEquals("datatype " + datatype + " on target " + target + ": " + problem, e.getMessage());
        }
    }

    @Test
    void withoutLanesAPTargetPacksAWholeRegister() {
        DatatypeChoice datatypes = choice("fxp16_13", "dtype", Map.of());
        assertEquals(4, PExtension.lanes(Targets.named("riscv64p", null, null), datatypes));
        assertEquals(2, PExtension.lanes(Targets.named("riscv32p", null, null), datatypes));
    }

    @ParameterizedTest(name = "{0} {1} --accumulate {2} calls {3}")
    @CsvSource({"test_add, fxp16_13, dtype, @byodt_p16x4_add_saturate(", "test_gemm_default_no_bias, fxp16_13, exact, @byodt_p16_acc_mac4(",
        "test_matmul_2d, fxp16_13, exact, @byodt_p16_acc_mac4(", "test_matmul_2d, fxp16_13x2, exact, @byodt_p16_acc_mac2("})
    void thePModelIsWhatTheHostBuildRuns(String testCase, String datatype, String accumulate, String call) {
        Graph graph = OnnxLoader.load(NODE_TESTS.resolve(testCase).resolve("model.onnx"));
        assertTrue(llvmIr(graph, hostWithPModel(), choice(datatype, accumulate, Map.of())).contains(call), call + " in the IR of " + testCase);
    }

    @ParameterizedTest(name = "{0} opcode {1}")
    @CsvSource({"riscv64p, 0x77", "riscv32p, 0x77", "riscv64p, 0x7f"})
    void everyPInstructionWordInTheObjectIsInTheTable(String targetName, String opcode) throws Exception {
        int major = Integer.decode(opcode);
        Graph graph = OnnxLoader.load(MODELS.resolve("lenet5-fashion.onnx"));
        Map<String, Integer> found = pInstructions(graph, Targets.named(targetName, null, major), choice("fxp16_13", "exact", Map.of()));
        // LeNet-5 adds biases (KADD16) and, with exact accumulation, sums products in its Conv and Gemm (SMALDA).
        assertTrue(found.keySet().containsAll(Set.of("KADD16", "SMALDA")), "P instructions found: " + found);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"riscv64p", "riscv32p"})
    void fxp8DotProductsEmitSmaqaWordsOfTheTable(String targetName) throws Exception {
        Graph graph = oneNode("MatMul", new long[]{3, 19}, new long[]{19, 5});
        Map<String, Integer> found = pInstructions(graph, Targets.named(targetName, null, null), choice("fxp8_4", "exact", Map.of()));
        assertTrue(found.containsKey("SMAQA"), "P instructions found: " + found);
    }

    /**
     * LeNet-5 with --accumulate dtype on riscv64p rounds its products in lanes: fxp16_13's by SMBB16/SMTT16,
     * KSLL32 and KADD32 (SLL32 and ADD32 wrapping) and PKTT16, fxp8_4's by KHM16, SRA16, KSLL16 (SLL16 wrapping).
     */
    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource({"fxp16_13, '', SMBB16 SMTT16 KSLL32 KADD32 PKTT16 KADD16", "fxp16_13, overflow=wrap, SMBB16 SMTT16 SLL32 ADD32 PKTT16 ADD16",
        "fxp8_4, '', KHM16 SRA16 KSLL16 KADD16 KADD8", "fxp8_4, overflow=wrap, KHM16 SRA16 SLL16 ADD16 ADD8"})
    void roundedProductsEmitWordsOfTheTable(String datatype, String option, String instructions) throws Exception {
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        Graph graph = OnnxLoader.load(MODELS.resolve("lenet5-fashion.onnx"));
        Map<String, Integer> found = pInstructions(graph, Targets.named("riscv64p", null, null), choice(datatype, "dtype", options));
        assertTrue(found.keySet().containsAll(List.of(instructions.split(" "))), "P instructions found: " + found);
    }

    /** fxp8 element-wise operations in 8 (riscv64p) or 4 (riscv32p) 8-bit lanes: the 8-bit instructions of the table. */
    @ParameterizedTest(name = "{0} {1} on {2}: {3}")
    @CsvSource({"Add, '', riscv64p, KADD8", "Add, overflow=wrap, riscv64p, ADD8", "Sub, '', riscv64p, KSUB8",
        "Sub, overflow=wrap, riscv32p, SUB8", "Max, '', riscv32p, SMAX8", "Min, '', riscv64p, SMIN8",
        "Add, '', riscv32p, KADD8", "Relu, '', riscv64p, SMAX8"})
    void fxp8ElementWiseOpsEmit8BitWordsOfTheTable(String op, String option, String targetName, String instruction) throws Exception {
        Graph graph = oneNode(op, new long[]{3, 24}, op.equals("Relu") ? null : new long[]{3, 24});
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        Map<String, Integer> found = pInstructions(graph, Targets.named(targetName, null, null), choice("fxp8_4", "dtype", options));
        assertTrue(found.containsKey(instruction), "P instructions found: " + found);
    }

    @ParameterizedTest(name = "{0} {1}: {3}")
    @CsvSource({"riscv64p, fxp16_13, -1, SCLIP16, SMAX16", "riscv32p, fxp16_13, -1, SCLIP16, SMAX16", "riscv64p, fxp8_4, -8, SCLIP8, SMAX8",
        "riscv32p, fxp8_4, -8, SCLIP8, SMAX8"})
    void symmetricClipsEmitSclipWordsOfTheTable(String targetName, String datatype, float low, String clip, String max) throws Exception {
        int fraction = Integer.parseInt(datatype.substring(datatype.indexOf('_') + 1));
        Graph graph = clip(6, low, -low - (float) Math.scalb(1.0, -fraction));
        Map<String, Integer> found = pInstructions(graph, Targets.named(targetName, null, null), choice(datatype, "dtype", Map.of()));
        assertTrue(found.containsKey(clip) && !found.containsKey(max), "P instructions found: " + found);
    }

    /**
     * The P instructions in the object compiled for {@code target}, by name and count; every word under the
     * target's P opcode must be in the table, and none under the other opcode.
     */
    private Map<String, Integer> pInstructions(Graph graph, Target target, DatatypeChoice datatypes) throws Exception {
        Path object = work.resolve(target.name() + "-" + graph.name() + ".o");
        try (CompiledModule compiled = Compiler.compile(graph, CompileOptions.host().withTarget(target).withDatatypes(datatypes))) {
            new Emitter().emit(EmitKind.OBJ, compiled, object);
        }
        int major = target.extension().orElseThrow().opcode(), other = major == 0x77 ? 0x7F : 0x77;
        Map<String, Integer> found = new java.util.TreeMap<>();
        for (ElfFunctions.Function function : ElfFunctions.read(Files.readAllBytes(object), object.toString())) {
            for (int word : RiscvInstructions.split(function.code())) {
                if (RiscvInstructions.isCompressed(word)) continue;
                assertNotEquals(other, RiscvInstructions.opcode(word), "a word under the other P opcode in " + function.name());
                if (RiscvInstructions.opcode(word) != major) continue;
                var instruction = PExtension.decode(RiscvInstructions.funct3(word), RiscvInstructions.funct7(word));
                assertTrue(instruction.isPresent(), "unknown P word 0x" + Integer.toHexString(word) + " in " + function.name());
                found.merge(instruction.get().name(), 1, Integer::sum);
            }
        }
        return found;
    }
}
