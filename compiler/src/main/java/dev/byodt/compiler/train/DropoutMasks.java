package dev.byodt.compiler.train;

import dev.byodt.runtime.Tensor;

import java.util.SplittableRandom;

/**
 * Dropout's masks, drawn for each step from one seeded generator, so that the same seed gives the same masks
 * in the same order (and so the same bits) and each step and each Dropout a new mask. An element is dropped
 * with probability ratio; a kept one is multiplied by 1 / (1 - ratio), as PyTorch's dropout scales it, which
 * keeps the expected value of the output the input's.
 */
final class DropoutMasks {
    private final SplittableRandom random;

    DropoutMasks(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** Fills {@code mask} (float32) with 0 for a dropped element and 1 / (1 - ratio) for a kept one. */
    void fill(Tensor mask, double ratio) {
        float kept = (float) (1 / (1 - ratio));
        long n = mask.elementCount();
        for (long i = 0; i < n; i++) mask.setFloat(i, random.nextDouble() < ratio ? 0 : kept);
    }
}
