package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * What LSTM, GRU and RNN share: their operands (X, W, R, B, sequence_lens, initial_h and, for LSTM,
 * initial_c), the {@code direction}, {@code layout}, {@code clip} and activation attributes, the outputs Y,
 * Y_h (and Y_c), and the loop that runs a {@link Cell} over the time steps of each batch entry, in each
 * direction. A batch entry's steps past its sequence length are skipped: their Y is zero and Y_h is the
 * state after its last valid step (in reverse, the steps run from its last valid one down to 0).
 *
 * <p>The gates' sums are matrix-vector products: the step's input x and the previous hidden state h,
 * copied side by side into one row [x, h], times W and R, packed side by side and transposed once per run
 * so that the loop over gate columns reads them contiguously. Each sum is a {@link RowOfSums}: its terms
 * accumulate as {@code --accumulate} says and it rounds once; the biases are added to the rounded sum, as
 * Gemm adds C.
 */
final class RecurrentLayer {
    /** One time step of one batch entry: reads the row [x, h], updates the states (h, and c for LSTM). */
    interface Cell {
        void step(RecurrentLayer layer, Direction direction);
    }

    /** A direction of the layer: its index in W, R, B and the outputs, and its activation functions. */
    record Direction(int index, boolean reverse, List<UnaryOperator<Expr>> activations) {
        Expr at() { return idx(index); }

        UnaryOperator<Expr> activation(int i) { return activations.get(i); }
    }

    private static final int SEQUENCE_LENS = 4, INITIAL_H = 5, INITIAL_C = 6;

    private final Node node;
    private final int gates;
    private final int states;
    final long steps, batch, inputSize, hidden;
    final int directions;
    private final boolean batchFirst;
    private final Float clip;
    private final List<Direction> directionList;
    private KernelBuilder kb;
    private Buffer packedWeights, bias, row, gateValues, hiddenState, cellState;
    private final Map<Long, RowOfSums> rowsOfSums = new HashMap<>();

