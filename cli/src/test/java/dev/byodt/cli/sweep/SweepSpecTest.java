package dev.byodt.cli.sweep;

import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SweepSpecTest {
    @Test
    void trailingRanges() {
        assertEquals(List.of("fxp16_8", "fxp16_9", "fxp16_10", "fxp16_11", "fxp16_12", "fxp16_13", "fxp16_14", "fxp16_15"),
            DatatypeSpec.expand("fxp16_8..15"));
        List<String> posits = DatatypeSpec.expand("custom[posit]6..16");
        assertEquals(11, posits.size());
        assertEquals("custom[posit]6", posits.get(0));
        assertEquals("custom[posit]16", posits.get(10));
    }

    @Test
    void braceGroups() {
        assertEquals(List.of("custom[posit_es0]8", "custom[posit_es1]8", "custom[posit_es2]8", "custom[posit_es3]8"),
            DatatypeSpec.expand("custom[posit_es{0..3}]8"));
        // Leftmost group slowest, trailing range fastest.
        assertEquals(List.of("custom[posit_es0]8", "custom[posit_es0]9", "custom[posit_es2]8", "custom[posit_es2]9"),
            DatatypeSpec.expand("custom[posit_es{0,2}]8..9"));
        assertEquals(List.of("custom[fp8e4m3]8", "custom[fp8e5m2]8"), DatatypeSpec.expand("custom[fp8e{4m3,5m2}]8"));
    }

    @Test
    void blockDatatypesExpandAndDropRepeatsInAnySpelling() {
        assertEquals(List.of("mxint8", "mxfp8e4m3", "mxfp8e5m2", "mxfp6e3m2", "mxfp6e2m3", "mxfp4", "bfloat16"),
            DatatypeSpec.expand("mxint8,mxfp{8e4m3,8e5m2,6e3m2,6e2m3,4},block[custom[fp4e2m1]4,32,e8m0,floor],bfloat16"));
    }

    @Test
    void mixedListsKeepOrderAndDropRepeats() {
        assertEquals(List.of("bfloat16", "float16", "custom[fp8e4m3]8", "fxp8_6", "fxp8_7", "custom[posit]8", "custom[posit_es1]16"),
            DatatypeSpec.expand(" bfloat16,float16, custom[fp8e4m3]8,fxp8_6..7,custom[posit]8,bfloat16,custom[posit_es{1}]16"));
        // Another spelling of a datatype already listed is the same datatype.
        assertEquals(List.of("bfloat16", "fxp16_8", "float32"),
            DatatypeSpec.expand("bfloat16,custom[bfloat]16,fxp16_8,custom[fxp_8]16,float32,custom[float32]32"));
    }

    @Test
    void malformedSpecsNameTheBadPart() {
        assertMessage("", "names no datatype");
        assertMessage("  ", "names no datatype");
        assertMessage("bfloat16,,float16", "empty entry at position 2");
        assertMessage("fxp16_15..8", "the range 15..8 in 'fxp16_15..8' runs backwards");
        assertMessage("fxp16_8..x", "'fxp16_8..x' has a range that is not at the end");
        assertMessage("custom[posit_es{0..}]8", "'{0..}' in 'custom[posit_es{0..}]8' is not a range");
        assertMessage("custom[posit_es{0..3]8", "unclosed");
        assertMessage("bfloat16}", "unbalanced '}'");
        assertMessage("posit 16", "--dtypes: malformed datatype 'posit 16': expected " + DatatypeName.GRAMMAR);
        // What --dtype rejects, --dtypes rejects, with the same parser: a registered NAME alone is not a datatype.
        assertMessage("fp8e4m3", "--dtypes: malformed datatype 'fp8e4m3': expected " + DatatypeName.GRAMMAR);
        assertMessage("fxp16_{8,x}", "--dtypes: in 'fxp16_{8,x}', malformed datatype 'fxp16_x'");
        assertMessage("custom[posit]0..2", "--dtypes: in 'custom[posit]0..2', malformed datatype 'custom[posit]0'");
        assertMessage("custom[posit]1..5000", "more than 1000 values");
        assertMessage("custom[posit_es{0,}]8", "has an empty choice");
    }

    static void assertMessage(String spec, String expected) {
        String message = assertThrows(ByodtException.class, () -> DatatypeSpec.expand(spec)).getMessage();
        assertTrue(message.contains(expected), message);
        assertTrue(!message.contains("\n"), message);
    }

    @Test
    void crossingWithAccumulationAndRounding() {
        List<String> acc = SweepPlan.choices("--accumulate", "dtype, exact,dtype", List.of("dtype", "float32", "exact"));
        assertEquals(List.of("dtype", "exact"), acc);
        List<SweepPoint> points = SweepPlan.cross(List.of("a", "b"), acc, List.of("nearest", "truncate"));
        assertEquals(8, points.size());
        assertEquals(new SweepPoint(0, "a", "dtype", "nearest"), points.get(0));
        assertEquals(new SweepPoint(1, "a", "dtype", "truncate"), points.get(1));
        assertEquals(new SweepPoint(2, "a", "exact", "nearest"), points.get(2));
        assertEquals(new SweepPoint(7, "b", "exact", "truncate"), points.get(7));
        String message = assertThrows(ByodtException.class,
            () -> SweepPlan.choices("--accumulate", "dtype,quire", List.of("dtype", "float32", "exact"))).getMessage();
        assertEquals("--accumulate: 'quire' is not one of dtype, float32, exact", message);
    }

    @Test
    void accumulationModesTakeParametersAndFusedKeepsItsCommas() {
        assertEquals(List.of("float32", "exact", "fused:F=13,G=32,rounding=rne", "int:24", "fused:hopper-fp8"),
            SweepPlan.accumulations("float32,exact, fused:F=13,G=32,rounding=rne,int:24,fused:hopper-fp8,exact"));
        assertEquals("--accumulate: 'G=32' is a parameter of no fused: mode",
            assertThrows(ByodtException.class, () -> SweepPlan.accumulations("exact,G=32")).getMessage());
        assertEquals("--accumulate fused:F=13: F=<bits> and G=<group> are required, as in fused:F=13,G=32",
            assertThrows(ByodtException.class, () -> SweepPlan.accumulations("exact,fused:F=13")).getMessage());
        assertEquals("--accumulate 'exact,' has an empty entry",
            assertThrows(ByodtException.class, () -> SweepPlan.accumulations("exact,")).getMessage());
    }

    @Test
    void shardsPartitionTheSweep() {
        List<Integer> all = IntStream.range(0, 10).boxed().toList();
        assertEquals(List.of(1, 4, 7), Shard.parse("2/3").select(all));
        assertEquals(List.of(0, 3, 6, 9), Shard.parse(" 1/3").select(all));
        List<Integer> union = new ArrayList<>();
        for (int i = 1; i <= 4; i++) union.addAll(new Shard(i, 4).select(all));
        assertEquals(10, union.size());
        assertEquals(new HashSet<>(all), Set.copyOf(union));
        assertEquals(List.of(), new Shard(4, 4).select(List.of(1, 2, 3)));
        assertEquals(all, Shard.WHOLE.select(all));
        assertTrue(assertThrows(ByodtException.class, () -> Shard.parse("0/3")).getMessage().contains("1 <= i <= n"));
        assertTrue(assertThrows(ByodtException.class, () -> Shard.parse("4/3")).getMessage().contains("1 <= i <= n"));
        assertTrue(assertThrows(ByodtException.class, () -> Shard.parse("2of3")).getMessage().contains("expected i/n"));
    }
}
