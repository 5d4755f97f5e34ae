package dev.byodt.cli.progress;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressTest {
    @Test
    void quietWhenNotOnATerminal() {
        // Surefire runs tests with output piped to it, as a redirected `byodt run` would be.
        try (Progress progress = Progress.start("float32", 10, "img")) {
            progress.step(10);
            assertFalse(progress.visible());
        }
    }

    @Test
    void showsCountSpeedAndTimeLeft() throws InterruptedException {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        try (Progress progress = Progress.rendering("posit16", 100, "img", lines::add);
             ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (int t = 0; t < 4; t++) pool.submit(() -> { for (int i = 0; i < 25; i++) progress.step(1); });
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS));
        }
        String last = lines.get(lines.size() - 1);
        assertTrue(last.contains("posit16") && last.contains("100/100") && last.contains("img/s"), last);
        // The time part is "(elapsed / time left)".
        assertTrue(last.matches(".*\\(\\d+:\\d\\d:\\d\\d / \\d+:\\d\\d:\\d\\d\\).*"), last);
    }
}