    /**
     * @param gates the number of gates, the blocks of rows of W and R (LSTM 4, GRU 3, RNN 1)
     * @param states 2 for LSTM (h and c), else 1
     * @param activations the default activation functions of one direction
     */
    RecurrentLayer(Node node, int gates, int states, List<String> activations) {
        this.node = node;
        this.gates = gates;
        this.states = states;
        TensorType x = Operands.floatInput(node, 0, "X");
        TensorType w = Operands.floatInput(node, 1, "W");
        TensorType r = Operands.floatInput(node, 2, "R");
        long layout = node.intAttr("layout", 0);
        if (layout != 0 && layout != 1) throw node.badAttribute("layout", layout, "0 or 1");
        batchFirst = layout == 1;
        String direction = node.stringAttr("direction", "forward");
        directions = switch (direction) {
            case "forward", "reverse" -> 1;
            case "bidirectional" -> 2;
            default -> throw node.badAttribute("direction", direction, "forward, reverse or bidirectional");
        };
        if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3) {
            throw node.error("X " + Shapes.format(x.shape()) + ", W " + Shapes.format(w.shape()) + " and R "
                + Shapes.format(r.shape()) + " must have rank 3");
        }
        steps = batchFirst ? x.dim(1) : x.dim(0);
        batch = batchFirst ? x.dim(0) : x.dim(1);
        inputSize = x.dim(2);
        hidden = r.dim(2);
        long hiddenSize = node.intAttr("hidden_size", hidden);
        if (hiddenSize != hidden) throw node.error("hidden_size=" + hiddenSize + " but R has shape " + Shapes.format(r.shape()));
        requireShape(w.shape(), "W", directions, gates * hidden, inputSize);
        requireShape(r.shape(), "R", directions, gates * hidden, hidden);
        TensorType b = Operands.optionalFloatInput(node, 3, "B");
        if (b != null) requireShape(b.shape(), "B", directions, 2 * gates * hidden);
        Value lengths = node.input(SEQUENCE_LENS);
        if (lengths != null) {
            if (lengths.type().elementType() != ElementType.INT32) {
                throw node.error("input sequence_lens '" + lengths.name() + "' is " + lengths.type().elementType()
                    + "; it must be int32");
            }
            requireShape(lengths.type().shape(), "sequence_lens", batch);
            if (lengths.isConstant()) {
                for (long n = 0; n < batch; n++) {
                    long length = lengths.constant().getLong(n);
                    if (length < 0 || length > steps) {
                        throw node.error("sequence_lens[" + n + "] is " + length + "; it must be 0 to " + steps + ", the steps of X");
                    }
                }
            }
        }
        for (int s = 0; s < states; s++) {
            TensorType initial = Operands.optionalFloatInput(node, INITIAL_H + s, s == 0 ? "initial_h" : "initial_c");
            if (initial != null) requireShape(initial.shape(), s == 0 ? "initial_h" : "initial_c", stateShape());
        }
        clip = node.hasAttribute("clip") ? node.floatAttr("clip", 0) : null;
        if (clip != null && !(clip > 0)) throw node.badAttribute("clip", clip, "a positive threshold");
        List<List<UnaryOperator<Expr>>> functions = RecurrentActivations.of(node, activations, directions);
        directionList = new ArrayList<>();
        for (int d = 0; d < directions; d++) {
            directionList.add(new Direction(d, direction.equals("reverse") || d == 1, functions.get(d)));
        }
        int outputs = node.outputs().size();
        if (outputs > 1 + states) throw node.error(outputs + " outputs, but " + node.opType() + " has " + (1 + states));
    }

    void requireShape(long[] shape, String role, long... expected) {
        if (!Arrays.equals(shape, expected)) {
            throw node.error("input " + role + " has shape " + Shapes.format(shape) + "; it must be " + Shapes.format(expected));
        }
    }

    /** Y, then Y_h (and Y_c), as many as the node lists. */
    List<TensorType> outputTypes() {
        long[] y = batchFirst ? new long[] {batch, steps, directions, hidden} : new long[] {steps, directions, batch, hidden};
        List<TensorType> types = new ArrayList<>(List.of(Operands.floatTensor(y)));
        for (int i = 1; i < node.outputs().size(); i++) types.add(Operands.floatTensor(stateShape()));
        return types;
    }

    private long[] stateShape() {
        return batchFirst ? new long[] {batch, directions, hidden} : new long[] {directions, batch, hidden};
    }

    private Expr stateIndex(Expr d, Expr b, Expr j) {
        return batchFirst ? flatIndex(stateShape(), b, d, j) : flatIndex(stateShape(), d, b, j);
    }

    private Expr inputIndex(Expr t, Expr b, Expr k) {
        long[] shape = batchFirst ? new long[] {batch, steps, inputSize} : new long[] {steps, batch, inputSize};
        return batchFirst ? flatIndex(shape, b, t, k) : flatIndex(shape, t, b, k);
    }

    private Expr outputIndex(Expr t, Expr d, Expr b, Expr j) {
        return batchFirst
            ? flatIndex(new long[] {batch, steps, directions, hidden}, b, t, d, j)
            : flatIndex(new long[] {steps, directions, batch, hidden}, t, d, b, j);
    }

    /** Emits the layer: for each direction and batch entry, the cell over the time steps. */
    void lower(KernelBuilder kb, Cell cell) {
        this.kb = kb;
        long terms = inputSize + hidden;
        packedWeights = kb.scratch("weights", ScalarType.REAL, new long[] {directions, terms, gates * hidden});
        packWeights(kb.input(1), 0, inputSize);
        packWeights(kb.input(2), inputSize, hidden);
        bias = kb.input(3);
        row = kb.scratch("row", ScalarType.REAL, new long[] {terms});
        gateValues = kb.scratch("gates", ScalarType.REAL, new long[] {gates * hidden});
        hiddenState = kb.scratch("h", ScalarType.REAL, new long[] {hidden});
        cellState = states == 2 ? kb.scratch("c", ScalarType.REAL, new long[] {hidden}) : null;
        Buffer x = kb.input(0);
        Buffer lengths = kb.input(SEQUENCE_LENS);
        Buffer y = Operands.hasOutput(node, 0) ? kb.output(0) : null;
        for (Direction direction : directionList) {
            Expr d = direction.at();
            kb.loop(batch, b -> {
                for (int s = 0; s < states; s++) {
                    Buffer initial = kb.input(INITIAL_H + s);
                    Buffer state = s == 0 ? hiddenState : cellState;
                    kb.loop(hidden, j -> kb.store(state, j, initial == null ? real(0) : kb.load(initial, stateIndex(d, b, j))));
                }
                // A length beyond X, known only at run time, is cut to X's steps rather than read past its end.
                Expr length = lengths == null ? idx(steps) : min(cast(ScalarType.I64, kb.load(lengths, b)), idx(steps));
                kb.loop(steps, s -> {
                    Runnable step = () -> {
                        Expr t = direction.reverse() ? sub(sub(length, 1), s) : s;
                        kb.loop(inputSize, k -> kb.store(row, k, kb.load(x, inputIndex(t, b, k))));
                        kb.loop(hidden, k -> kb.store(row, add(k, inputSize), kb.load(hiddenState, k)));
                        cell.step(this, direction);
                        if (y != null) kb.loop(hidden, j -> kb.store(y, outputIndex(t, d, b, j), kb.load(hiddenState, j)));
                    };
                    if (lengths == null) {
                        step.run();
                    } else {
                        kb.ifElse(lt(s, length), step, () -> {
                            if (y != null) kb.loop(hidden, j -> kb.store(y, outputIndex(s, d, b, j), real(0)));
                        });
                    }
                });
                for (int s = 0; s < states; s++) {
                    if (!Operands.hasOutput(node, 1 + s)) continue;
                    Buffer out = kb.output(1 + s);
                    Buffer state = s == 0 ? hiddenState : cellState;
                    kb.loop(hidden, j -> kb.store(out, stateIndex(d, b, j), kb.load(state, j)));
                }
            });
        }
    }

    /** W or R (rows: gate columns, columns: {@code terms}) into rows from {@code firstTerm} of the packed weights. */
    private void packWeights(Buffer weights, long firstTerm, long terms) {
        long columns = gates * hidden;
        long[] packed = {directions, inputSize + hidden, columns};
        kb.loops(new long[] {directions, terms, columns}, i -> kb.store(packedWeights,
            flatIndex(packed, i[0], add(i[1], firstTerm), i[2]),
            kb.load(weights, flatIndex(new long[] {directions, columns, terms}, i[0], i[2], i[1]))));
    }

    /**
     * The sums over the row [x, h] (or only its x or only its h part) times {@code columns} gate columns of
     * the packed weights from {@code firstColumn}, each handed rounded to {@code result(j, sum)}, j counted
     * from firstColumn.
     */
    void products(Direction direction, long firstColumn, long columns, boolean fromInput, boolean fromHidden,
                  BiConsumer<Expr, Expr> result) {
        long firstTerm = fromInput ? 0 : inputSize;
        long terms = (fromInput ? inputSize : 0) + (fromHidden ? hidden : 0);
        long[] packed = {directions, inputSize + hidden, gates * hidden};
        rowsOfSums.computeIfAbsent(columns, c -> new RowOfSums(kb, c)).emit(terms,
            k -> kb.load(row, add(k, firstTerm)),
            (k, j) -> kb.load(packedWeights, flatIndex(packed, direction.at(), add(k, firstTerm), add(j, firstColumn))),
            result);
    }

    /** {@code sum} plus the biases of gate column {@code column} in W (Wb) and R (Rb) that {@code input} and {@code recurrent} ask for. */
    Expr plusBiases(Expr sum, Direction direction, Expr column, boolean input, boolean recurrent) {
        if (bias == null) return sum;
        long[] shape = {directions, 2, gates * hidden};
        Expr result = sum;
        if (input) result = add(result, kb.load(bias, flatIndex(shape, direction.at(), idx(0), column)));
        if (recurrent) result = add(result, kb.load(bias, flatIndex(shape, direction.at(), idx(1), column)));
        return result;
    }

    /** A gate's input bounded to [-clip, clip] when the node has a clip threshold. */
    Expr clipped(Expr x) {
        return clip == null ? x : max(real(-clip), min(real(clip), x));
    }

    /** The row [x, h] the sums read; a cell may overwrite its h part (GRU's reset gate does). */
    Buffer row() { return row; }

    /** A row of gates * hidden values for the cell's intermediate results. */
    Buffer gateValues() { return gateValues; }

    Buffer hiddenState() { return hiddenState; }

    Buffer cellState() { return cellState; }

    /** The position of element j of gate g in a row of gate values. */
    Expr gateColumn(int g, Expr j) { return add(j, g * hidden); }
}
