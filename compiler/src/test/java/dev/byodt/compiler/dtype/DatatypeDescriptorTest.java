package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.dtype.plugin.DatatypeDescriptor;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.byodt.compiler.dtype.DatatypePrograms.q8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A datatype registered by a YAML descriptor beside its C library: the test's Q8.8 library (q8.c) described
 * without Java computes what the Java registration computes, and every mistake in a descriptor is one line
 * naming the file and the key.
 */
class DatatypeDescriptorTest {
    private static final String Q8 = """
        name: q8d
        code: 220
        summary: Q8.8 fixed point, described
        widths: [16]
        library: q8.c
        prefix: q8
        ops: [add, sub, mul, div, neg, abs, from_f32, to_f32, from_i32, to_i32, from_f64, lowest, acc_mac, acc_add, acc_round]
        comparisons: signed-integer
        accumulation: [float32, exact]
        exact-accumulator-bits: 128
        """;

    @TempDir
    Path dir;

    @BeforeEach
    void copyTheLibrary() throws IOException {
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(TestDatatypes.Q8_C)) {
            Files.write(dir.resolve("q8.c"), in.readAllBytes());
        }
    }

    private Path descriptor(String text) throws IOException {
        return Files.writeString(dir.resolve("q8d.yaml"), text);
    }

    private DatatypeRegistry registryWith(String text) throws IOException {
        DatatypeRegistry registry = TestDatatypes.registryWithFloat32();
        DatatypeDescriptor.register(descriptor(text), registry);
        return registry;
    }

    private String readError(String text) throws IOException {
        Path file = descriptor(text);
        String message = assertThrows(ByodtException.class, () -> DatatypeDescriptor.register(file, DatatypeRegistry.withBuiltIns())).getMessage();
        assertFalse(message.contains("\n"), "one line: " + message);
        return message;
    }

    @Test
    void theDescribedDatatypeAccumulatesExactlyLikeItsJavaTwin() throws IOException {
        DatatypeRegistry registry = registryWith(Q8);
        DatatypeDefinition d = registry.definitions().getLast();
        assertEquals("q8d", d.name());
        assertEquals(220, d.code());
        assertEquals(dir.resolve("q8d.yaml").toString(), d.origin());
        assertEquals(List.of(AccumulationMode.DTYPE, AccumulationMode.FLOAT32, AccumulationMode.EXACT), List.copyOf(d.accumulationModes()));

        int k = 40, n = 6;
        Random random = new Random(7);
        float[] w = new float[k * n], x = new float[k];
        for (int i = 0; i < w.length; i++) w[i] = (random.nextFloat() - 0.5f) * 3;
        for (int i = 0; i < x.length; i++) x[i] = (random.nextFloat() - 0.5f) * 3;
        CompileOptions exact = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withRegistry(registry)
            .withDatatype("custom[q8d]16").withAccumulation(AccumulationMode.EXACT));
        float[] actual = DatatypePrograms.run(DatatypePrograms.dot(w, k, n), exact, x);
        for (int j = 0; j < n; j++) {
            double sum = 0;   // Q8.8 products are multiples of 2^-16: exact in double
            for (int i = 0; i < k; i++) sum += (double) q8(x[i]) * q8(w[i * n + j]);
            assertEquals(q8(sum), actual[j], "output " + j);
        }
    }

    @Test
    void signedIntegerComparisonsAreInlineAndATableNamesAFunctionPerWidth() throws IOException {
        DatatypeRegistry registry = registryWith(Q8 + "functions: {max: {16: q8_add}, min: q8_sub}\n");
        DatatypeInstance q8 = registry.instance("custom[q8d]16", Map.of());
        List<Expr> operands = List.of(new Expr.IntConst(ScalarType.I16, 1), new Expr.IntConst(ScalarType.I16, 2));
        Expr lt = q8.lowering(DatatypeOp.of(ScalarOp.LT), LoweringTarget.HOST).orElseThrow().lower(new LoweringSite(DatatypeOp.of(ScalarOp.LT), q8, operands));
        assertEquals(Exprs.lt(operands.get(0), operands.get(1)), lt);
        Expr max = q8.lowering(DatatypeOp.of(ScalarOp.MAX), LoweringTarget.HOST).orElseThrow().lower(new LoweringSite(DatatypeOp.of(ScalarOp.MAX), q8, operands));
        assertEquals("q8_add", assertInstanceOf(Expr.Call.class, max).function());
        Expr min = q8.lowering(DatatypeOp.of(ScalarOp.MIN), LoweringTarget.HOST).orElseThrow().lower(new LoweringSite(DatatypeOp.of(ScalarOp.MIN), q8, operands));
        assertEquals("q8_sub", assertInstanceOf(Expr.Call.class, min).function());
    }

    @Test
    void theLibraryGetsTheWidthTheDefinesAndTheChosenOptions() throws IOException {
        DatatypeRegistry registry = registryWith(Q8 + "defines: {Q8_SCALE: 256}\noptions: {overflow: [saturate, wrap]}\n");
        NativeLibrary library = registry.instance("custom[q8d]16", Map.of("overflow", "wrap")).library().orElseThrow();
        assertEquals(List.of("BYODT_PREFIX=q8", "BYODT_BITS=16", "Q8_SCALE=256", "BYODT_OVERFLOW_WRAP=1"), library.defines());
        assertEquals(dir.resolve("q8.c").toString(), library.source().displayName());
    }

    @Test
    void aFunctionTheLibraryLacksOrMistypesNamesTheDescriptor() throws IOException {
        Path file = descriptor(Q8 + "functions: {max: q8_biggest, min: q8_to_i32}\n");
        DatatypeRegistry registry = TestDatatypes.registryWithFloat32();
        DatatypeDescriptor.register(file, registry);
        Program program = DatatypePrograms.elementwise("m", "Max", 8, ScalarType.REAL,
            v -> Exprs.min(Exprs.max(v, Exprs.real(1)), Exprs.real(2)));
        CompileOptions options = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withRegistry(registry).withDatatype("custom[q8d]16"));
        String message = assertThrows(ByodtException.class, () -> Compiler.compile(program, options).close()).getMessage();
        String library = dir.resolve("q8.c") + " (-DBYODT_PREFIX=q8 -DBYODT_BITS=16) of " + file;
        assertEquals("the datatype library " + library + " defines no function q8_biggest (max of custom[q8d]16); q8_to_i32 in "
            + library + " has type i32 (i16), but the lowering (min of custom[q8d]16) calls it as i16 (i16, i16)", message);
    }

    @Test
    void unknownAndMissingKeys() throws IOException {
        Path file = dir.resolve("q8d.yaml");
        assertTrue(readError(Q8 + "prefx: q8\n").startsWith(file + ": prefx: unknown key (keys: name, code, summary,"));
        assertEquals(file + ": name: missing", readError(Q8.replace("name: q8d\n", "")));
        assertEquals(file + ": code: missing", readError(Q8.replace("code: 220\n", "")));
        assertEquals(file + ": library: missing", readError(Q8.replace("library: q8.c\n", "")));
        assertEquals(file + ": widths: lists no width", readError(Q8.replace("widths: [16]\n", "")));
    }

    @Test
    void badValues() throws IOException {
        Path file = dir.resolve("q8d.yaml");
        assertEquals(file + ": library: no file " + dir.resolve("q9.c"), readError(Q8.replace("q8.c", "q9.c")));
        assertEquals(file + ": code: expected an integer, not 'twenty'", readError(Q8.replace("220", "twenty")));
        assertEquals(file + ": widths: 64 is not a width of 1 to 32 bits (values are stored in 8, 16 or 32 bits)",
            readError(Q8.replace("[16]", "[16, 64]")));
        assertTrue(readError(Q8.replace("[add,", "[plus,")).startsWith(file + ": ops: no operation 'plus' (operations: add, sub,"));
        assertTrue(readError(Q8 + "functions: {plus: q8_add}\n").startsWith(file + ": functions: no operation 'plus'"));
        assertEquals(file + ": accumulation: unknown accumulation mode 'quire' (dtype, float32, exact, int:W[:wrap|:saturate]"
            + " or fused:F=<bits>,G=<group>[,rounding=rz|rne] or fused:<preset>)",
            readError(Q8.replace("[float32, exact]", "[float32, quire]")));
        assertEquals(file + ": accumulation: int:32:wrap is for built-in datatypes only (dtype, float32 or exact)",
            readError(Q8.replace("[float32, exact]", "[float32, exact, 'int:32']")));
        assertEquals(file + ": exact-accumulator-bits: missing: accumulation lists exact", readError(Q8.replace("exact-accumulator-bits: 128\n", "")));
        assertEquals(file + ": exact-accumulator-bits: 100 is not 64, 128, 256, 512 or 1024", readError(Q8.replace("128", "100")));
        assertEquals(file + ": comparisons: 'unsigned' is not signed-integer", readError(Q8.replace("signed-integer", "unsigned")));
        String yaml = readError("name: [q8d\ncode: 220\n");
        assertTrue(yaml.startsWith(file + ": not valid YAML: expected ',' or ']'") && yaml.endsWith("(line 2)"), yaml);
    }

    @Test
    void aTypeCodeOrNameTakenByARegisteredDatatype() throws IOException {
        Path file = dir.resolve("q8d.yaml");
        assertEquals(file + ": code: datatype q8d: type code 131 is already registered to posit", readError(Q8.replace("220", "131")));
        assertEquals(file + ": name: datatype posit: the name clashes with the registered posit", readError(Q8.replace("q8d", "posit")));
    }
}
