package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;

import java.util.Arrays;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The kernels whose every operand element takes part in many products, so that decoding it once serves many
 * ({@link DecodedOperands}), and how many products one of their sums takes at most, which the checks of
 * {@link RegimeSums} (and, for the forward kernels, {@link DoubleSums}) bound their sums with: MatMul, Gemm, Conv and
 * ConvTranspose, and the training step's gradients of MatMul, Gemm and Conv.
 *
 * <p>A gradient kernel's op type is its node's followed by {@link #GRADIENT} (dev.byodt.compiler.train.Backpropagation
 * names them so); it reads the node's inputs in ONNX order (null where omitted), then the node's output, then the
 * output's gradient dY, and writes one input's gradient, of that input's shape.
 */
public final class DotProductKernels {
    /** What a gradient kernel's op type adds to its node's. */
    public static final String GRADIENT = "Grad";

    private static final Set<String> FORWARD = Set.of("MatMul", "Gemm", "Conv", "ConvTranspose");
    private static final Set<String> DIFFERENTIATED = Set.of("MatMul", "Gemm", "Conv");

    private DotProductKernels() {}

    /** Whether {@code k} is one of these kernels. */
    static boolean contains(Kernel k) { return FORWARD.contains(k.opType()) || isGradient(k); }

    /** Whether {@code k} is one of the gradient kernels among these. */
    static boolean isGradient(Kernel k) {
        String op = k.opType();
        return op.endsWith(GRADIENT) && DIFFERENTIATED.contains(op.substring(0, op.length() - GRADIENT.length()));
    }

    /**
     * The most products one output sums: K of MatMul and Gemm, the weights a map has for Conv, at most that for
     * ConvTranspose; for a gradient, the most its element takes (see {@link #gradientTerms}); empty for other kernels.
     */
    static OptionalLong termsPerSum(Kernel k) {
        return switch (k.opType()) {
            case "MatMul" -> OptionalLong.of(k.inputs().get(0).dim(k.inputs().get(0).rank() - 1));
            case "Gemm" -> OptionalLong.of(k.inputs().get(1).size() / k.outputs().get(0).dim(1));
            case "Conv" -> OptionalLong.of(k.inputs().get(1).size() / k.inputs().get(1).dim(0));
            case "ConvTranspose" -> OptionalLong.of(k.inputs().get(1).size() / k.inputs().get(1).dim(1));
            default -> contains(k) ? gradientTerms(k) : OptionalLong.empty();
        };
    }

    /**
     * For a gradient of Conv's weights, the batch N: whatever its schedule, each of its products multiplies an element
     * of dY's item b by one of X's item b (dW[m, c, taps] sums dY[b, m, o] X[b, c, o's tap position]), so that a check
     * of the products' least magnitude may take, item by item, the least of dY's item times the least of X's
     * ({@link OperandExtremes}) rather than the least of each whole tensor, which pairs a tiny dY of one item with a
     * tiny X of another that no product multiplies. Empty for other kernels, and where X has W's shape too (the
     * kernel would not say which gradient it writes).
     */
    static OptionalLong pairedItems(Kernel k) {
        if (!k.opType().equals("Conv" + GRADIENT)) return OptionalLong.empty();
        Buffer x = k.inputs().get(0), w = k.inputs().get(1), dy = k.inputs().getLast();
        long[] grad = k.outputs().getFirst().shape();
        if (!Arrays.equals(grad, w.shape()) || Arrays.equals(grad, x.shape()) || x.dim(0) != dy.dim(0)) return OptionalLong.empty();
        return OptionalLong.of(x.dim(0));
    }

    /**
     * The products an element of a gradient kernel's output sums, at most: of Conv's input X, dY's maps times the
     * fewer of a map's taps and its output positions (an input element is at most one tap of each window, and each
     * tap of at most one window, of a map; where there are groups, a group's maps would do); of its weights W, the
     * batch times the output positions; of Gemm's A' (A or its transpose), dY's columns, and of B', its rows; of MatMul's A, B's columns, and
     * of B, A's rows. Where the gradient has the shape of two inputs, the larger count. A bias's gradient sums no
     * products (empty).
     */
    private static OptionalLong gradientTerms(Kernel k) {
        Buffer dy = k.inputs().getLast();
        Buffer a = k.inputs().get(0), b = k.inputs().get(1);
        long[] grad = k.outputs().getFirst().shape();
        long ofA, ofB;
        switch (k.opType().substring(0, k.opType().length() - GRADIENT.length())) {
            case "Conv" -> {
                long taps = b.size() / (b.dim(0) * b.dim(1)), positions = dy.size() / (dy.dim(0) * dy.dim(1));
                ofA = b.dim(0) * Math.min(taps, positions);
                ofB = dy.dim(0) * positions;
            }
            case "Gemm" -> {
                ofA = dy.dim(1);
                ofB = dy.dim(0);
            }
            default -> {
                ofA = b.dim(1);
                ofB = a.size() / b.dim(0);
            }
        }
        long terms = Math.max(Arrays.equals(grad, a.shape()) ? ofA : 0, Arrays.equals(grad, b.shape()) ? ofB : 0);
        return terms == 0 ? OptionalLong.empty() : OptionalLong.of(terms);
    }
}
