package dev.byodt.cli.report;

import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Metrics against values worked out by hand in the comments. */
class MetricsTest {
    @Test
    void exactSumHasNoRoundingError() {
        ExactSum tenths = new ExactSum();
        for (int i = 0; i < 10; i++) tenths.add(0.1);
        // Ten doubles nearest 0.1 sum to 1.0000000000000000555..., which rounds to 1.0 (a naive loop gives 0.9999999999999999).
        assertEquals(1.0, tenths.value());
        ExactSum cancel = new ExactSum();
        cancel.add(1e100);
        cancel.add(1);
        cancel.add(-1e100);
        assertEquals(1.0, cancel.value());
        assertEquals(0.0, new ExactSum().value());
    }

    @Test
    void exactSumIsIndependentOfOrderAndMerging() {
        Random random = new Random(5);
        List<Double> terms = new ArrayList<>();
        for (int i = 0; i < 2000; i++) terms.add(random.nextGaussian() * Math.pow(10, random.nextInt(12) - 6));
        ExactSum forward = new ExactSum();
        terms.forEach(forward::add);
        Collections.shuffle(terms, random);
        ExactSum left = new ExactSum(), right = new ExactSum();
        for (int i = 0; i < terms.size(); i++) (i % 3 == 0 ? left : right).add(terms.get(i));
        right.add(left);
        assertEquals(forward.value(), right.value());
    }

    @Test
    void errorFiguresByHand() {
        ErrorStatistics stats = new ErrorStatistics(3);
        // r = 1, -2, 0, 4 and x = 1.5, -2, 0.5, 3: errors 0.5, 0, 0.5, 1.
        stats.add(new float[] {1, -2, 0, 4}, new float[] {1.5f, -2, 0.5f, 3});
        ErrorFigures f = stats.figures();
        assertEquals(4, f.elements());
        assertEquals(4, f.compared());
        assertEquals(1.0, f.maxAbsError());
        assertEquals(0.5, f.meanAbsError());
        // Relative: 0.5/1, 0/2, 0.5/1e-6 (the floor), 1/4 -> (0.5 + 0 + 500000 + 0.25) / 4.
        assertEquals(125000.1875, f.meanRelError(), 1e-9);
        // Signal 1 + 4 + 0 + 16 = 21, noise 0.25 + 0 + 0.25 + 1 = 1.5: 10 log10(14) dB.
        assertEquals(11.461280356782380, f.sqnrDb(), 1e-12);
        // x = 3 equals the saturation magnitude.
        assertEquals(1, f.saturated());
        assertEquals(0, f.nan());
    }

    @Test
    void nanAndInfinityAreCountedNotCompared() {
        ErrorStatistics stats = new ErrorStatistics(Double.POSITIVE_INFINITY);
        stats.add(new float[] {1, 2, 3, 4}, new float[] {Float.NaN, Float.POSITIVE_INFINITY, 3, 4});
        ErrorFigures f = stats.figures();
        assertEquals(4, f.elements());
        assertEquals(2, f.compared());
        assertEquals(1, f.nan());
        assertEquals(1, f.infinite());
        assertEquals(0, f.saturated());
        assertEquals(0.0, f.maxAbsError());
        assertEquals(Double.POSITIVE_INFINITY, f.sqnrDb());
    }

    @Test
    void sqnrOfZeroSignalAndOfNothingCompared() {
        ErrorStatistics zeroSignal = new ErrorStatistics(1e9);
        zeroSignal.add(new float[] {0, 0}, new float[] {0, 0.5f});
        assertEquals(Double.NEGATIVE_INFINITY, zeroSignal.figures().sqnrDb());
        ErrorStatistics allNan = new ErrorStatistics(1e9);
        allNan.add(new float[] {1}, new float[] {Float.NaN});
        assertTrue(Double.isNaN(allNan.figures().sqnrDb()));
        assertTrue(Double.isNaN(allNan.figures().meanAbsError()));
    }

    @Test
    void mergedPartsEqualOnePass() {
        Random random = new Random(11);
        float[] r = new float[1000], x = new float[1000];
        for (int i = 0; i < r.length; i++) {
            r[i] = (float) random.nextGaussian();
            x[i] = r[i] + (float) (random.nextGaussian() * 0.01);
        }
        x[17] = Float.NaN;
        x[400] = 2;
        ErrorStatistics whole = new ErrorStatistics(2);
        whole.add(r, x);
        ErrorStatistics a = new ErrorStatistics(2), b = new ErrorStatistics(2);
        b.add(r, x, 300, 700);
        a.add(r, x, 0, 300);
        b.merge(a);
        assertEquals(whole.figures(), b.figures());
    }

