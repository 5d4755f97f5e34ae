package dev.byodt.compiler.dtype.posit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SmallPositsTest on every pair of every posit of 2 to 8 bits and es 0..3, where the default run samples the
 * pairs of 7 and 8 bits: run with {@code mvn -pl compiler -am test -Pexhaustive}.
 */
@Tag("exhaustive")
class SmallPositsAllPairsTest {
    @Test
    void everyPairAndEveryValue() throws Exception {
        SmallPositsTest.checkEveryInstance(SmallPositsTest::everyPair);
    }
}
