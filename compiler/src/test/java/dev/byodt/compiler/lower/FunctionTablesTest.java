package dev.byodt.compiler.lower;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.reference.FixedReference;
import dev.byodt.compiler.dtype.reference.Hyperbolic;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.compiler.p.PExtension;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A model's Tanh, Sigmoid and Exp in fxp8_P and fxp16_P look their results up in a table of every value: run on
 * an input holding every value of the format, each output is the exact value correctly rounded
 * ({@link Hyperbolic}), on the host and with the host's P model, and the code calls no such function: the
 * table served every value.
 */
@Execution(ExecutionMode.CONCURRENT)
class FunctionTablesTest {
    @ParameterizedTest(name = "{0} in {1} {2}")
    @CsvSource({"Tanh, fxp16_13, ''", "Sigmoid, fxp16_13, ''", "Exp, fxp16_13, ''", "Tanh, fxp16_15, rounding=truncate",
        "Exp, fxp16_8, rounding=truncate", "Sigmoid, fxp16_0, ''", "Tanh, fxp8_4, ''", "Sigmoid, fxp8_7, rounding=truncate", "Exp, fxp8_4, ''"})
    void everyValueIsLookedUpCorrectlyRounded(String opType, String datatype, String option) {
        int n = Integer.parseInt(datatype.substring(3, datatype.indexOf('_')));
        int p = Integer.parseInt(datatype.substring(datatype.indexOf('_') + 1));
        Map<String, String> options = option.isEmpty() ? Map.of() : Map.of(option.split("=")[0], option.split("=")[1]);
        FixedReference ref = new FixedReference(n, p, false, option.equals("rounding=truncate"));
        float[] every = new float[1 << n];
        for (int x = 0; x < every.length; x++) every[x] = (float) (ref.signed(x) / Math.pow(2, p));
        Graph graph = oneNode(opType, every.length);
        DatatypeChoice datatypes = DatatypeChoice.float32().withDatatype(datatype).withOptions(options);
        String function = datatype + "_" + opType.toLowerCase();
        for (Target target : List.of(Target.host(), Target.host().with(new PExtension(PExtension.OPCODE)))) {
            CompileOptions compile = CompileOptions.host().withTarget(target).withDatatypes(datatypes);
            float[] out;
            try (CompiledModule compiled = Compiler.compile(graph, compile); HostModel model = Compiler.jit(compiled)) {
                out = model.run(List.of(Tensor.ofFloats(new long[]{every.length}, every))).getFirst().toFloatArray();
            }
            for (int x = 0; x < every.length; x++) {
                long s = ref.signed(x);
                int expected = switch (opType) {
                    case "Tanh" -> Hyperbolic.tanh(ref, s, p);
                    case "Sigmoid" -> Hyperbolic.sigmoid(ref, s, p);
                    default -> Hyperbolic.exp(ref, s, p);
                };
                assertEquals(ref.signed(expected) / Math.pow(2, p), out[x], 0, opType + "(" + every[x] + ") in " + datatype + " on " + target.name());
            }
            String ir = unoptimizedIr(graph, compile);
            assertFalse(Pattern.compile("call [^@\\n]*@" + function + "\\(").matcher(ir).find(), "a call of " + function + " is left on " + target.name());
            assertTrue(ir.contains(function + "_table"), "no table of " + function + " on " + target.name());
        }
    }

    /** Unoptimized, with the library out of line, so that a call of the function would still be in the IR. */
    private static String unoptimizedIr(Graph graph, CompileOptions options) {
        try (CompiledModule compiled = Compiler.compile(graph, options.withOptimize(false).withInlineLibraries(false))) {
            return compiled.printIr();
        }
    }

    private static Graph oneNode(String opType, int length) {
        Value x = new Value("x");
        x.setType(new TensorType(ElementType.FLOAT32, new long[]{length}));
        Value out = new Value("out");
        Node node = new Node(opType.toLowerCase(), opType, "", 13, List.of(x), List.of(out), Map.of());
        out.setType(Operators.lookup(opType).inferTypes(node).getFirst());
        return new Graph(opType, List.of(x), List.of(out), List.of(node));
    }
}
