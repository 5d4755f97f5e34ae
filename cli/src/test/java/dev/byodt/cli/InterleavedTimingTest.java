package dev.byodt.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engines take turns: after one warm-up each, ten rounds in which each runs its slice before the next starts, in
 * the order given, so that a slower phase of the machine falls on all of them; no timing is asserted.
 */
class InterleavedTimingTest {
    @Test
    void eachRoundRunsEveryInferenceInOrder() {
        List<Integer> calls = new ArrayList<>();
        List<Runnable> inferences = List.of(() -> calls.add(0), () -> calls.add(1), () -> calls.add(2));
        double[] rates = InterleavedTiming.imagesPerSecond(0.001, 4, inferences);
        assertEquals(3, rates.length);
        for (double rate : rates) assertTrue(rate > 0, "rates " + Arrays.toString(rates));
        List<Integer> turns = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) if (i == 0 || !calls.get(i).equals(calls.get(i - 1))) turns.add(calls.get(i));
        List<Integer> expected = new ArrayList<>();
        for (int turn = 0; turn < 11; turn++) expected.addAll(List.of(0, 1, 2));
        assertEquals(expected, turns, "the engines in turns: a warm-up each, then ten rounds");
    }
}
