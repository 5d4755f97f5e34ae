package dev.byodt.compiler.ops;

/**
 * What an operator's tuned schedule is chosen and sized for: {@code lanes}, the elements of the node's datatype
 * one of the target's vectors holds, and {@code machineFloat32}, whether the node's products and sums are the
 * machine's own float32 instructions. Schedules that keep many accumulators in registers (register tiles) suit
 * only the latter: an emulated datatype's operation is a call or a long sequence whose temporaries need the
 * registers the tile would hold, so its accumulators spill (posit8's convolution ran 3 times slower in tiles).
 */
public record NodeArithmetic(int lanes, boolean machineFloat32) {}
