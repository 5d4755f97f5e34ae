package dev.byodt.compiler.block;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The smallest nonzero magnitude of the elements of each block over each run of {@code run} consecutive vectors of
 * an operand (F64, [blocks, runs]; +infinity where the run's block holds only zeros, NaN where it holds a NaN): how
 * far below the largest element the elements of a tile's rows or columns reach in a block, which says whether the
 * tile's block sums fit one double ({@link ExactBlockSum#fitsOneDouble}).
 */
record BlockMagnitudes(KernelBuilder kb, Buffer smallest, long runs) {
    private static final double NONE = Double.POSITIVE_INFINITY;

    /**
     * The magnitudes of vector(i), i < vectors, in runs of {@code run} (which divides vectors), computed by loop
     * nests that run where this is emitted: each vector's, block by block, each k across the vectors, a loop that
     * vectorizes (a vector's k being contiguous in the columns of {@link BlockDots}' tiles, and gathered in their
     * rows: no chain of dependent minima along a vector); then each run's, the smallest of its vectors'.
     */
    static BlockMagnitudes of(KernelBuilder kb, long vectors, long run, long length, long blockSize, Function<Expr, QuantizedOperand.Vector> vector) {
        long blocks = (length + blockSize - 1) / blockSize, runs = vectors / run;
        Buffer each = kb.scratch("smallest.each", ScalarType.F64, new long[] {blocks, vectors});
        kb.loop(blocks, block -> {
            kb.loop(vectors, i -> kb.store(each, at(i, block, vectors), f64(NONE)));
            Expr start = mul(block, idx(blockSize));
            kb.loop(min(idx(blockSize), sub(idx(length), start)), j -> kb.loop(vectors, i -> {
                Expr index = at(i, block, vectors);
                kb.store(each, index, ActivationQuantizer.smaller(kb.load(each, index), nonzero(vector.apply(i).element(add(start, j)))));
            }));
        });
        Buffer smallest = kb.scratch("smallest", ScalarType.F64, new long[] {blocks, runs});
        kb.loop(blocks, block -> kb.loop(runs, r -> {
            Local least = kb.local("least", f64(NONE));
            kb.loop(run, i -> kb.assign(least, ActivationQuantizer.smaller(kb.get(least), kb.load(each, at(add(mul(r, idx(run)), i), block, vectors)))));
            kb.store(smallest, at(r, block, runs), kb.get(least));
        }));
        return new BlockMagnitudes(kb, smallest, runs);
    }

    /** The smallest nonzero magnitude of block {@code block} over the vectors of run {@code run} (NaN where one is). */
    Expr smallestOf(Expr run, Expr block) { return kb.load(smallest, at(run, block, runs)); }

    /** |element| (F64), or +infinity for a zero. */
    private static Expr nonzero(Expr element) {
        Expr magnitude = abs(cast(ScalarType.F64, element));
        return select(eq(magnitude, f64(0)), f64(NONE), magnitude);
    }

    private static Expr at(Expr vector, Expr block, long vectors) { return add(mul(block, idx(vectors)), vector); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
