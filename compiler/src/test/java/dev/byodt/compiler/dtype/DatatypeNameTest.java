package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatatypeNameTest {
    @Test
    void shortFormsAreSpellingsOfRegisteredNames() {
        assertEquals(new DatatypeName("float32", 32, 1), DatatypeName.parse("float32"));
        assertEquals(new DatatypeName("float16", 16, 1), DatatypeName.parse("float16"));
        assertEquals(new DatatypeName("bfloat", 16, 1), DatatypeName.parse("bfloat16"));
        assertEquals(new DatatypeName("fxp_13", 16, 1), DatatypeName.parse("fxp16_13"));
        assertEquals(DatatypeName.parse("fxp16_13"), DatatypeName.parse("custom[fxp_13]16"));
        assertEquals(DatatypeName.parse("bfloat16"), DatatypeName.parse("custom[bfloat]16"));
    }

    @Test
    void customNamesWithWidthAndLanes() {
        assertEquals(new DatatypeName("posit", 16, 1), DatatypeName.parse("custom[posit]16"));
        assertEquals(new DatatypeName("posit_es0", 8, 4), DatatypeName.parse("custom[posit_es0]8x4"));
        assertEquals(new DatatypeName("minifloat_e4", 8, 1), DatatypeName.parse(" custom[minifloat_e4]8 "));
    }

    @Test
    void fixedPointNamesTakeLanes() {
        assertEquals(new DatatypeName("fxp_13", 16, 4), DatatypeName.parse("fxp16_13x4"));
        assertEquals(new DatatypeName("fxp_13", 16, 2), DatatypeName.parse("custom[fxp_13]16x2"));
    }

    @Test
    void printsTheShortestSpellingThatParsesBack() {
        for (String text : new String[] {"float32", "float16", "bfloat16", "fxp8_7", "custom[posit]16", "custom[posit]16x2", "custom[t16]16",
            "fxp16_13x4"}) {
            assertEquals(text, DatatypeName.parse(text).toString());
        }
    }

    @Test
    void malformedNamesSayWhatTheGrammarIs() {
        for (String text : new String[] {"posit16", "custom[posit]", "custom[]16", "custom[posit]0", "custom[posit]16x0", "fxp16", "float", "custom[9a]8",
            "fxp16_13x0", "fxp16_13x"}) {
            ByodtException e = assertThrows(ByodtException.class, () -> DatatypeName.parse(text), text);
            assertTrue(e.getMessage().contains("malformed datatype '" + text.strip() + "'") && e.getMessage().contains("custom[NAME]BITS"), e.getMessage());
        }
    }

    @Test
    void namePatternsMatchTheirParameterRange() {
        NamePattern minifloat = NamePattern.parse("minifloat_e{E:2..8}");
        assertEquals(5, minifloat.match("minifloat_e5").orElseThrow());
        assertTrue(minifloat.match("minifloat_e9").isEmpty());
        assertTrue(minifloat.match("minifloat_e05").isEmpty());
        assertTrue(minifloat.match("minifloat_e").isEmpty());
        assertTrue(NamePattern.parse("posit").match("posit_es0").isEmpty());
        assertTrue(minifloat.overlaps(NamePattern.parse("minifloat_e3")));
        assertTrue(!minifloat.overlaps(NamePattern.parse("minifloat_e9")));
    }
}
