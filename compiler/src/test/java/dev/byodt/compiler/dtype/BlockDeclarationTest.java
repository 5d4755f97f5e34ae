package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.plugin.DatatypeDescriptor;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Block datatypes declared by plug-ins: through the Java API ({@link DatatypeRegistry#registerBlock}) and a
 * descriptor's grid: and blocks: keys (the int6 example's). The name reads as a built-in block datatype's does,
 * and every bad declaration is one line naming the name or the descriptor's key and the problem.
 */
class BlockDeclarationTest {
    private static final Path INT6 = Path.of(System.getProperty("byodt.examplesDir", "../examples"), "int6");
    private static final String FXP8_4 = "fxp8_4";

    @TempDir
    Path dir;

    /** The Java API: a built-in element under a block size and rule of its own. */
    @Test
    void theJavaApiDeclaresABlockDatatypeThatReadsByName() {
        DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();
        BlockDatatypeName format = new BlockDatatypeName(DatatypeName.parse(FXP8_4), 16, DatatypeName.parse("custom[e8m0]8"), ScaleRule.CEIL, false);
        registry.registerBlock("mxint6c16", format);
        assertEquals(Optional.of(format), registry.parseBlock("mxint6c16"));
        assertEquals(DatatypeName.parseBlock("mxint8"), registry.parseBlock("mxint8"));
        assertEquals(Optional.empty(), registry.parseBlock("fxp8_6"));
        assertEquals("block[fxp8_4,16,custom[e8m0]8,ceil]", registry.spelledOut("mxint6c16"));
        assertEquals("mxint8", registry.spelledOut("mxint8"));
        assertEquals("mxint6c16", registry.namedBlocks().getFirst().name());
    }

    @Test
    void theDescriptorDeclaresItsGridAndBlocks() {
        DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();
        DatatypeDescriptor.register(INT6.resolve("int6.yaml"), registry);
        assertEquals(ValueGrid.fixedPoint(6, 4), registry.instance("custom[int6]6", java.util.Map.of()).valueGrid().orElseThrow());
        BlockDatatypeName mxint6 = registry.parseBlock("mxint6").orElseThrow();
        assertEquals(new BlockDatatypeName(DatatypeName.parse("custom[int6]6"), 32, DatatypeName.parse("custom[e8m0]8"), ScaleRule.FLOOR, false), mxint6);
        assertEquals(INT6.resolve("int6.yaml").toString(), registry.namedBlocks().getFirst().origin());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "mxint8    | fxp8_4          | block datatype mxint8: the name of a built-in block datatype",
        "float16   | fxp8_4          | block datatype float16: a scalar datatype's spelling",
        "mx-int6   | fxp8_4          | block datatype mx-int6: not a name of letters, digits and _",
        "mxlns     | custom[lns]9    | block datatype mxlns (block[custom[lns]9,32,custom[e8m0]8,floor]): unknown datatype 'custom[lns]9'; registered: ",
        "mxe8      | custom[e8m0]8   | block datatype mxe8 (block[custom[e8m0]8,32,custom[e8m0]8,floor]): the element custom[e8m0]8 has no sign or no zero"})
    void aBadJavaDeclarationIsOneLineNamingIt(String name, String element, String message) {
        DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();
        BlockDatatypeName format = new BlockDatatypeName(DatatypeName.parse(element), 32, DatatypeName.parse("custom[e8m0]8"), ScaleRule.FLOOR, false);
        String actual = assertThrows(ByodtException.class, () -> registry.registerBlock(name, format)).getMessage();
        assertEquals(message, actual.substring(0, Math.min(actual.length(), message.length())), actual);
        assertEquals(-1, actual.indexOf('\n'), actual);
    }

    /** int6 registered without its grid: no block datatype can round onto it. */
    @Test
    void anElementWithoutAGridIsAnError() throws IOException {
        DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();
        registry.register(DatatypeDescriptor.read(descriptor("")));
        BlockDatatypeName format = new BlockDatatypeName(DatatypeName.parse("custom[int6]6"), 32, DatatypeName.parse("custom[e8m0]8"), ScaleRule.FLOOR, false);
        assertEquals("block datatype mxint6 (block[custom[int6]6,32,custom[e8m0]8,floor]): the element custom[int6]6 declares no grid of values to "
            + "round onto (minifloat, fixed-point and posit datatypes do)", assertThrows(ByodtException.class, () -> registry.registerBlock("mxint6", format)).getMessage());
    }

    @Test
    void aNameDeclaredTwiceIsAnError() {
        DatatypeRegistry registry = DatatypeRegistry.withBuiltIns();
        DatatypeDescriptor.register(INT6.resolve("int6.yaml"), registry);
        BlockDatatypeName format = new BlockDatatypeName(DatatypeName.parse(FXP8_4), 32, DatatypeName.parse("custom[e8m0]8"), ScaleRule.FLOOR, false);
        assertEquals("block datatype mxint6: already the name of the block datatype mxint6 (from " + INT6.resolve("int6.yaml") + ")",
            assertThrows(ByodtException.class, () -> registry.registerBlock("mxint6", format)).getMessage());
    }

    /** A copy of int6.yaml whose grid: and blocks: are replaced, and the one-line error it gives. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{fraction-bits: 4, min-exponent: 0, largest: 1.9375} | {mxint6: {size: 32, scale: e8m0, rule: round}} | blocks: mxint6: malformed block datatype 'block[custom[int6]6,32,e8m0,round]': unknown scale rule 'round' (floor, ceil, even, rceil, midmax, nearest)",
        "{fraction-bits: 4, min-exponent: 0, largest: 1.9375} | {mxint6: {size: 0, scale: e8m0, rule: floor}}  | blocks: mxint6: size 0 is not a number of elements from 1",
        "{fraction-bits: 4, min-exponent: 0, largest: 1.9375} | {mxint6: {size: 32, rule: floor}}               | blocks: mxint6: scale and rule are required",
        "{fraction-bits: 4, min-exponent: 0, largest: 1.9375} | {mxint6: {size: 32, scale: e8m0, rule: floor, tensor: true}} | blocks: mxint6: unknown key tensor (keys: size, scale, rule, tensor-scale)",
        "{fraction-bits: 4, min-exponent: 0, largest: 1.9375} | {mxint8: {size: 32, scale: e8m0, rule: floor}} | blocks: block datatype mxint8: the name of a built-in block datatype",
        "{fraction-bits: 4, min-exponent: 0, largest: 1.9375} | {mxint6: {size: 32, scale: e9m0, rule: floor}} | blocks: block datatype mxint6 (block[custom[int6]6,32,custom[e9m0]8,floor]): unknown datatype 'custom[e9m0]8'",
        "{fraction-bits: 4, min-exponent: 0, largest: -1}     | {mxint6: {size: 32, scale: e8m0, rule: floor}} | grid: not a grid of values: largest -1.0 (fraction-bits 0..52, largest positive and finite)",
        "{fraction-bits: 4, min-exponent: 0}                   | {mxint6: {size: 32, scale: e8m0, rule: floor}} | grid: largest: expected a number, not 'null'",
        "{fraction-bits: 4, min-exponent: 0, largest: 2, step: 1} | {mxint6: {size: 32, scale: e8m0, rule: floor}} | grid: unknown key step (keys: fraction-bits, min-exponent, largest, signed, zero)",
        "{fraction-bits: 4, min-exponent: 0, largest: 2, zero: no} | {mxint6: {size: 32, scale: e8m0, rule: floor}} | grid: zero: expected true or false, not 'no'"})
    void aBadDescriptorDeclarationIsOneLineNamingTheKey(String grid, String blocks, String message) throws IOException {
        Path file = descriptor("grid: " + grid + "\nblocks: " + blocks + "\n");
        String actual = assertThrows(ByodtException.class, () -> DatatypeDescriptor.register(file, DatatypeRegistry.withBuiltIns())).getMessage();
        assertTrue(actual.startsWith(file + ": " + message), actual);
        assertEquals(-1, actual.indexOf('\n'), actual);
    }

    @Test
    void blocksWithoutAGridAreAnError() throws IOException {
        Path file = descriptor("blocks: {mxint6: {size: 32, scale: e8m0, rule: floor}}\n");
        assertEquals(file + ": blocks: the elements need a grid: of values to round onto",
            assertThrows(ByodtException.class, () -> DatatypeDescriptor.register(file, DatatypeRegistry.withBuiltIns())).getMessage());
    }

    /** int6.yaml without its grid: and blocks:, then {@code extra}, beside a copy of int6.c. */
    private Path descriptor(String extra) throws IOException {
        Files.copy(INT6.resolve("int6.c"), dir.resolve("int6.c"));
        String text = Files.readString(INT6.resolve("int6.yaml")).replaceAll("(?s)\ngrid:.*", "\n");
        Path file = dir.resolve("int6.yaml");
        Files.writeString(file, text + extra);
        return file;
    }
}
