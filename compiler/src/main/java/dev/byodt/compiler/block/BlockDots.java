package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.ops.MatMul;
import dev.byodt.compiler.ops.WindowGeometry;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * MatMul, Gemm and Conv in a block datatype: both operands quantized in blocks along the reduction axis
 * ({@link QuantizedOperand}: constants at compile time, activations when the node runs, the same elements and
 * scales), and each output the sum, in float32 from +0 in the order of the blocks, of each block's exact sum of
 * products of elements times both blocks' scales, rounded once to float32 ({@link ExactBlockSum} says why that
 * rounding is exact, scales included), and for formats with tensor scales (NVFP4) that float32 sum times the
 * float32 product of both tensor scales. MatMul and Gemm take two activations as well as an activation and
 * weights (attention's Q K^T and its weights times V). For Conv the blocks run along each group's input channels
 * at each tap of the window, taps in the window's order (those in the padding add +0, which changes no sum, as
 * leaving them out in Conv's reference nest does), computed as each image's and group's matrix product of windows
 * and weights in the tiles ({@link ConvWindows}). Gemm's alpha, beta and C and Conv's bias apply to the result in the vector datatype, outside the dot
 * product.
 */
public final class BlockDots {
    /** Rows and columns of outputs computed together ({@link Sums#tiles}): their partial block sums stay in the first-level cache. */
    private static final long MOST_ROWS_TOGETHER = 8, MOST_COLUMNS_TOGETHER = 256;
    /** Consecutive k whose products each output adds to its partial block sums at once. */
    private static final int K_TOGETHER = 8;

    private BlockDots() {}

    /** The kernel of {@code node} in {@code format} when it is a MatMul, Gemm or Conv, else empty (the node computes in the vector datatype). */
    public static Optional<Kernel> lower(Node node, Function<Value, Buffer> bufferOf, BlockFormat format, BlockChoice.Accumulation accumulation) {
        return switch (node.opType()) {
            case "MatMul", "Gemm", "Conv" -> {
                Optional<String> unsupported = unsupported(format);
                if (unsupported.isPresent()) throw node.error(unsupported.get());
                List<Buffer> inputs = new ArrayList<>();
                for (Value v : node.inputs()) inputs.add(v == null ? null : bufferOf.apply(v));
                KernelBuilder kb = new KernelBuilder(node.name(), node.opType(), inputs, node.outputs().stream().map(bufferOf).toList());
                Sums sums = new Sums(kb, format, ExactBlockSum.of(format).orElseThrow(), accumulation);
                switch (node.opType()) {
                    case "MatMul" -> matMul(node, kb, format, sums);
                    case "Gemm" -> gemm(node, kb, format, sums);
                    default -> conv(node, kb, format, sums);
                }
                yield Optional.of(kb.build());
            }
            default -> Optional.empty();
        };
    }

    /** Why models cannot compute in {@code format} yet, or empty when they can. */
    public static Optional<String> unsupported(BlockFormat format) {
        String activations = ActivationQuantizer.unsupported(format);
        if (activations != null) return Optional.of("block datatype " + format.name() + ": " + activations);
        if (ExactBlockSum.of(format).isEmpty()) {
            if (format.element() instanceof PositGrid posit) {
                return Optional.of("block datatype " + format.name() + ": its posit elements of up to " + (posit.bits() - 2 - posit.es())
                    + " significant bits times two scales of " + format.scale().fractionBits() + " fraction bits (" + format.name().scale()
                    + ") take more than a double's 53, which the block sums need exact; scales of fewer fraction bits (ue4m3, e8m0) take posits of any width");
            }
            return Optional.of("block datatype " + format.name() + ": its block sums need more than two doubles' 53 bits");
        }
        return Optional.empty();
    }

    /**
     * MatMul, A [..., M, K] times B [..., K, N] with broadcast batch dimensions: A's rows of K quantized when the
     * node runs; B's columns of K at compile time when B is a constant, else when the node runs, each operand
     * quantized once before the node's loops.
     */
    private static void matMul(Node node, KernelBuilder kb, BlockFormat format, Sums sums) {
        MatMul.Shape s = MatMul.shape(node, node.input(0).type(), node.input(1).type());
        long m = s.m(), k = s.k(), n = s.n();
        long aMatrices = Shapes.elementCount(s.aBatch(), "A"), bMatrices = Shapes.elementCount(s.bBatch(), "B");
        QuantizedOperand a = QuantizedOperand.atRunTime(kb, format, "A", kb.input(0), aMatrices * m, k, 1);
        Function<Expr, Function<Expr, QuantizedOperand.Vector>> bColumns = columnsSideBySide(kb, format, sums.exact().type(), "B", node.input(1), 1, bMatrices, k, n, true)
            .orElseThrow();
        Buffer y = kb.output(0);
        long[] output = {Shapes.elementCount(s.batch(), "output"), m, n};
        kb.loops(s.batch(), at -> sums.tiles(m, n, i -> a.at(add(mul(s.aMatrix(at), m), i), idx(0)), bColumns.apply(s.bMatrix(at)),
            (i, j, dot) -> kb.store(y, flatIndex(output, flatIndex(s.batch(), at), i, j), cast(ScalarType.REAL, dot))));
    }

    /**
     * Gemm: alpha A' B' + beta C, A' and B' A and B transposed as transA and transB say; the dot products in
     * blocks, alpha, beta and C in the vector datatype, as the scalar Gemm orders them.
     */
    private static void gemm(Node node, KernelBuilder kb, BlockFormat format, Sums sums) {
        boolean transA = node.intAttr("transA", 0) != 0, transB = node.intAttr("transB", 0) != 0;
        float alpha = node.floatAttr("alpha", 1), beta = node.floatAttr("beta", 1);
        long[] aShape = node.input(0).type().shape(), bShape = node.input(1).type().shape();
        long m = transA ? aShape[1] : aShape[0], k = transA ? aShape[0] : aShape[1], n = transB ? bShape[0] : bShape[1];
        // A' [M, K] has its rows of K, stored K-first when transA; B' [K, N] its columns, K-first unless transB.
        Function<Expr, QuantizedOperand.Vector> aRows = matrices(kb, format, "A", node.input(0), 0, 1, k, m, transA).apply(idx(0));
        Buffer c = beta == 0 || node.input(2) == null ? null : kb.input(2);
        Buffer y = kb.output(0);
        Store store = (i, j, dot) -> {
            Expr product = cast(ScalarType.REAL, dot);
            Expr result = alpha == 1 ? product : mul(real(alpha), product);
            if (c != null) {
                Expr cValue = kb.load(c, flatIndex(c.shape(), broadcastIndices(c.shape(), new Expr[] {i, j})));
                result = add(result, beta == 1 ? cValue : mul(real(beta), cValue));
            }
            kb.store(y, add(mul(i, n), j), result);
        };
        Optional<Function<Expr, Function<Expr, QuantizedOperand.Vector>>> sideBySide =
            columnsSideBySide(kb, format, sums.exact().type(), "B", node.input(1), 1, 1, k, n, !transB);
        if (sideBySide.isPresent()) {
            sums.tiles(m, n, aRows, sideBySide.get().apply(idx(0)), store);
            return;
        }
        // An activation B stored [N, K]: each column of B' is a row of it, read output by output.
        Function<Expr, QuantizedOperand.Vector> bColumns = matrices(kb, format, "B", node.input(1), 1, 1, k, n, false).apply(idx(0));
        kb.loops(new long[] {m, n}, at -> store.at(at[0], at[1], sums.dot(aRows.apply(at[0]), bColumns.apply(at[1]))));
    }

    /**
     * Conv (any rank, any group count) with constant W [M, C / group, K...] and an optional bias: the blocks run
     * along each group's input channels at each tap of the window.
     */
    private static void conv(Node node, KernelBuilder kb, BlockFormat format, Sums sums) {
        Value weights = node.input(1);
        if (!weights.isConstant()) {
            throw node.error("block datatype " + format.name() + ": the weights '" + weights.name()
                + "' are not a constant; Conv of two activations is not supported yet");
        }
        Buffer x = kb.input(0), bias = kb.input(2), y = kb.output(0);
        long groups = node.intAttr("group", 1);
        long[] ws = weights.type().shape();
        long maps = ws[0], channels = ws[1], mapsPerGroup = maps / groups;
        long[] kernel = Arrays.copyOfRange(ws, 2, ws.length);
        long taps = Arrays.stream(kernel).reduce(1, (p, q) -> p * q);
        long[] spatial = Arrays.copyOfRange(x.shape(), 2, x.rank());
        long plane = Arrays.stream(spatial).reduce(1, (p, q) -> p * q);
        WindowGeometry window = WindowGeometry.of(node, spatial, kernel);
        // W as [M, taps, C / group], each tap's channels a vector; X as [N * group, C / group, plane].
        float[] values = weights.constant().toFloatArray();
        ConvWindows windows = ConvWindows.of(channels, taps, format.blockSize());
        QuantizedOperand.Constant w = QuantizedOperand.Constant.of(kb, format, "W", transposed(values, maps, channels, taps), maps * taps, channels, 1);
        QuantizedOperand columns = windows.columns(kb, w, groups, mapsPerGroup).withElementsIn(sums.exact().type());
        QuantizedOperand input = QuantizedOperand.atRunTime(kb, format, "X", x, x.dim(0) * groups, channels, plane);
        long positions = Arrays.stream(window.outputShape()).reduce(1, (p, q) -> p * q);
        Buffer[] rowBuffers = windows.rowBuffers(kb, input, positions);
        // Each image and group a matrix product: its output positions' windows times its maps' weights.
        kb.loop(x.dim(0), batch -> kb.loop(groups, group -> {
            QuantizedOperand rows = windows.rows(kb, input, window, spatial, kernel, add(mul(batch, groups), group), rowBuffers);
            sums.tiles(positions, mapsPerGroup, i -> rows.at(i, idx(0)), j -> columns.at(group, j), (i, j, dot) -> {
                Expr map = add(mul(group, idx(mapsPerGroup)), j);
                Expr result = cast(ScalarType.REAL, dot);
                if (bias != null) result = add(result, kb.load(bias, map));
                kb.store(y, add(mul(add(mul(batch, idx(maps)), map), idx(positions)), i), result);
            });
        }));
    }

    /**
     * {@code count} matrices of {@code rows} vectors of {@code k} along the reduction axis, stored K-first
     * ([count, K, rows]) when {@code kFirst}, else [count, rows, K]: a constant quantized at compile time as
     * [count, rows, K], each vector contiguous, anything else when the node runs, as it is stored. Gives each
     * matrix's vectors.
     */
    private static Function<Expr, Function<Expr, QuantizedOperand.Vector>> matrices(KernelBuilder kb, BlockFormat format, String name, Value value,
                                                                                    int input, long count, long k, long rows, boolean kFirst) {
        if (value.isConstant()) {
            float[] values = value.constant().toFloatArray();
            QuantizedOperand q = QuantizedOperand.atCompileTime(kb, format, name, kFirst ? transposed(values, count, k, rows) : values, count * rows, k, 1);
            return matrix -> row -> q.at(add(mul(matrix, rows), row), idx(0));
        }
        if (kFirst) {
            QuantizedOperand q = QuantizedOperand.atRunTime(kb, format, name, kb.input(input), count, k, rows);
            return matrix -> row -> q.at(matrix, row);
        }
        QuantizedOperand q = QuantizedOperand.atRunTime(kb, format, name, kb.input(input), count * rows, k, 1);
        return matrix -> row -> q.at(add(mul(matrix, rows), row), idx(0));
    }

    /**
     * {@code count} matrices of {@code columns} vectors of {@code k} along the reduction axis, quantized into the
     * layout [count, K, columns], the vectors' elements of one k side by side (what {@link Sums#tiles} reads): a
     * constant at compile time from either layout, an activation when the node runs if it is stored so
     * ({@code kFirst}); empty for an activation stored [count, columns, K]. Their elements are read as
     * {@code elementType}, the type of the block sums' products, converted once before the node's loops: the
     * tiles read each of them once per row.
     */
    private static Optional<Function<Expr, Function<Expr, QuantizedOperand.Vector>>> columnsSideBySide(
            KernelBuilder kb, BlockFormat format, ScalarType elementType, String name, Value value, int input, long count, long k, long columns,
            boolean kFirst) {
        QuantizedOperand q;
        if (value.isConstant()) {
            float[] values = value.constant().toFloatArray();
            q = QuantizedOperand.atCompileTime(kb, format, name, kFirst ? values : transposed(values, count, columns, k), count, k, columns);
        } else if (kFirst) {
            q = QuantizedOperand.atRunTime(kb, format, name, kb.input(input), count, k, columns);
        } else {
            return Optional.empty();
        }
        QuantizedOperand converted = q.withElementsIn(elementType);
        return Optional.of(matrix -> column -> converted.at(matrix, column));
    }

    /** Stores the dot product (F32, or REAL under --accumulate dtype) of output row i and column j. */
    private interface Store {
        void at(Expr i, Expr j, Expr dot);
    }

    /**
     * How one format's dot products add up: each block's exact sum of products of elements times both blocks'
     * scales, rounded once to float32, then added from +0 in the order of the blocks in float32 or, converted to
     * it, in the vector datatype ({@link BlockChoice.Accumulation}), then times both tensor scales.
     */
    private record Sums(KernelBuilder kb, BlockFormat format, ExactBlockSum exact, BlockChoice.Accumulation accumulation) {
        /** The dot product of two vectors, F32 or REAL as the accumulation is. */
        Expr dot(QuantizedOperand.Vector a, QuantizedOperand.Vector b) {
            Total total = total();
            add(total, a, b);
            return tensorScaled(total.value(), a, b);
        }

        /** Adds the block results of two vectors to {@code total}, block after block. */
        void add(Total total, QuantizedOperand.Vector a, QuantizedOperand.Vector b) {
            long size = a.operand().blockSize(), length = a.operand().length();
            kb.loop(a.operand().blocks(), block -> {
                Expr blockStart = mul(block, size);
                total.add(min(idx(size), sub(idx(length), blockStart)), j -> a.element(Exprs.add(blockStart, j)), j -> b.element(Exprs.add(blockStart, j)),
                    product(a.scale(block), b.scale(block)));
            });
        }

        /**
         * Every output of rows(i) . columns(j), i < m, j < n, handed to {@code store}: a few rows and a run of
         * columns at a time, block after block. Each {@value #K_TOGETHER} k of a block take each row's elements
         * times the run's elements of those k, side by side in memory ({@link #columnsSideBySide}), into the tile's
         * partial block sums, a loop over columns that vectorizes; at the end of each block the tile's block sums
         * are scaled, rounded to float32 and added to its outputs. Exact block sums do not depend on the order of
         * their products, and the blocks are added in their order, so each output has the bits {@link #dot} gives
         * it. Where the products split into two sums (FP8 E5M2), a block whose smallest nonzero elements in the
         * tile's rows and columns ({@link BlockMagnitudes}, computed for each run of rows and of columns before the tiles)
         * admit it ({@link ExactBlockSum#fitsOneDouble}) is summed in one double instead, the same exact sum. Wide
         * elements (bfloat16, float16: {@link ExactBlockSum#checked}) sum a block in one double where its smallest
         * nonzero and largest elements in the tile's rows and columns admit it, else (under power-of-two scales) in
         * two split at a threshold where they admit that, else in two by extracting each product's high part where they
         * admit that ({@link ExactBlockSum#extractingBelow}), else each of the tile's outputs in limbs. Threads divide
         * the runs of rows.
         */
        void tiles(long m, long n, Function<Expr, QuantizedOperand.Vector> row, Function<Expr, QuantizedOperand.Vector> column, Store store) {
            if (accumulation == BlockChoice.Accumulation.EXACT) {
                // One exact total of limbs per output, output after output.
                kb.loops(new long[] {m, n}, at -> store.at(at[0], at[1], dot(row.apply(at[0]), column.apply(at[1]))));
                return;
            }
            // Stochastically rounded stores (the vector datatype's) keep the rows, which may be the call's items, one
            // run each: their counters number the items apart (CallItems), in the nest a call of one item has.
            long rows = format.elementRounding() == RoundingMode.STOCHASTIC ? 1 : largestDivisor(m, Math.min(MOST_ROWS_TOGETHER, m / 2));
            long columns = largestDivisor(n, MOST_COLUMNS_TOGETHER);
            long size = row.apply(idx(0)).operand().blockSize(), length = row.apply(idx(0)).operand().length();
            ScalarType sumType = accumulatorType();
            Buffer acc = kb.scratch("acc", sumType, new long[] {rows, columns});
            Optional<BlockMagnitudes[]> smallest = exact.splits() || exact.checked()
                ? Optional.of(new BlockMagnitudes[] {BlockMagnitudes.smallest(kb, m, rows, length, size, row), BlockMagnitudes.smallest(kb, n, columns, length, size, column)})
                : Optional.empty();
            Optional<BlockMagnitudes[]> largest = exact.checked()
                ? Optional.of(new BlockMagnitudes[] {BlockMagnitudes.largest(kb, m, rows, length, size, row), BlockMagnitudes.largest(kb, n, columns, length, size, column)})
                : Optional.empty();
            List<Buffer> partial = new ArrayList<>();
            int parts = exact.checked() ? 2 : exact.parts();
            for (int part = 0; part < parts; part++) partial.add(kb.scratch("block", exact.type(), new long[] {rows, columns}));
            kb.splitLoop(m / rows, rowRun -> kb.loop(n / columns, columnRun -> {
                Function<Expr, QuantizedOperand.Vector> rowAt = r -> row.apply(Exprs.add(mul(rowRun, rows), r));
                Function<Expr, QuantizedOperand.Vector> columnAt = c -> column.apply(Exprs.add(mul(columnRun, columns), c));
                kb.loop(rows * columns, t -> kb.store(acc, t, constant(sumType, 0)));
                kb.loop(row.apply(idx(0)).operand().blocks(), block -> {
                    Local count = kb.local("count", min(idx(size), sub(idx(length), mul(block, size))));
                    if (smallest.isEmpty()) {
                        addBlock(exact, rows, columns, partial, rowAt, columnAt, block, kb.get(count), acc);
                        return;
                    }
                    Expr smallestA = smallest.get()[0].at(rowRun, block), smallestB = smallest.get()[1].at(columnRun, block);
                    Runnable whole = () -> addBlock(exact.whole(), rows, columns, partial.subList(0, 1), rowAt, columnAt, block, kb.get(count), acc);
                    if (largest.isEmpty()) {
                        kb.ifElse(exact.fitsOneDouble(kb.get(count), smallestA, smallestB), whole,
                            () -> addBlock(exact, rows, columns, partial, rowAt, columnAt, block, kb.get(count), acc));
                        return;
                    }
                    // A wide element's block: one double, else two split at a threshold, else limbs (ExactBlockSum).
                    Local largestProduct = kb.local("largest.product", mul(largest.get()[0].at(rowRun, block), largest.get()[1].at(columnRun, block)));
                    Local smallestProduct = kb.local("smallest.product", mul(smallestA, smallestB));
                    Runnable inLimbs = () -> addBlockInLimbs(rows, columns, rowAt, columnAt, block, kb.get(count), acc);
                    Runnable extracted = () -> {
                        ExactBlockSum extraction = exact.extractingBelow(kb, kb.get(largestProduct));
                        kb.ifElse(exact.fitsExtracted(kb.get(largestProduct), kb.get(smallestProduct)),
                            () -> addBlock(extraction, rows, columns, partial, rowAt, columnAt, block, kb.get(count), acc), inLimbs);
                    };
                    if (exact.productsInTwoParts()) {
                        extracted.run();
                        return;
                    }
                    kb.ifElse(exact.fitsOneDouble(kb.get(largestProduct), kb.get(smallestProduct)), whole, !exact.splitsWhereTwoFit() ? extracted : () -> {
                        ExactBlockSum split = exact.splitAt(kb.get(kb.local("threshold", exact.threshold(kb.get(largestProduct)))));
                        kb.ifElse(exact.fitsTwoDoubles(kb.get(largestProduct), kb.get(smallestProduct)),
                            () -> addBlock(split, rows, columns, partial, rowAt, columnAt, block, kb.get(count), acc), extracted);
                    });
                });
                kb.loop(rows, r -> kb.loop(columns, c -> store.at(Exprs.add(mul(rowRun, rows), r), Exprs.add(mul(columnRun, columns), c),
                    tensorScaled(kb.load(acc, Exprs.add(mul(r, columns), c)), rowAt.apply(r), columnAt.apply(c)))));
            }));
        }

        /**
         * Adds block {@code block}'s products, its first {@code count} k, to the tile's partial block sums, {@code sum}'s
         * parts from 0, then each output's block sum, scaled and rounded once to float32, to its total in {@code acc}.
         * The first group of products starts the partial sums from 0 as it stores them: a pass that zeroed them first
         * (a memset) took a fifth to a quarter of an MX matrix product's time in an emitted executable, whose memset
         * stores a word at a time.
         */
        private void addBlock(ExactBlockSum sum, long rows, long columns, List<Buffer> partial, Function<Expr, QuantizedOperand.Vector> rowAt,
                              Function<Expr, QuantizedOperand.Vector> columnAt, Expr block, Expr count, Buffer acc) {
            Expr first = mul(block, rowAt.apply(idx(0)).operand().blockSize());
            Local groups = kb.local("groups", div(count, idx(K_TOGETHER)));
            kb.ifElse(gt(kb.get(groups), idx(0)), () -> addProducts(sum, rows, columns, partial, rowAt, columnAt, first, K_TOGETHER, true),
                () -> partial.forEach(p -> kb.loop(rows * columns, t -> kb.store(p, t, constant(sum.type(), 0)))));
            kb.loop(sub(kb.get(groups), idx(1)), g -> addProducts(sum, rows, columns, partial, rowAt, columnAt,
                Exprs.add(first, mul(Exprs.add(g, idx(1)), idx(K_TOGETHER))), K_TOGETHER, false));
            Expr rest = Exprs.add(first, mul(kb.get(groups), idx(K_TOGETHER)));
            kb.loop(sub(count, mul(kb.get(groups), idx(K_TOGETHER))), j -> addProducts(sum, rows, columns, partial, rowAt, columnAt, Exprs.add(rest, j), 1, false));
            kb.loop(rows, r -> kb.loop(columns, c -> {
                Expr t = Exprs.add(mul(r, columns), c);
                Expr result = sum.rounded(kb, partial.stream().map(p -> kb.load(p, t)).toList(),
                    product(rowAt.apply(r).scale(block), columnAt.apply(c).scale(block)));
                kb.store(acc, t, Exprs.add(kb.load(acc, t), cast(acc.elementType(), result)));
            }));
        }

        /**
         * Adds block {@code block}'s sum of products, its first {@code count} k, scaled and rounded once to float32,
         * to each output's total in {@code acc}, output by output, each summed in limbs ({@link ExactBlockSum#emitInLimbs}).
         */
        private void addBlockInLimbs(long rows, long columns, Function<Expr, QuantizedOperand.Vector> rowAt, Function<Expr, QuantizedOperand.Vector> columnAt,
                                     Expr block, Expr count, Buffer acc) {
            Expr first = mul(block, rowAt.apply(idx(0)).operand().blockSize());
            kb.loop(rows, r -> kb.loop(columns, c -> {
                Expr t = Exprs.add(mul(r, columns), c);
                Expr result = exact.emitInLimbs(kb, count, j -> rowAt.apply(r).element(Exprs.add(first, j)), j -> columnAt.apply(c).element(Exprs.add(first, j)),
                    product(rowAt.apply(r).scale(block), columnAt.apply(c).scale(block)));
                kb.store(acc, t, Exprs.add(kb.load(acc, t), cast(acc.elementType(), result)));
            }));
        }

        /**
         * Adds the products of {@code together} consecutive k from {@code first} to the tile's partial block sums:
         * for each output, the shares of its products summed first, then added to its partial sums, each partial
         * sum read and written once for them all ({@code fresh}: not read, the sums starting from 0). Any partial sum of
         * a block is exact ({@link ExactBlockSum}), so grouping the products changes no bit.
         */
        private void addProducts(ExactBlockSum sum, long rows, long columns, List<Buffer> partial, Function<Expr, QuantizedOperand.Vector> rowAt,
                                 Function<Expr, QuantizedOperand.Vector> columnAt, Expr first, int together, boolean fresh) {
            kb.loop(rows, r -> {
                List<Local> elements = new ArrayList<>();
                for (int u = 0; u < together; u++) elements.add(kb.local("a", rowAt.apply(r).element(Exprs.add(first, idx(u)))));
                kb.loop(columns, c -> {
                    Expr t = Exprs.add(mul(r, columns), c);
                    List<Expr> columnElements = new ArrayList<>();
                    for (int u = 0; u < together; u++) columnElements.add(columnAt.apply(c).element(Exprs.add(first, idx(u))));
                    List<Expr> sums = sum.accumulate(kb, partial.stream().map(p -> fresh ? constant(sum.type(), 0) : kb.load(p, t)).toList(),
                        elements.stream().map(kb::get).toList(), columnElements);
                    for (int part = 0; part < partial.size(); part++) kb.store(partial.get(part), t, sums.get(part));
                });
            });
        }

        /** A sum of block results from +0, as the accumulation adds them. */
        Total total() {
            if (accumulation == BlockChoice.Accumulation.EXACT) return new ExactTotal(kb, ExactBlockTotal.zero(kb, format), exact);
            return new RoundedTotal(kb, kb.local("acc", constant(accumulatorType(), 0)), exact);
        }

        /** The type of the rounded blocks' sum: F32, or REAL (the vector datatype). */
        ScalarType accumulatorType() { return accumulation == BlockChoice.Accumulation.DTYPE ? ScalarType.REAL : ScalarType.F32; }

        /**
         * The sum of blocks times both tensor scales, as a GEMM's alpha: their product rounded to float32 (exact in
         * double first: 24 + 24 bits), then the product with the sum, in the sum's type. Without tensor scales, the sum.
         */
        Expr tensorScaled(Expr sum, QuantizedOperand.Vector a, QuantizedOperand.Vector b) {
            if (!format.name().tensorScale()) return sum;
            return mul(sum, cast(sum.type(), cast(ScalarType.F32, mul(a.tensorScale(), b.tensorScale()))));
        }
    }

    /** A dot product's running sum of its blocks' results. */
    private interface Total {
        /** Adds one block: the products of its {@code count} elements a(j) and b(j), and the product of its two scales (F64). */
        void add(Expr count, Function<Expr, Expr> a, Function<Expr, Expr> b, Expr scales);

        /** The sum: F32, or REAL under --accumulate dtype. */
        Expr value();
    }

    /** Each block's exact sum times its scales rounded to float32 and added, in float32 or the vector datatype. */
    private record RoundedTotal(KernelBuilder kb, Local acc, ExactBlockSum exact) implements Total {
        @Override
        public void add(Expr count, Function<Expr, Expr> a, Function<Expr, Expr> b, Expr scales) {
            kb.assign(acc, Exprs.add(kb.get(acc), cast(kb.get(acc).type(), exact.emitRounded(kb, count, a, b, scales))));
        }

        @Override
        public Expr value() { return kb.get(acc); }
    }

    /** Every block's exact sum times its scales added exactly, rounded once to float32 at the end ({@link ExactBlockTotal}). */
    private record ExactTotal(KernelBuilder kb, ExactBlockTotal total, ExactBlockSum exact) implements Total {
        @Override
        public void add(Expr count, Function<Expr, Expr> a, Function<Expr, Expr> b, Expr scales) { exact.emitScaledInto(kb, total, count, a, b, scales); }

        @Override
        public Expr value() { return total.rounded(); }
    }

    /** The product of two blocks' scales (F32: MX's powers of two, NVFP4's UE4M3 4 bits), exact in double. */
    private static Expr product(Expr a, Expr b) { return mul(cast(ScalarType.F64, a), cast(ScalarType.F64, b)); }

    /** The largest divisor of {@code n} up to {@code limit}, or 1. */
    private static long largestDivisor(long n, long limit) {
        for (long d = Math.min(n, limit); d > 1; d--) {
            if (n % d == 0) return d;
        }
        return 1;
    }

    /** C's indices for output [m, n] under broadcasting (C of rank 0, 1 or 2). */
    private static Expr[] broadcastIndices(long[] shape, Expr[] at) {
        Expr[] indices = new Expr[shape.length];
        for (int d = 0; d < shape.length; d++) {
            Expr index = at[at.length - shape.length + d];
            indices[d] = shape[d] == 1 ? idx(0) : index;
        }
        return indices;
    }

    /** {@code count} matrices [rows, columns], each transposed. */
    private static float[] transposed(float[] values, long count, long rows, long columns) {
        float[] t = new float[values.length];
        for (long m = 0; m < count; m++) {
            long base = m * rows * columns;
            for (long r = 0; r < rows; r++)
                for (long c = 0; c < columns; c++) t[(int) (base + c * rows + r)] = values[(int) (base + r * columns + c)];
        }
        return t;
    }
}
