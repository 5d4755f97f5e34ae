package dev.byodt.compiler.block;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * The smallest nonzero magnitude of the elements of each block of {@code vectors} vectors of an operand (F64,
 * [blocks, vectors]; +infinity where a block holds only zeros, NaN where it holds a NaN): how far below the
 * largest element a block's elements reach, which says whether the block sums of a tile fit one double
 * ({@link ExactBlockSum#fitsOneDouble}).
 */
record BlockMagnitudes(KernelBuilder kb, Buffer smallest, long vectors) {
    private static final double NONE = Double.POSITIVE_INFINITY;

    /**
     * The magnitudes of vector(i), i < vectors, computed by a loop nest that runs where this is emitted: block by
     * block, each k across the vectors, a loop that vectorizes (a vector's k being contiguous in the columns of
     * {@link BlockDots}' tiles, and gathered in their rows: no chain of dependent minima along a vector).
     */
    static BlockMagnitudes of(KernelBuilder kb, long vectors, long length, long blockSize, Function<Expr, QuantizedOperand.Vector> vector) {
        long blocks = (length + blockSize - 1) / blockSize;
        Buffer smallest = kb.scratch("smallest", ScalarType.F64, new long[] {blocks, vectors});
        kb.loop(blocks, block -> {
            kb.loop(vectors, i -> kb.store(smallest, at(i, block, vectors), f64(NONE)));
            Expr start = mul(block, idx(blockSize));
            kb.loop(min(idx(blockSize), sub(idx(length), start)), j -> kb.loop(vectors, i -> {
                Expr index = at(i, block, vectors);
                kb.store(smallest, index, ActivationQuantizer.smaller(kb.load(smallest, index), nonzero(vector.apply(i).element(add(start, j)))));
            }));
        });
        return new BlockMagnitudes(kb, smallest, vectors);
    }

    /** The smallest nonzero magnitude of block {@code block} over vectors first .. first + count - 1 (NaN where one is). */
    Expr smallestOf(Expr first, long count, Expr block) {
        Local result = kb.local("smallest", f64(NONE));
        kb.loop(count, i -> kb.assign(result, ActivationQuantizer.smaller(kb.get(result), kb.load(smallest, at(add(first, i), block, vectors)))));
        return kb.get(result);
    }

    /** |element| (F64), or +infinity for a zero. */
    private static Expr nonzero(Expr element) {
        Expr magnitude = abs(cast(ScalarType.F64, element));
        return select(eq(magnitude, f64(0)), f64(NONE), magnitude);
    }

    private static Expr at(Expr vector, Expr block, long vectors) { return add(mul(block, idx(vectors)), vector); }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
