package dev.byodt.cli.isolation;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The child's own output passes; the JVM's crash banner and the lines of threads that faulted too do not. */
class CrashBannerFilterTest {
    private static List<String> printed(String... childLines) {
        CrashBannerFilter filter = new CrashBannerFilter();
        List<String> printed = new ArrayList<>();
        for (String line : childLines) printed.addAll(filter.accept(line));
        printed.addAll(filter.finish());
        return printed;
    }

    private static final String BANNER = "# A fatal error has been detected by the Java Runtime Environment:";

    @Test
    void theBannerAndEverythingAfterItIsHeldBack() {
        assertEquals(List.of("top-1 89.00%", ""), printed("top-1 89.00%", "", "#", BANNER, "#", "#  SIGSEGV (0xb) at pc=0x1", "#"));
    }

    @Test
    void anotherFaultingThreadsLineIsHeldBackWhereverItFalls() {
        String other = "[thread 4242 also had an error]";
        assertEquals(List.of("layer 1"), printed("layer 1", other, "#", BANNER));
        assertEquals(List.of("layer 1"), printed("layer 1", "#", other, BANNER));
        assertEquals(List.of("layer 1"), printed("layer 1", "#", other + BANNER, "#"));
        assertEquals(List.of("layer 1"), printed("layer 1", "#", BANNER, other));
    }

    @Test
    void aHashThatStartsNoBannerIsPrinted() {
        assertEquals(List.of("#", "# table", "#"), printed("#", "# table", "#"));
        assertEquals(List.of("#", "#"), printed("#", "#"));
    }
}
