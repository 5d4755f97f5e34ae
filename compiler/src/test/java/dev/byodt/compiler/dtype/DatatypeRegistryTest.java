package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built-in registrations resolve every name of docs/datatypes.md without reading a library; errors list what is registered. */
class DatatypeRegistryTest {
    private final DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();

    @Test
    void builtInNamesResolveToTheirLibraryParameters() {
        DatatypeInstance posit = registry.instance("custom[posit]16", Map.of());
        assertEquals("posit16es2", posit.prefix());
        assertEquals(ScalarType.I16, posit.storage());
        assertEquals(List.of("BYODT_PREFIX=posit16es2", "POSIT_N=16", "POSIT_ES=2"), posit.library().orElseThrow().defines());
        assertEquals(ScalarType.I256, posit.exactAccumulator().orElseThrow());
        assertEquals(List.of("BYODT_PREFIX=posit16es2", "POSIT_N=16", "POSIT_ES=2", "BYODT_ROUNDING=BYODT_ROUNDING_UP"),
            registry.instance("custom[posit]16", Map.of("rounding", "up")).library().orElseThrow().defines());
        assertEquals(List.of("BYODT_PREFIX=mf_e8m7", "MF_EXP_BITS=8", "MF_FRAC_BITS=7", "BYODT_ROUNDING=BYODT_ROUNDING_ODD"),
            registry.instance("bfloat16", Map.of("rounding", "odd")).library().orElseThrow().defines());
        // Sums in float32 registers, each rounded by from_f32, are bfloat16's sums rounded once only to nearest even.
        DatatypeInstance nearest = registry.instance("bfloat16", Map.of()), up = registry.instance("bfloat16", Map.of("rounding", "up"));
        assertTrue(nearest.definition().arithmeticInFloat32(nearest));
        assertFalse(up.definition().arithmeticInFloat32(up));
        assertEquals("posit5es0", registry.instance("custom[posit_es0]5", Map.of()).prefix());
        assertEquals(ScalarType.I8, registry.instance("custom[posit_es3]5", Map.of()).storage());

        assertEquals("mf_e5m10", registry.instance("float16", Map.of()).prefix());
        assertEquals("mf_e8m7", registry.instance("bfloat16", Map.of()).prefix());
        assertEquals("mf_e5m2", registry.instance("custom[fp8e5m2]8", Map.of()).prefix());
        assertEquals("mf_e4m3", registry.instance("custom[minifloat_e4]8", Map.of()).prefix());
        assertEquals("fp8e4m3", registry.instance("custom[fp8e4m3]8", Map.of()).prefix());

        DatatypeInstance fixed = registry.instance("fxp16_13", Map.of("overflow", "wrap"));
        assertEquals("fxp16_13", fixed.prefix());
        assertEquals(List.of("BYODT_PREFIX=fxp16_13", "FXP_N=16", "FXP_P=13", "FXP_WRAP=1", "FXP_TRUNCATE=0"), fixed.library().orElseThrow().defines());
        assertEquals(ScalarType.I64, fixed.exactAccumulator().orElseThrow());
        assertEquals(ScalarType.F32, registry.instance("float32", Map.of()).storage());
    }

    @Test
    void anUnknownNameListsTheRegisteredOnes() {
        ByodtException e = assertThrows(ByodtException.class, () -> registry.instance("custom[lns]16", Map.of()));
        assertTrue(e.getMessage().startsWith("unknown datatype 'custom[lns]16'; registered: float32 (32), posit (2..32)"), e.getMessage());
        assertTrue(e.getMessage().contains("fxp_{P:0..31} (8, 16, 32)"), e.getMessage());
        ByodtException malformed = assertThrows(ByodtException.class, () -> registry.instance("posit16", Map.of()));
        assertTrue(malformed.getMessage().contains("registered: float32 (32)"), malformed.getMessage());
    }

    @Test
    void anUnsupportedWidthOrParameterIsNamed() {
        ByodtException width = assertThrows(ByodtException.class, () -> registry.instance("fxp12_4", Map.of()));
        assertEquals("datatype fxp12_4: fxp_{P:0..31} supports widths 8, 16, 32, not 12", width.getMessage());
        assertEquals("datatype custom[posit]33: posit supports widths 2..32, not 33",
            assertThrows(ByodtException.class, () -> registry.instance("custom[posit]33", Map.of())).getMessage());
        assertEquals("datatype fxp8_9: P must be below N",
            assertThrows(ByodtException.class, () -> registry.instance("fxp8_9", Map.of())).getMessage());
        assertTrue(assertThrows(ByodtException.class, () -> registry.instance("fxp16_8", Map.of("overflow", "clip")))
            .getMessage().contains("--overflow clip is not one of [saturate, wrap]"));
    }

    @Test
    void typeCodesAndNamesMustNotClash() {
        ByodtException code = assertThrows(ByodtException.class,
            () -> registry.register(DatatypeDefinition.register("lns", 131).widths(16).build()));
        assertEquals("datatype lns: type code 131 is already registered to posit", code.getMessage());
        ByodtException name = assertThrows(ByodtException.class,
            () -> registry.register(DatatypeDefinition.register("minifloat_e3", 230).widths(8).build()));
        assertEquals("datatype minifloat_e3: the name clashes with the registered minifloat_e{E:2..8}", name.getMessage());
        ByodtException range = assertThrows(ByodtException.class,
            () -> registry.register(DatatypeDefinition.register("lns", 12).widths(16).build()));
        assertEquals("datatype lns: type code 12 is outside the custom range 129..255", range.getMessage());
    }

    @Test
    void float32IsTheOneReferenceDatatypeAndKeepsDlpacksCode() {
        DatatypeInstance reference = registry.reference();
        assertEquals("float32", reference.toString());
        assertEquals(2, reference.definition().code());
        ByodtException second = assertThrows(ByodtException.class, () -> registry.register(
            DatatypeDefinition.register("float64", 240).reference().widths(64).storage(bits -> ScalarType.F32).build()));
        assertEquals("datatype float64: the reference datatype is already float32", second.getMessage());
        IllegalStateException narrow = assertThrows(IllegalStateException.class,
            () -> DatatypeDefinition.register("f16ref", 241).reference().widths(16).build());
        assertEquals("f16ref: the reference datatype holds float32 values, at one width stored in F32", narrow.getMessage());
        assertEquals("no reference datatype is registered (byodt's is float32); registered: ",
            assertThrows(ByodtException.class, () -> new DatatypeRegistry().reference()).getMessage());
    }

    @Test
    void registrationNeedsNoLibraryUntilAModelUsesIt() {
        DatatypeRegistry r = new DatatypeRegistry();
        r.register(DatatypeDefinition.register("ghost", 220).widths(16)
            .library(LibrarySource.resource("no/such/ghost.c")).registerLibraryOps(DatatypeOp.of(ScalarOp.ADD)).build());
        assertEquals("ghost16", r.instance("custom[ghost]16", Map.of()).prefix());
    }
}
