package dev.byodt.compiler.block;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.WindowGeometry;

import java.util.Arrays;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * A Conv's block dot products as a matrix product, so that they take {@link BlockDots}' tiles: each output position's
 * window of the quantized input gathered into a row of taps times channels (the window's taps in order, each tap's
 * channels of the group in its blocks), and each output map's weights into a column of the same layout, side by side.
 * A tap's blocks are the Conv's own: its channels in one block where they are at most the block size, else in blocks
 * of the block size, the last one filled up with zero elements where the block size does not divide them (a zero
 * adds an exact 0 to its block's sum). A tap in the padding keeps zero elements under a scale of 1: its blocks sum to
 * +0, and adding +0 changes no running sum of blocks (which starts at +0, so it is never -0), as leaving it out did.
 */
final class ConvWindows {
    private final long channels, taps, blockLength, blocksPerTap, paddedChannels;

    private ConvWindows(long channels, long taps, long blockSize) {
        this.channels = channels;
        this.taps = taps;
        this.blockLength = Math.min(channels, blockSize);
        this.blocksPerTap = Math.ceilDiv(channels, blockLength);
        this.paddedChannels = blocksPerTap * blockLength;
    }

    /** The windows of a Conv of {@code channels} input channels per group and {@code taps} taps, in blocks of at most {@code blockSize}. */
    static ConvWindows of(long channels, long taps, long blockSize) { return new ConvWindows(channels, taps, blockSize); }

    /** The length of a row or column: every tap's channels, filled up to whole blocks. */
    long length() { return taps * paddedChannels; }

    private long blocks() { return taps * blocksPerTap; }

    /**
     * The weights, quantized as [maps * taps, channels] (blocks along channels), as the columns of each group side by
     * side: [groups, length, maps per group], the layout {@link BlockDots}' tiles read.
     */
    QuantizedOperand columns(KernelBuilder kb, QuantizedOperand.Constant weights, long groups, long mapsPerGroup) {
        long length = length(), maps = groups * mapsPerGroup;
        double[] elements = new double[(int) (groups * length * mapsPerGroup)];
        float[] scales = new float[(int) (groups * blocks() * mapsPerGroup)];
        Arrays.fill(scales, 1);
        for (long map = 0; map < maps; map++) {
            long g = map / mapsPerGroup, j = map % mapsPerGroup;
            for (long tap = 0; tap < taps; tap++) {
                long row = map * taps + tap;
                for (long c = 0; c < channels; c++) {
                    int to = (int) ((g * length + tap * paddedChannels + c) * mapsPerGroup + j), from = (int) (row * channels + c);
                    elements[to] = weights.elements()[from];
                }
                for (long b = 0; b < blocksPerTap; b++) {
                    scales[(int) ((g * blocks() + tap * blocksPerTap + b) * mapsPerGroup + j)] = weights.scales()[(int) (row * blocksPerTap + b)];
                }
            }
        }
        QuantizedOperand.Constant sideBySide = new QuantizedOperand.Constant(weights.storage(), elements, scales, weights.tensorScale());
        return sideBySide.operand(kb, "W.columns", new long[] {groups, length, mapsPerGroup}, new long[] {groups, blocks(), mapsPerGroup}, blockLength);
    }

    /**
     * Scratch buffers for the rows of one image and group: elements [positions, length] in the input's element type
     * and scales [positions, blocks].
     */
    Buffer[] rowBuffers(KernelBuilder kb, QuantizedOperand input, long positions) {
        return new Buffer[] {kb.scratch("windows.elements", input.elements().elementType(), new long[] {positions, length()}),
            kb.scratch("windows.scales", ScalarType.F32, new long[] {positions, blocks()})};
    }

    /**
     * The rows of image {@code image} (an index of the input's outer axis: the batch item times the groups plus the
     * group) of the quantized input [images, channels, plane] into {@code buffers} ({@link #rowBuffers}), by a loop nest
     * that runs where this is emitted: every element 0 and every scale 1, then each output position's taps inside the
     * input copied.
     */
    QuantizedOperand rows(KernelBuilder kb, QuantizedOperand input, WindowGeometry window, long[] spatial, long[] kernel, Expr image, Buffer[] buffers) {
        Buffer elements = buffers[0], scales = buffers[1];
        long[] output = window.outputShape();
        long positions = Arrays.stream(output).reduce(1, (p, q) -> p * q);
        kb.loop(elements.size(), i -> kb.store(elements, i, constant(elements.elementType(), 0)));
        kb.loop(scales.size(), i -> kb.store(scales, i, constant(ScalarType.F32, 1)));
        kb.loops(output, at -> {
            Expr row = flatIndex(output, at);
            window.forEachTap(kb, at, (position, tap) -> {
                QuantizedOperand.Vector source = input.at(image, flatIndex(spatial, position));
                Expr tapIndex = flatIndex(kernel, tap);
                Expr first = add(mul(row, idx(length())), mul(tapIndex, idx(paddedChannels)));
                kb.loop(channels, c -> kb.store(elements, add(first, c), source.element(c)));
                Expr firstBlock = add(mul(row, idx(blocks())), mul(tapIndex, idx(blocksPerTap)));
                kb.loop(blocksPerTap, b -> kb.store(scales, add(firstBlock, b), source.scale(b)));
            });
        });
        return new QuantizedOperand(kb, elements, scales, length(), 1, blocks(), blockLength, input.tensorScale());
    }
}
