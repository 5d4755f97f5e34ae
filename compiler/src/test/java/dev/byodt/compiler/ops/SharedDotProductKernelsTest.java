package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two convolutions of the same shape whose constant weights differ (and so do the weights' extremes, which the
 * check of an emulated dot product's kernel takes as it starts) compile to one function in posit8, as they do in
 * float32, and compute the reference nests' bits, each with its own weights.
 */
class SharedDotProductKernelsTest {
    private static final Pattern KERNEL = Pattern.compile("^define [^@]*@\"(k[^\"]+)\"\\(", Pattern.MULTILINE);

    @Test
    void convolutionsThatDifferOnlyInTheirWeightsShareOneFunction() {
        Random random = new Random(7);
        long[] shape = {1, 4, 6, 6};
        Value x = value("x", shape);
        Value hidden = value("hidden", shape);
        Value y = value("y", shape);
        Tensor weights = ScheduleCases.gridValues(new long[] {4, 4, 3, 3}, random);
        float[] doubled = weights.toFloatArray();
        for (int i = 0; i < doubled.length; i++) doubled[i] *= 2;
        Graph graph = new Graph("two convolutions", List.of(x), List.of(y), List.of(
            conv("first", x, constant("w1", weights), constant("b1", ScheduleCases.gridValues(new long[] {4}, random)), hidden),
            conv("second", hidden, constant("w2", Tensor.ofFloats(weights.shape(), doubled)),
                constant("b2", ScheduleCases.gridValues(new long[] {4}, random)), y)));
        List<Tensor> input = List.of(ScheduleCases.gridValues(shape, random));
        CompileOptions posit8 = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype("custom[posit]8"));
        Program scheduled = GraphLowering.lowerScheduled(graph, node -> TunedSchedulesTest.FLOAT32_VECTORS);
        try (CompiledModule module = Compiler.compile(scheduled, posit8); HostModel model = Compiler.jit(module)) {
            List<String> kernels = KERNEL.matcher(module.printIr()).results().map(m -> m.group(1))
                .filter(name -> name.contains(".Conv.")).toList();
            assertEquals(List.of("k1.Conv.first (+1 identical)"), kernels);
            Tensor reference = DecodedOperandsTest.run(DecodedOperandsTest.perProduct(GraphLowering.lower(graph)),
                "custom[posit]8", AccumulationMode.DTYPE, input);
            assertArrayEquals(TunedSchedulesTest.bits(reference), TunedSchedulesTest.bits(model.run(input).getFirst()));
        }
    }

    private static Node conv(String name, Value x, Value w, Value b, Value y) {
        return new Node(name, "Conv", "", 13, List.of(x, w, b), List.of(y), attributes("pads", new long[] {1, 1, 1, 1}));
    }

    private static Value value(String name, long[] shape) {
        Value v = new Value(name);
        v.setType(new TensorType(ElementType.FLOAT32, shape));
        return v;
    }

    private static Value constant(String name, Tensor t) {
        Value v = value(name, t.shape());
        v.setConstant(t);
        return v;
    }
}
