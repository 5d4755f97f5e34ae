package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.byodt.compiler.dtype.DatatypeOp.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each mistake in a datatype or its use is one clear line, raised before any code is generated. */
class DatatypeErrorsTest {
    private static final Program SUM = DatatypePrograms.elementwise("twice", "Add", 8, ScalarType.REAL, x -> Exprs.add(x, x));

    private static CompileOptions with(DatatypeDefinition definition) {
        DatatypeRegistry registry = TestDatatypes.registryWithFloat32();
        registry.register(definition);
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32().withRegistry(registry)
            .withDatatype("custom[" + definition.namePattern().prefix() + "]16"));
    }

    private static DatatypeDefinition.Builder t16Like(String name, LibrarySource library) {
        return DatatypeDefinition.register(name, 210).widths(16).library(library).prefix(i -> "t16")
            .registerLibraryOps(FROM_F32, TO_F32, FROM_F64);
    }

    private static LibrarySource t16Library() {
        return LibrarySource.resource(DatatypeErrorsTest.class.getClassLoader(), TestDatatypes.T16_C);
    }

    private static String error(Program program, CompileOptions options) {
        return assertThrows(ByodtException.class, () -> Compiler.compile(program, options).close()).getMessage();
    }

    @Test
    void aLibraryThatDoesNotCompileShowsClangsDiagnosticWithFileAndLine(@TempDir Path dir) throws IOException {
        Path source = dir.resolve("broken.c");
        Files.writeString(source, "#include <stdint.h>\nuint16_t t16_add(uint16_t a, uint16_t b) { return a + ; }\n");
        String message = error(SUM, with(t16Like("broken", LibrarySource.file(source)).registerLibraryOps(of(ScalarOp.ADD)).build()));
        assertTrue(message.startsWith("clang cannot compile " + source + ": " + source + ":2:"), message);
        assertFalse(message.contains("\n"), "one line");
    }

    @Test
    void aRegistrationNamingAFunctionTheLibraryLacks() {
        String message = error(SUM, with(t16Like("lacking", t16Library())
            .registerOp(of(ScalarOp.ADD), LowerFunc.createLowerFunc(Map.of(16, "t16_plus"))).build()));
        assertEquals("the datatype library " + TestDatatypes.T16_C + " (-DBYODT_PREFIX=t16) defines no function t16_plus"
            + " (add of custom[lacking]16)", message);
    }

    @Test
    void aFunctionWithTheWrongSignature() {
        String message = error(SUM, with(t16Like("mistyped", t16Library())
            .registerOp(of(ScalarOp.ADD), LowerFunc.createLowerFunc(Map.of(16, "t16_lt"))).build()));
        assertEquals("t16_lt in " + TestDatatypes.T16_C + " (-DBYODT_PREFIX=t16) has type i32 (i16, i16), but the lowering"
            + " (add of custom[mistyped]16) calls it as i16 (i16, i16)", message);
    }

    @Test
    void aWidthTheFunctionTableDoesNotCoverIsAMissingLowering() {
        String message = error(SUM, with(t16Like("narrow", t16Library())
            .registerOp(of(ScalarOp.ADD), LowerFunc.createLowerFunc(Map.of(8, "t8_add"))).build()));
        assertTrue(message.startsWith("custom[narrow]16 has no lowering for: add (used by Add 'twice')"), message);
    }

    @Test
    void anOperationTheDatatypeCannotDoIsNamedWithTheOperatorNeedingIt() {
        Program castToInt = DatatypePrograms.elementwise("c1", "Cast", 8, ScalarType.I64, x -> Exprs.cast(ScalarType.I64, x));
        String message = error(castToInt, with(t16Like("noint", t16Library()).build()));
        assertTrue(message.startsWith("custom[noint]16 has no lowering for: to_i32 (used by Cast 'c1')"), message);
    }

    @Test
    void everyMissingLoweringIsListedInOneError() {
        Program program = DatatypePrograms.elementwise("sm", "Softmax", 8, ScalarType.REAL,
            x -> Exprs.div(Exprs.exp(x), Exprs.tanh(Exprs.sqrt(x))));
        String message = error(program, DatatypePrograms.in("custom[t16]16"));
        assertEquals("custom[t16]16 has no lowering for: exp (used by Softmax 'sm'), sqrt (used by Softmax 'sm'),"
            + " tanh (used by Softmax 'sm') (register them, or compute them in float32 with --fallback float32)", message);
    }

    @Test
    void anAccumulationModeTheDatatypeDoesNotSupport() {
        CompileOptions exact = CompileOptions.host().withDatatypes(
            DatatypeChoice.float32().withDatatype("custom[t16]16").withAccumulation(AccumulationMode.EXACT));
        assertEquals("datatype custom[t16]16 does not support --accumulate exact (it supports [dtype, float32])",
            error(SUM, exact));
    }

    @Test
    void exactAccumulationWithNothingButFloat32IsAnErrorNotIgnored() {
        CompileOptions exact = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withAccumulation(AccumulationMode.EXACT));
        assertEquals("--accumulate exact needs a custom datatype: float32 sums in float32 (choose --dtype, or"
            + " --accumulate dtype or float32)", error(SUM, exact));
    }

    @Test
    void exactAccumulationAppliesToTheCustomDatatypesOfAMixedChoice() {
        DatatypeChoice mixed = DatatypeChoice.float32().withOverrides(List.of(new DatatypeChoice.Override("*", "custom[t16]16")))
            .withAccumulation(AccumulationMode.EXACT);
        assertEquals("datatype custom[t16]16 does not support --accumulate exact (it supports [dtype, float32])",
            error(SUM, CompileOptions.host().withDatatypes(mixed)));
    }

    @Test
    void aLibraryThatIsMissingAltogether() {
        String message = error(SUM, with(t16Like("ghost", LibrarySource.resource("no/such/ghost.c")).registerLibraryOps(of(ScalarOp.ADD)).build()));
        assertEquals("the datatype library no/such/ghost.c is not on the classpath", message);
    }
}
