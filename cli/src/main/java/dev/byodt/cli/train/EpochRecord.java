package dev.byodt.cli.train;

import dev.byodt.compiler.train.StepStatistics;

/**
 * One epoch of training: the mean of its steps' losses, top-1 on the training batches as they were trained
 * (before each batch's update), top-1 on the test split after the epoch, the epoch's seconds (training and
 * testing), and its steps' counts of zero and saturated gradients and of vanished and saturated updates.
 */
public record EpochRecord(int epoch, double loss, double trainTop1, double testTop1, double seconds, StepStatistics.Counts counts) {}
