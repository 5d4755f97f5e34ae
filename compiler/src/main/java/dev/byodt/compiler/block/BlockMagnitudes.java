package dev.byodt.compiler.block;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The smallest nonzero, or the largest, magnitude of the elements of each block over each run of {@code run}
 * consecutive vectors of an operand (F64, [blocks, runs]; the smallest +infinity and the largest 0 where the run's
 * block holds only zeros, both NaN where it holds a NaN): how far apart the elements of a tile's rows or columns lie
 * in a block, which says whether the tile's block sums fit one double ({@link ExactBlockSum#fitsOneDouble}).
 */
record BlockMagnitudes(KernelBuilder kb, Buffer extremes, long runs) {
    private static final double NONE = Double.POSITIVE_INFINITY;

    /** The smallest nonzero magnitudes of vector(i), i < vectors, in runs of {@code run} (see {@link #of}). */
    static BlockMagnitudes smallest(KernelBuilder kb, long vectors, long run, long length, long blockSize, Function<Expr, QuantizedOperand.Vector> vector) {
        return of(kb, vectors, run, length, blockSize, vector, NONE, ActivationQuantizer::smaller, BlockMagnitudes::nonzero);
    }

    /** The largest magnitudes of vector(i), i < vectors, in runs of {@code run} (see {@link #of}). */
    static BlockMagnitudes largest(KernelBuilder kb, long vectors, long run, long length, long blockSize, Function<Expr, QuantizedOperand.Vector> vector) {
        return of(kb, vectors, run, length, blockSize, vector, 0, ActivationQuantizer::larger, element -> abs(cast(ScalarType.F64, element)));
    }

    /**
     * The extremes, by {@code extreme} from {@code none}, of the elements as {@code magnitude} gives them, of
     * vector(i), i < vectors, in runs of {@code run} (which divides vectors), computed by loop nests that run where
     * this is emitted: each vector's, block by block, each k across the vectors, a loop that vectorizes (a vector's k
     * being contiguous in the columns of {@link BlockDots}' tiles, and gathered in their rows: no chain of dependent
     * extremes along a vector); then each run's, the extreme of its vectors'.
     */
    private static BlockMagnitudes of(KernelBuilder kb, long vectors, long run, long length, long blockSize, Function<Expr, QuantizedOperand.Vector> vector,
                                      double none, BinaryOperator<Expr> extreme, UnaryOperator<Expr> magnitude) {
        long blocks = (length + blockSize - 1) / blockSize, runs = vectors / run;
        Buffer each = kb.scratch("extreme.each", ScalarType.F64, new long[] {blocks, vectors});
        kb.loop(blocks, block -> {
            kb.loop(vectors, i -> kb.store(each, at(i, block, vectors), f64(none)));
            Expr start = mul(block, idx(blockSize));
            kb.loop(min(idx(blockSize), sub(idx(length), start)), j -> kb.loop(vectors, i -> {
                Expr index = at(i, block, vectors);
                kb.store(each, index, extreme.apply(kb.load(each, index), magnitude.apply(vector.apply(i).element(add(start, j)))));
            }));
        });
        Buffer extremes = kb.scratch("extreme", ScalarType.F64, new long[] {blocks, runs});
        kb.loop(blocks, block -> kb.loop(runs, r -> {
            Local most = kb.local("extreme", f64(none));
            kb.loop(run, i -> kb.assign(most, extreme.apply(kb.get(most), kb.load(each, at(add(mul(r, idx(run)), i), block, vectors)))));
            kb.store(extremes, at(r, block, runs), kb.get(most));
        }));
        return new BlockMagnitudes(kb, extremes, runs);
    }

    /** The extreme magnitude of block {@code block} over the vectors of run {@code run} (NaN where one is). */
    Expr at(Expr run, Expr block) { return kb.load(extremes, at(run, block, runs)); }

    /** |element| (F64), or +infinity for a zero. */
    private static Expr nonzero(Expr element) {
        Expr magnitude = abs(cast(ScalarType.F64, element));
        return select(eq(magnitude, f64(0)), f64(NONE), magnitude);
    }

    private static Expr at(Expr vector, Expr block, long vectors) { return add(mul(block, idx(vectors)), vector); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
