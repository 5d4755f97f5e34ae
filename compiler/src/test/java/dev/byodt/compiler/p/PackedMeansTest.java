package dev.byodt.compiler.p;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * AveragePool's 2x2 windows in fxp16_P and fxp8_P with exact sums, four means per P call: the host build with the P model
 * gives the bits of the build without P, on random tensors whose windows saturate and wrap, rows of a length 0
 * and 2 mod 4 (pairs of rows, a last unpaired one), and the call is there exactly where the rows pack (not for
 * rows of an odd length, nor an odd input that the windows do not cover).
 */
@Execution(ExecutionMode.CONCURRENT)
class PackedMeansTest {
    @ParameterizedTest(name = "{0} {1} {2}, packed: {3}")
    @CsvSource({
        "2x3x8x8, fxp16_13, '', true", "1x2x28x28, fxp16_13, '', true", "1x1x6x12, fxp16_13, overflow=wrap, true",
        "2x2x4x20, fxp16_10, '', true", "1x3x12x12, fxp16_10, overflow=wrap, true", "1x2x8x12, fxp16_15, rounding=truncate, true",
        "1x2x12x8, fxp16_12, rounding=truncate;overflow=wrap, true", "1x2x10x10, fxp16_13, '', false", "1x1x9x9, fxp16_13, '', false",
        "2x3x8x8, fxp8_4, '', true", "1x2x28x28, fxp8_4, '', true", "1x1x6x12, fxp8_4, overflow=wrap, true",
        "1x3x12x12, fxp8_6, '', true", "1x2x8x12, fxp8_7, rounding=truncate, true", "1x2x12x8, fxp8_3, rounding=truncate;overflow=wrap, true",
        "1x2x10x10, fxp8_4, '', false"})
    void meansOfRandomTensorsHaveTheSameBitsWithThePModel(String shape, String datatype, String option, boolean packed) {
        Graph graph = averagePool(java.util.Arrays.stream(shape.split("x")).mapToLong(Long::parseLong).toArray());
        Map<String, String> options = new java.util.HashMap<>();
        for (String o : option.isEmpty() ? new String[0] : option.split(";")) options.put(o.split("=")[0], o.split("=")[1]);
        DatatypeChoice datatypes = DatatypeChoice.float32().withDatatype(datatype).withAccumulation(AccumulationMode.parse("exact")).withOptions(options);
        long[] inputShape = graph.inputs().getFirst().type().shape();
        float[] values = new float[(int) java.util.Arrays.stream(inputShape).reduce(1, (a, b) -> a * b)];
        Random random = new Random((shape + datatype + option).hashCode());
        String[] format = datatype.substring("fxp".length()).split("_");
        double range = Math.pow(2, Integer.parseInt(format[0]) - 1 - Integer.parseInt(format[1]));
        // Most windows near the range's ends, so that their exact sums pass it and saturate or wrap, and others small.
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (random.nextInt(3) == 0 ? random.nextGaussian() * range / 8 : (random.nextBoolean() ? 1 : -1) * range * (0.5 + random.nextDouble() / 2));
        }
        List<Tensor> inputs = List.of(Tensor.ofFloats(inputShape, values));
        assertArrayEquals(run(graph, Target.host(), datatypes, inputs), run(graph, hostWithPModel(), datatypes, inputs));
        CompileOptions options2 = CompileOptions.host().withTarget(hostWithPModel()).withDatatypes(datatypes).withOptimize(false).withInlineLibraries(false);
        try (CompiledModule compiled = Compiler.compile(graph, options2)) {
            String means = "@byodt_p" + format[0] + "x4_mean2x2_";
            assertEquals(packed, compiled.printIr().contains(means), means + " called");
        }
    }

    private static Target hostWithPModel() { return Target.host().with(new PExtension(PExtension.OPCODE)); }

    private static float[] run(Graph graph, Target target, DatatypeChoice datatypes, List<Tensor> inputs) {
        CompileOptions options = CompileOptions.host().withTarget(target).withDatatypes(datatypes);
        try (CompiledModule compiled = Compiler.compile(graph, options); HostModel model = Compiler.jit(compiled)) {
            return model.run(inputs).getFirst().toFloatArray();
        }
    }

    private static Graph averagePool(long[] shape) {
        Value in = new Value("in");
        in.setType(new TensorType(ElementType.FLOAT32, shape));
        Value out = new Value("out");
        Node node = new Node("pool", "AveragePool", "", 13, List.of(in), List.of(out),
            Map.of("kernel_shape", new Attribute.IntsAttr(new long[]{2, 2}), "strides", new Attribute.IntsAttr(new long[]{2, 2})));
        out.setType(new TensorType(ElementType.FLOAT32, new long[]{shape[0], shape[1], shape[2] / 2, shape[3] / 2}));
        return new Graph("pool", List.of(in), List.of(out), List.of(node));
    }
}
