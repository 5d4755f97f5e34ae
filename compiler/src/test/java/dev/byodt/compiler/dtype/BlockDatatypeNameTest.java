package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockDatatypeNameTest {
    private static final DatatypeRegistry REGISTRY = DatatypeChoice.builtInRegistry();

    @Test
    void builtInNamesAreTheOcpAndNvidiaFormats() {
        BlockDatatypeName mxfp8 = DatatypeName.parseBlock("mxfp8e4m3").orElseThrow();
        assertEquals(new BlockDatatypeName(DatatypeName.parse("custom[fp8e4m3]8"), 32, DatatypeName.parse("custom[e8m0]8"),
            ScaleRule.FLOOR, false), mxfp8);
        assertEquals(DatatypeName.parse("fxp8_6"), DatatypeName.parseBlock("mxint8").orElseThrow().element());
        BlockDatatypeName nvfp4 = DatatypeName.parseBlock("nvfp4").orElseThrow();
        assertEquals(16, nvfp4.blockSize());
        assertEquals(DatatypeName.parse("custom[ue4m3]8"), nvfp4.scale());
        assertTrue(nvfp4.tensorScale());
        for (String name : BlockDatatypeName.builtIns().keySet()) BlockFormat.resolve(DatatypeName.parseBlock(name).orElseThrow(), REGISTRY);
    }

    @Test
    void theGeneralSpellingNamesAnyCombinationAndPrintsBack() {
        BlockDatatypeName name = DatatypeName.parseBlock(" block[custom[fp6e2m3]6, 64, ue4m3, midmax, tensor] ").orElseThrow();
        assertEquals(new BlockDatatypeName(DatatypeName.parse("custom[fp6e2m3]6"), 64, DatatypeName.parse("custom[ue4m3]8"),
            ScaleRule.MIDMAX, true), name);
        assertEquals("block[custom[fp6e2m3]6,64,custom[ue4m3]8,midmax,tensor]", name.toString());
        assertEquals(name, DatatypeName.parseBlock(name.toString()).orElseThrow());
        assertEquals("mxfp4", DatatypeName.parseBlock("block[custom[fp4e2m1]4,32,e8m0,floor]").orElseThrow().toString());
        assertEquals(DatatypeName.parse("fxp8_4"), DatatypeName.parseBlock("block[fxp16_12,8,fxp8_4,rceil]").orElseThrow().scale());
        assertEquals(Optional.empty(), DatatypeName.parseBlock("custom[posit]8"));
    }

    @Test
    void malformedBlockNamesSayWhatIsWrongInOneLine() {
        assertMessage("block[custom[fp4e2m1]4,32,e8m0]", "expected four parts");
        assertMessage("block[custom[fp4e2m1]4,0,e8m0,floor]", "block size '0'");
        assertMessage("block[custom[fp4e2m1]4,32,e8m0,round]", "unknown scale rule 'round'");
        assertMessage("block[custom[fp4e2m1]4,32,e8m0,floor", "does not end with ]");
        assertMessage("block[fp4,32,e8m0,floor]", "malformed datatype 'fp4'");
    }

    @Test
    void elementsAndScalesNeedAGridOfValues() {
        // float32's grid: IEEE binary32's finite values (a datatype without one is refused: BlockDeclarationTest).
        assertEquals(new ValueGrid(23, -126, Float.MAX_VALUE, true, true),
            BlockFormat.resolve(DatatypeName.parseBlock("block[float32,32,e8m0,floor]").orElseThrow(), REGISTRY).element());
        ByodtException positScale = assertThrows(ByodtException.class,
            () -> BlockFormat.resolve(DatatypeName.parseBlock("block[custom[fp8e4m3]8,32,custom[posit]8,floor]").orElseThrow(), REGISTRY));
        assertEquals("block datatype block[custom[fp8e4m3]8,32,custom[posit]8,floor]: the scale custom[posit]8 is a posit; scales must be minifloat "
            + "or fixed-point datatypes, whose grids are uniform", positScale.getMessage());
        assertEquals(new PositGrid(8, 2), BlockFormat.resolve(DatatypeName.parseBlock("block[custom[posit]8,32,e8m0,floor]").orElseThrow(), REGISTRY).element());
        ByodtException unsigned = assertThrows(ByodtException.class,
            () -> BlockFormat.resolve(DatatypeName.parseBlock("block[custom[ue4m3]8,32,e8m0,floor]").orElseThrow(), REGISTRY));
        assertTrue(unsigned.getMessage().contains("has no sign"), unsigned.getMessage());
    }

    @Test
    void aBlockNameWhereAScalarDatatypeIsNeededIsAnError() {
        ByodtException e = assertThrows(ByodtException.class, () -> REGISTRY.instance("mxfp4", java.util.Map.of()));
        assertTrue(e.getMessage().contains("'mxfp4' is a block datatype"), e.getMessage());
    }

    private static void assertMessage(String text, String part) {
        ByodtException e = assertThrows(ByodtException.class, () -> DatatypeName.parseBlock(text));
        assertTrue(e.getMessage().contains(part) && !e.getMessage().contains("\n"), e.getMessage());
    }
}
