package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.PositScales;
import dev.byodt.compiler.dtype.posit.PositReference;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static dev.byodt.compiler.dtype.OperandMagnitudes.largest;
import static dev.byodt.compiler.dtype.OperandMagnitudes.least;
import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The training step's gradients of Conv and Gemm in posit16 read their operands decoded once per tensor and, with
 * --accumulate dtype, round their sums within the posit's scales where the kernel's check of its operands' magnitudes
 * allows ({@link dev.byodt.compiler.lower.DecodedOperands}, RegimeSums, {@link PositScales#largestProduct}): their
 * bits, in the reference nests and in the tuned schedules, against a reference that rounds every product and every
 * sum to the posit with {@link PositReference} (exact rational arithmetic) in the reference nest's order, on operands
 * on both sides of each gradient kernel's check (the side asserted from the operands; Conv's weight gradient takes
 * the least product item by item, so tiny values in different batch items pass and in one item fail); and with
 * --accumulate float32, against float32 sums of the decoded products rounded once.
 */
@Execution(ExecutionMode.CONCURRENT)
class PositGradientSumsTest {
    private static final PositReference POSIT = new PositReference(16, 2);
    private static final PositScales SCALES = new PositScales(16, 2);
    /**
     * Conv: X [N, C, H, H], W [M, C, K, K], stride 1, rows padded by 1 above and below and columns not at all (the
     * input's gradient on scattered rows, the weights' with taps in the padding); output [N, M, H, OW].
     */
    private static final int N = 2, C = 3, H = 7, M = 4, K = 3, PAD = 1, OW = H - K + 1;
    /** Gemm, B transposed: A [ROWS, DEPTH], B [COLUMNS, DEPTH]; output [ROWS, COLUMNS]. */
    private static final int ROWS = 6, DEPTH = 20, COLUMNS = 7;

    /** Operands and which side of the check the gradients of the input (X, A) and of the weights (W, B) fall on. */
    enum OperandCase {
        /** Magnitudes 2^-4 to 2, random signs, a few zeros: every check passes. */
        WITHIN(true, true),
        /** As WITHIN with one element of dY at 2^-46: its products fall below 2^L, each check on dY fails. */
        TINY_GRADIENT(false, false),
        /**
         * As TINY_GRADIENT with the tiny element dY's last, the checks' scans taking 16 elements a step and the rest
         * (the last of 280, of 140 a batch item, of 42 in Gemm) on their own, and the rest of its map (Conv) or column
         * (Gemm) zero: the weights' gradients of its taps are then the posits of its products alone, which rounding
         * within the scales would not give.
         */
        TINY_LAST_GRADIENT(false, false),
        /** As WITHIN with one weight at 2^-44: only the input's gradient multiplies the weights. */
        TINY_WEIGHT(false, true),
        /** As WITHIN with a NaN (NaR) in the input: only the weights' gradient multiplies the input. */
        NAR_INPUT(true, false),
        /** Magnitudes about 2^18 in dY and the weights: the input's products pass the largest the check allows. */
        LARGE_PRODUCTS(false, true),
        /**
         * As WITHIN with dY at -1.5 2^-30 in the first batch item and X at 2^-20 in the second: no product pairs the
         * two, so Conv's weights, whose check takes the least product item by item, pass; Gemm's, over whole
         * tensors, fail.
         */
        TINY_IN_DIFFERENT_ITEMS(true, false, true),
        /**
         * As TINY_IN_DIFFERENT_ITEMS with both in the second item, where Conv's weight gradient multiplies them, and
         * in Conv the rest of the tiny value's map of dY zero: the weights' gradient of that tap is then the posit
         * of the product alone, -2^-50, which rounding within the scales would not give.
         */
        TINY_IN_ONE_ITEM(true, false, false);

        final boolean inputWithin, weightsWithin, convWeightsWithin;

        OperandCase(boolean inputWithin, boolean weightsWithin) { this(inputWithin, weightsWithin, weightsWithin); }

        OperandCase(boolean inputWithin, boolean weightsWithin, boolean convWeightsWithin) {
            this.inputWithin = inputWithin;
            this.weightsWithin = weightsWithin;
            this.convWeightsWithin = convWeightsWithin;
        }

        /** Values for the tensor of {@code role} ("x", "w" or "dy") of {@code count} elements. */
        float[] values(String role, int count) {
            Random random = new Random(role.hashCode() * 31L + ordinal());
            float[] v = new float[count];
            int scale = this == LARGE_PRODUCTS && !role.equals("x") ? 18 : -4;
            for (int i = 0; i < count; i++) {
                double magnitude = Math.scalb(1 + random.nextDouble(), scale + random.nextInt(5));
                v[i] = random.nextInt(9) == 0 ? 0 : (float) POSIT.toDouble(POSIT.fromDouble((random.nextBoolean() ? 1 : -1) * magnitude));
            }
            if (this == TINY_GRADIENT && role.equals("dy")) v[count / 2] = Math.scalb(1.5f, -46);
            if (this == TINY_LAST_GRADIENT && role.equals("dy")) v[count - 1] = Math.scalb(1.5f, -46);
            if (this == TINY_WEIGHT && role.equals("w")) v[count / 3] = Math.scalb(-1.25f, -44);
            if (this == NAR_INPUT && role.equals("x")) v[count / 4] = Float.NaN;
            boolean tinyItems = this == TINY_IN_DIFFERENT_ITEMS || this == TINY_IN_ONE_ITEM;
            // X's [1, 2, 1, 5] and, in one item, dY's [1, 3, 0, 3], which Conv's weight gradient multiplies for the tap (2, 2).
            if (tinyItems && role.equals("x")) v[count * 7 / 8] = Math.scalb(1f, -20);
            if (tinyItems && role.equals("dy")) v[this == TINY_IN_ONE_ITEM ? count - 32 : count / 8] = Math.scalb(-1.5f, -30);
            return v;
        }
    }

    @ParameterizedTest
    @EnumSource(OperandCase.class)
    void convGradientsRoundEverySumAsThePositOnEitherSideOfTheCheck(OperandCase c) {
        float[] x = c.values("x", N * C * H * H), w = c.values("w", M * C * K * K), bias = c.values("b", M);
        float[] dy = c.values("dy", N * M * H * OW);
        if (c == OperandCase.TINY_IN_ONE_ITEM || c == OperandCase.TINY_LAST_GRADIENT) {
            int kept = c == OperandCase.TINY_IN_ONE_ITEM ? 3 : H * OW - 1;
            for (int n = 0; n < N; n++) for (int p = 0; p < H * OW; p++) if (n != 1 || p != kept) dy[(n * M + 3) * H * OW + p] = 0;
        }
        assertEquals(c.inputWithin, within(dy, w, M * Math.min(K * K, H * OW)), c + ": the input's side of the check");
        assertEquals(c.convWeightsWithin, withinByItem(dy, x, N * H * OW), c + ": the weights' side of the check");
        TrainableGraph graph = single("Conv", attributes("pads", new long[] {PAD, 0, PAD, 0}),
            List.of(new long[] {N, C, H, H}, new long[] {M, C, K, K}, new long[] {M}), List.of(x, w, bias));
        List<Tensor> inputs = List.of(tensor(new long[] {N, C, H, H}, x), tensor(new long[] {M, C, K, K}, w),
            tensor(new long[] {M}, bias), tensor(new long[] {N, M, H, OW}, dy));
        for (AccumulationMode mode : List.of(AccumulationMode.DTYPE, AccumulationMode.FLOAT32)) {
            Sums sums = new Sums(mode);
            List<float[]> expected = List.of(convInputGradient(sums, dy, w), convWeightsGradient(sums, dy, x), convBiasGradient(sums, dy));
            checkBothPrograms(graph, inputs, mode, expected, c + ", Conv");
        }
    }

    @ParameterizedTest
    @EnumSource(OperandCase.class)
    void gemmGradientsRoundEverySumAsThePositOnEitherSideOfTheCheck(OperandCase c) {
        float[] a = c.values("x", ROWS * DEPTH), b = c.values("w", COLUMNS * DEPTH), dy = c.values("dy", ROWS * COLUMNS);
        if (c == OperandCase.TINY_LAST_GRADIENT) for (int r = 0; r < ROWS - 1; r++) dy[r * COLUMNS + COLUMNS - 1] = 0;
        assertEquals(c.inputWithin, within(dy, b, COLUMNS), c + ": the input's side of the check");
        assertEquals(c.weightsWithin, within(dy, a, ROWS), c + ": the weights' side of the check");
        TrainableGraph graph = single("Gemm", attributes("transB", 1L), List.of(new long[] {ROWS, DEPTH}, new long[] {COLUMNS, DEPTH}),
            List.of(a, b));
        List<Tensor> inputs = List.of(tensor(new long[] {ROWS, DEPTH}, a), tensor(new long[] {COLUMNS, DEPTH}, b),
            tensor(new long[] {ROWS, COLUMNS}, dy));
        for (AccumulationMode mode : List.of(AccumulationMode.DTYPE, AccumulationMode.FLOAT32)) {
            Sums sums = new Sums(mode);
            checkBothPrograms(graph, inputs, mode, List.of(gemmInputGradient(sums, dy, b), gemmWeightsGradient(sums, dy, a)), c + ", Gemm");
        }
    }

    /** Whether a kernel summing {@code terms} products of {@code first} and {@code second} passes the check. */
    private static boolean within(float[] first, float[] second, long terms) {
        return least(first) * least(second) >= SCALES.leastProduct()
            && largest(first) * largest(second) <= SCALES.largestProduct(terms).orElseThrow();
    }

    /**
     * Whether Conv's weight gradient, summing {@code terms} products of dY and X that pair each batch item's dY with the
     * same item's X, passes the check: the least product item by item, the largest over the whole tensors.
     */
    private static boolean withinByItem(float[] dy, float[] x, long terms) {
        double leastProduct = Double.POSITIVE_INFINITY;
        for (int n = 0; n < N; n++) {
            leastProduct = Math.min(leastProduct, least(Arrays.copyOfRange(dy, n * dy.length / N, (n + 1) * dy.length / N))
                * least(Arrays.copyOfRange(x, n * x.length / N, (n + 1) * x.length / N)));
        }
        return leastProduct >= SCALES.leastProduct() && largest(dy) * largest(x) <= SCALES.largestProduct(terms).orElseThrow();
    }

    /** The graph of one node whose inputs are all differentiated. */
    private static TrainableGraph single(String opType, Map<String, Attribute> attributes, List<long[]> shapes,
                                         List<float[]> values) {
        List<Value> inputs = new ArrayList<>();
        Map<Value, Tensor> weights = new LinkedHashMap<>();
        for (int i = 0; i < shapes.size(); i++) {
            Value v = new Value("in" + i);
            v.setType(new TensorType(ElementType.FLOAT32, shapes.get(i)));
            inputs.add(v);
            weights.put(v, tensor(shapes.get(i), values.get(i)));
        }
        Value y = new Value("y");
        Node node = new Node(opType.toLowerCase(), opType, "", 13, inputs, List.of(y), attributes);
        y.setType(Operators.lookup(opType).inferTypes(node).getFirst());
        return new TrainableGraph(new Graph(opType, inputs, List.of(y), List.of(node)), weights);
    }

    /** The reference nests' program and the tuned schedules' for vectors of 16 posits, each against {@code expected}. */
    private static void checkBothPrograms(TrainableGraph graph, List<Tensor> inputs, AccumulationMode mode, List<float[]> expected,
                                          String what) {
        Program reference = GradientProgram.of(graph);
        Program tuned = GradientProgram.of(graph, Optional.of(node -> new NodeArithmetic(16, false)));
        for (Program program : List.of(reference, tuned)) {
            CompileOptions options = CompileOptions.host()
                .withDatatypes(DatatypeChoice.float32().withDatatype("custom[posit]16").withAccumulation(mode));
            try (CompiledModule module = Compiler.compile(program, options); HostModel model = Compiler.jit(module)) {
                List<Tensor> outputs = model.run(inputs);
                for (int i = 0; i < expected.size(); i++) {
                    assertArrayEquals(expected.get(i), outputs.get(i).toFloatArray(),
                        what + ", " + mode + ", " + (program == tuned ? "tuned" : "reference nests") + ", gradient of input " + i);
                }
            }
        }
    }

    /**
     * A sum as the accumulation mode computes it: with dtype every product and every add rounded to posit16, with
     * float32 the float32 sum of the float32 products (exact for two posit16 values) rounded once at the end.
     */
    private static final class Sums {
        private final AccumulationMode mode;
        private long posit;
        private float single;

        Sums(AccumulationMode mode) { this.mode = mode; }

        void start() {
            posit = POSIT.fromDouble(0);
            single = 0;
        }

        void addProduct(float a, float b) {
            if (mode == AccumulationMode.DTYPE) posit = POSIT.add(posit, POSIT.mul(POSIT.fromDouble(a), POSIT.fromDouble(b)));
            else single += (float) (POSIT.toDouble(POSIT.fromDouble(a)) * POSIT.toDouble(POSIT.fromDouble(b)));
        }

        void add(float a) {
            if (mode == AccumulationMode.DTYPE) posit = POSIT.add(posit, POSIT.fromDouble(a));
            else single += (float) POSIT.toDouble(POSIT.fromDouble(a));
        }

        float result() { return (float) POSIT.toDouble(mode == AccumulationMode.DTYPE ? posit : POSIT.fromDouble(single)); }
    }

    /** dX[n, c, i, j]: over the maps, then the output positions in order, dY at the position times the weight of the tap at (i, j). */
    private static float[] convInputGradient(Sums sums, float[] dy, float[] w) {
        float[] grad = new float[N * C * H * H];
        for (int n = 0; n < N; n++) for (int c = 0; c < C; c++) for (int i = 0; i < H; i++) for (int j = 0; j < H; j++) {
            sums.start();
            for (int m = 0; m < M; m++) for (int oy = 0; oy < H; oy++) for (int ox = 0; ox < OW; ox++) {
                int ky = i - oy + PAD, kx = j - ox;
                if (ky >= 0 && ky < K && kx >= 0 && kx < K) {
                    sums.addProduct(dy[((n * M + m) * H + oy) * OW + ox], w[((m * C + c) * K + ky) * K + kx]);
                }
            }
            grad[((n * C + c) * H + i) * H + j] = sums.result();
        }
        return grad;
    }

    /** dW[m, c, ky, kx]: over the batch, then the output positions in order, dY times the input at the tap, where inside. */
    private static float[] convWeightsGradient(Sums sums, float[] dy, float[] x) {
        float[] grad = new float[M * C * K * K];
        for (int m = 0; m < M; m++) for (int c = 0; c < C; c++) for (int ky = 0; ky < K; ky++) for (int kx = 0; kx < K; kx++) {
            sums.start();
            for (int n = 0; n < N; n++) for (int oy = 0; oy < H; oy++) for (int ox = 0; ox < OW; ox++) {
                int i = oy + ky - PAD, j = ox + kx;
                if (i >= 0 && i < H) sums.addProduct(dy[((n * M + m) * H + oy) * OW + ox], x[((n * C + c) * H + i) * H + j]);
            }
            grad[((m * C + c) * K + ky) * K + kx] = sums.result();
        }
        return grad;
    }

    /** dB[m]: dY over the batch, then the positions. */
    private static float[] convBiasGradient(Sums sums, float[] dy) {
        float[] grad = new float[M];
        for (int m = 0; m < M; m++) {
            sums.start();
            for (int n = 0; n < N; n++) for (int p = 0; p < H * OW; p++) sums.add(dy[(n * M + m) * H * OW + p]);
            grad[m] = sums.result();
        }
        return grad;
    }

    /** dA[r, k]: over the columns j, dY[r, j] B[j, k]. */
    private static float[] gemmInputGradient(Sums sums, float[] dy, float[] b) {
        float[] grad = new float[ROWS * DEPTH];
        for (int r = 0; r < ROWS; r++) for (int k = 0; k < DEPTH; k++) {
            sums.start();
            for (int j = 0; j < COLUMNS; j++) sums.addProduct(dy[r * COLUMNS + j], b[j * DEPTH + k]);
            grad[r * DEPTH + k] = sums.result();
        }
        return grad;
    }

    /** dB[j, k]: over the rows r, A[r, k] dY[r, j]. */
    private static float[] gemmWeightsGradient(Sums sums, float[] dy, float[] a) {
        float[] grad = new float[COLUMNS * DEPTH];
        for (int j = 0; j < COLUMNS; j++) for (int k = 0; k < DEPTH; k++) {
            sums.start();
            for (int r = 0; r < ROWS; r++) sums.addProduct(a[r * DEPTH + k], dy[r * COLUMNS + j]);
            grad[j * DEPTH + k] = sums.result();
        }
        return grad;
    }

    private static Tensor tensor(long[] shape, float[] values) { return Tensor.ofFloats(shape, values); }
}
