package dev.byodt.runtime;

/** A classification data set in memory: images as float32 [N, channels, rows, cols] and one class label per image. */
public record LabeledImages(Tensor images, int[] labels) {
    public LabeledImages {
        if (images.shape()[0] != labels.length) {
            throw new IllegalArgumentException(images + " with " + labels.length + " labels");
        }
    }

    public int size() { return labels.length; }
}
