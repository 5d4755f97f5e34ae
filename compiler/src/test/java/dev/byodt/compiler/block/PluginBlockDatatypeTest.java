package dev.byodt.compiler.block;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.harness.FunctionShape;
import dev.byodt.compiler.dtype.harness.NativeLibrary;
import dev.byodt.compiler.dtype.plugin.DatatypeDescriptor;
import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static dev.byodt.compiler.block.BlockDotsTest.K;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A block datatype a plug-in declares over its own element: the int6 example (examples/int6: int6.c and the
 * descriptor int6.yaml, which declares mxint6, 32 int6 elements under an E8M0 scale by the floor rule). Its
 * library is built and decodes every one of its 64 codes; those values, not the descriptor's grid, are the
 * element values of {@link BlockReference}; a MatMul of activations (quantized when it runs) and weights
 * (quantized at compile time) in mxint6 by name is then bit for bit the reference's block dot products.
 */
class PluginBlockDatatypeTest {
    private static final Path INT6 = Path.of(System.getProperty("byodt.examplesDir", "../examples"), "int6");

    @Test
    void aMatMulInTheExamplesBlockDatatypeIsTheExactReferences() {
        DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();
        DatatypeDescriptor.register(INT6.resolve("int6.yaml"), registry);
        BlockDatatypeName mxint6 = registry.parseBlock("mxint6").orElseThrow();
        assertEquals("block[custom[int6]6,32,custom[e8m0]8,floor]", mxint6.toString());
        BlockReference reference = new BlockReference(elementValues(), BlockReference.BUILT_IN_VALUES.get("custom[e8m0]8"), "floor");

        int m = 7, n = 5;
        float[] a = BlockDotsTest.seeded(61, 2 * m * K, 4), b = BlockDotsTest.seeded(62, K * n, 1);
        a[3] = -0f;
        a[K + 1] = 1e-30f;
        Graph graph = BlockDotsTest.node("MatMul", new long[] {2, m, K}, new long[] {2, m, n}, Map.of(), Tensor.ofFloats(new long[] {K, n}, b), null);
        CompileOptions options = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withRegistry(registry)).withBlock(registry.parseBlock("mxint6"));
        float[] actual;
        try (CompiledModule module = Compiler.compile(graph, options); HostModel model = Compiler.jit(module)) {
            actual = model.run(List.of(Tensor.ofFloats(new long[] {2, m, K}, a))).getFirst().toFloatArray();
        }
        float[] expected = BlockDotsTest.expectedMatMul(reference, mxint6.blockSize(), a, b, n, Rational.of(1), Rational.of(1));
        BlockDotsTest.assertBits("mxint6", expected, actual);
    }

    /** The positive finite values int6.c's to_f32 gives its 64 codes: 1/16 .. 31/16. */
    private static List<Rational> elementValues() {
        int[] codes = IntStream.range(0, 64).toArray();
        List<Rational> values = new ArrayList<>();
        try (NativeLibrary lib = NativeLibrary.builder(LibrarySource.file(INT6.resolve("int6.c")), "int6", 8)
                .operations(Map.of("to_f32", FunctionShape.TO_F32)).build()) {
            for (float v : lib.toF32("to_f32", codes)) {
                if (v > 0 && Float.isFinite(v)) values.add(Rational.of(v));
            }
        }
        assertEquals(31, values.size(), "int6's positive values");
        return values;
    }
}
