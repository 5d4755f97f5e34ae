package dev.byodt.cli.train;

/**
 * One epoch of training: the mean of its steps' losses, top-1 on the training batches as they were trained
 * (before each batch's update), top-1 on the test split after the epoch, and the epoch's seconds (training
 * and testing).
 */
public record EpochRecord(int epoch, double loss, double trainTop1, double testTop1, double seconds) {}