    @Test
    void top1ByHand() {
        assertEquals(2, Top1.argmax(new float[] {0, 1, 3, 3}, 0, 4));
        assertEquals(1, Top1.argmax(new float[] {9, Float.NaN, 5, 1}, 1, 3));
        assertEquals(Top1.NONE, Top1.argmax(new float[] {Float.NaN}, 0, 1));

        OutputComparison c = new OutputComparison("logits", new ClassPositions(-1, 1, 2, 1), Double.POSITIVE_INFINITY);
        // Item 0: both pick class 1, label 1. Item 1: reference 0, test 1, label 0. Item 2: both 0, label 1.
        // Item 3: reference 1, test all NaN, no label.
        float[] ref = {0, 1, 1, 0, 1, 0, 0, 1};
        float[] test = {0, 1, 0, 1, 1, 0, Float.NaN, Float.NaN};
        c.addItem(ref, test, 0, 2, 1);
        c.addItem(ref, test, 2, 2, 0);
        c.addItem(ref, test, 4, 2, 1);
        c.addItem(ref, test, 6, 2, Top1Tally.NO_LABEL);
        Top1Figures t = c.figures().top1();
        assertEquals(4, t.items());
        assertEquals(3, t.labeled());
        assertEquals(2.0 / 3, t.referenceAccuracy());
        assertEquals(1.0 / 3, t.testAccuracy());
        assertEquals(2.0 / 4, t.agreement());
        assertEquals(100.0 / 3, t.drop(), 1e-12);
        assertEquals(2, c.figures().errors().nan());
        assertEquals(4, t.positions());
        assertNull(t.classAxis());
    }

    @Test
    void denseOutputsAgreePerPositionAlongTheClassAxis() {
        // Two items of a [batch, 3 classes, 2 positions] output, class axis 1: class c of position p is at c * 2 + p.
        // Item 0: position 0 reference (0, 5, 1) -> 1, test (0, 1, 5) -> 2; position 1 reference (7, 0, 0) -> 0, test (7, 0, 1) -> 0.
        // Item 1: position 0 both (2, 2, 3) -> 2; position 1 reference (1, 0, 0) -> 0, test all NaN -> none.
        float[] ref = {0, 7, 5, 0, 1, 0, 2, 1, 2, 0, 3, 0};
        float[] test = {0, 7, 1, 0, 5, 1, 2, Float.NaN, 2, Float.NaN, 3, Float.NaN};
        ClassPositions classes = ClassPositions.of(new TensorSpec("segments", ElementType.FLOAT32, new long[] {2, 3, 2}), 6, 1);
        assertEquals(new ClassPositions(1, 1, 3, 2), classes);
        OutputComparison c = new OutputComparison("segments", classes, Double.POSITIVE_INFINITY);
        c.addItem(ref, test, 0, 6, Top1Tally.NO_LABEL);
        c.addItem(ref, test, 6, 6, Top1Tally.NO_LABEL);
        Top1Figures t = c.figures().top1();
        assertEquals(2, t.items());
        assertEquals(4, t.positions());
        assertEquals(2.0 / 4, t.agreement());
        assertEquals(1, t.classAxis());
        assertNull(t.testAccuracy());
    }

    @Test
    void theClassAxisIsTheLastByDefaultAndCountsFromTheEndWhenNegative() {
        TensorSpec logits = new TensorSpec("logits", ElementType.FLOAT32, new long[] {1, 16, 50});
        assertEquals(new ClassPositions(2, 16, 50, 1), ClassPositions.of(logits, 800, null));
        assertEquals(new ClassPositions(1, 1, 16, 50), ClassPositions.of(logits, 800, -2));
        TensorSpec map = new TensorSpec("map", ElementType.FLOAT32, new long[] {1, 4, 3, 5});
        ClassPositions channels = ClassPositions.of(map, 60, 1);
        assertEquals(15, channels.positions());
        // Position 7 is row 1, column 2 of the 3x5 map: its classes start at element 7 and lie 15 apart.
        assertEquals(7, channels.start(7));
        ClassPositions rows = ClassPositions.of(map, 60, 2);
        assertEquals(new ClassPositions(2, 4, 3, 5), rows);
        // Position 7 is channel 1, column 2: its classes start at 1 * 15 + 2 and lie 5 apart.
        assertEquals(17, rows.start(7));
        assertEquals(new ClassPositions(-1, 1, 10, 1), ClassPositions.of(new TensorSpec("y", ElementType.FLOAT32, new long[] {1, 10}), 10, 2));
    }

    @Test
    void noLabelsMeansNoAccuracy() {
        Top1Tally tally = new Top1Tally();
        tally.addItem();
        tally.add(3, 3, Top1Tally.NO_LABEL);
        assertNull(tally.figures(null).referenceAccuracy());
        assertNull(tally.figures(null).drop());
        assertEquals(1.0, tally.figures(null).agreement());
    }
}
