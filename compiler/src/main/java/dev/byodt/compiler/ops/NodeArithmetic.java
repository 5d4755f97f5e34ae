package dev.byodt.compiler.ops;

/**
 * What an operator's tuned schedule is chosen and sized for: {@code lanes}, the elements of the node's datatype
 * one of the target's vectors holds, and {@code machineFloat32}, whether the node's products and sums are the
 * machine's own float32 instructions. Schedules that keep many accumulators in registers (register tiles) suit
 * only sums that are machine instructions: an emulated datatype's operation is a call or a long sequence whose
 * temporaries need the registers the tile would hold, so its accumulators spill (posit8's convolution ran 3 times
 * slower in tiles). {@code tileLanes} says whether a tile suits the node and how wide its vectors of sums are: the
 * float32 lanes for float32's own sums, the lanes of doubles where an emulated datatype's exact sums may run in
 * double multiply-adds (dev.byodt.compiler.lower.DoubleSums), 0 where no tile suits. {@code itemsApart}: whether
 * the schedule must take the items of a call one after the other, each in the nest a call of one item has (a
 * stochastically rounding node, whose counters number each item's roundings by its place in the run:
 * dev.byodt.compiler.dtype.CallItems), so no schedule that groups rows across items. {@code winograd}: float32's 3x3
 * convolutions may take {@link WinogradConv} (--conv-algorithm winograd).
 */
public record NodeArithmetic(int lanes, boolean machineFloat32, int tileLanes, boolean itemsApart, boolean winograd) {
    /** A node whose convolutions are direct. */
    public NodeArithmetic(int lanes, boolean machineFloat32, int tileLanes, boolean itemsApart) {
        this(lanes, machineFloat32, tileLanes, itemsApart, false);
    }

    /** A node whose schedule may group rows of several items. */
    public NodeArithmetic(int lanes, boolean machineFloat32, int tileLanes) {
        this(lanes, machineFloat32, tileLanes, false);
    }

    /** A node whose sums take tiles only where they are the machine's float32. */
    public NodeArithmetic(int lanes, boolean machineFloat32) {
        this(lanes, machineFloat32, machineFloat32 ? lanes : 0);
    }
}
