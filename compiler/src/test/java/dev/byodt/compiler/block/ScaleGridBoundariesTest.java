package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.Rational;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules that choose a scale onto a grid of several values per binade (nearest and rceil, onto UE4M3 or E8M0)
 * round amax / (t * largest element) there, a quotient the run-time quantizer computes in double
 * ({@link ActivationQuantizer}'s gridQuotient) and must decide exactly as the rational one. Seeded blocks almost
 * never put amax on a point where that decides, so these blocks do: each block's largest magnitude is the float32
 * nearest t * largest element times a scale value, or times the midpoint between two neighbouring scale values, and
 * the float32s on either side of it (which include both float32 neighbours of the product where that is not a
 * float32 itself). A quotient off by a relative 1e-7 moves scales at these blocks; the seeded rows of
 * {@link BlockDotsTest} did not see it.
 */
class ScaleGridBoundariesTest {
    /** The tensor's largest magnitude, in a block of its own, under formats with a tensor scale: every other block is below it. */
    private static final float TENSOR_PIN = 12345.678f;

    @ParameterizedTest
    @ValueSource(strings = {"nvfp4", "block[custom[fp4e2m1]4,16,ue4m3,rceil,tensor]", "block[custom[fp8e4m3]8,32,ue4m3,nearest]",
        "block[custom[fp8e4m3]8,32,e8m0,nearest]", "block[custom[fp6e2m3]6,32,e8m0,rceil]", "block[bfloat16,32,ue4m3,rceil]",
        "block[fxp32_16,32,ue4m3,nearest,tensor]", "block[custom[posit_es1]8,16,ue4m3,nearest,tensor]"})
    void blocksWhoseMaximumLiesOnAScalePointOrMidpointGetTheExactScale(String name) {
        BlockDotsTest.checkQuantization(name, RoundingMode.NEAREST_EVEN, rows(name));
    }

    /**
     * Rows of {@link BlockDotsTest#K} values, each block led by one candidate maximum and filled with smaller values
     * (a fixed fraction of it, so the elements are checked too); with a tensor scale, the first value is
     * {@link #TENSOR_PIN}, which fixes t.
     */
    private static float[][] rows(String name) {
        BlockFormat format = BlockDotsTest.format(name);
        BlockReference reference = BlockDotsTest.reference(name);
        boolean tensor = format.name().tensorScale();
        double t = tensor ? BlockDotsTest.exactDouble(reference.tensorScale(new float[] {TENSOR_PIN})) : 1;
        List<Float> maxima = new ArrayList<>();
        if (tensor) maxima.add(TENSOR_PIN);
        List<Rational> scales = BlockReference.BUILT_IN_VALUES.get(format.name().scale().toString());
        for (int i = 0; i < scales.size(); i++) {
            List<Rational> points = new ArrayList<>(List.of(scales.get(i)));
            if (i + 1 < scales.size()) points.add(scales.get(i).add(scales.get(i + 1)).divide(Rational.of(2)));
            for (Rational point : points) {
                // Within a float32's half step of the exact product, so the three floats around it hold its neighbours.
                float nearest = (float) (BlockDotsTest.exactDouble(point) * format.element().largest() * t);
                if (!Float.isFinite(nearest) || nearest == 0 || (tensor && Math.nextUp(nearest) >= TENSOR_PIN)) continue;
                maxima.addAll(List.of(Math.nextDown(nearest), nearest, Math.nextUp(nearest)));
            }
        }
        // Most points must be reachable, or the test would check little: all but those beyond float32 or the pin.
        assertTrue(maxima.size() > scales.size(), name + ": " + maxima.size() + " blocks");
        int size = format.blockSize(), perRow = BlockDotsTest.K / size;
        float[][] rows = new float[(maxima.size() + perRow - 1) / perRow][BlockDotsTest.K];
        for (int m = 0; m < maxima.size(); m++) {
            float[] row = rows[m / perRow];
            int first = m % perRow * size;
            for (int j = 0; j < size; j++) row[first + j] = j == 0 ? maxima.get(m) : maxima.get(m) * (j % 2 == 0 ? 0.3f : -0.71f) / j;
        }
        return rows;
    }
}
