package dev.byodt.compiler.ops;

import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * LSTM, GRU and RNN as the ONNX specification writes them, in double precision and in the plainest loops: a
 * reference for the recurrent operators that shares nothing with their kernels. Tensors are flat arrays in
 * the layout the node's {@code layout} attribute gives; the optional ones are null when absent.
 */
final class RecurrentReference {
    enum Kind {
        LSTM(4), GRU(3), RNN(1);

        final int gates;

        Kind(int gates) { this.gates = gates; }
    }

    /** The operands and attributes of one node. {@code activations} holds each direction's functions. */
    record Layer(Kind kind, int steps, int batch, int inputSize, int hidden, int directions, boolean reverse,
                 boolean batchFirst, float[] x, float[] w, float[] r, float[] b, int[] lengths, float[] initialH,
                 float[] initialC, float[] peepholes, Double clip, boolean inputForget, boolean linearBeforeReset,
                 List<List<DoubleUnaryOperator>> activations) {}

    /** Y, Y_h and (LSTM) Y_c. */
    record Outputs(double[] y, double[] yH, double[] yC) {}

    private RecurrentReference() {}

    static double sigmoid(double x) { return 1 / (1 + Math.exp(-x)); }

    static Outputs run(Layer l) {
        int h = l.hidden();
        double[] y = new double[l.steps() * l.directions() * l.batch() * h];
        double[] yH = new double[l.directions() * l.batch() * h];
        double[] yC = new double[yH.length];
        for (int d = 0; d < l.directions(); d++) {
            boolean reverse = l.reverse() || d == 1;
            for (int n = 0; n < l.batch(); n++) {
                double[] hState = new double[h];
                double[] cState = new double[h];
                for (int j = 0; j < h; j++) {
                    if (l.initialH() != null) hState[j] = l.initialH()[state(l, d, n, j)];
                    if (l.initialC() != null) cState[j] = l.initialC()[state(l, d, n, j)];
                }
                int length = l.lengths() == null ? l.steps() : l.lengths()[n];
                for (int s = 0; s < length; s++) {
                    int t = reverse ? length - 1 - s : s;
                    double[] x = new double[l.inputSize()];
                    for (int k = 0; k < x.length; k++) {
                        x[k] = l.x()[l.batchFirst() ? (n * l.steps() + t) * l.inputSize() + k : (t * l.batch() + n) * l.inputSize() + k];
                    }
                    switch (l.kind()) {
                        case LSTM -> lstmStep(l, d, x, hState, cState);
                        case GRU -> gruStep(l, d, x, hState);
                        case RNN -> rnnStep(l, d, x, hState);
                    }
                    for (int j = 0; j < h; j++) {
                        int at = l.batchFirst() ? ((n * l.steps() + t) * l.directions() + d) * h + j
                            : ((t * l.directions() + d) * l.batch() + n) * h + j;
                        y[at] = hState[j];
                    }
                }
                for (int j = 0; j < h; j++) {
                    yH[state(l, d, n, j)] = hState[j];
                    yC[state(l, d, n, j)] = cState[j];
                }
            }
        }
        return new Outputs(y, yH, l.kind() == Kind.LSTM ? yC : null);
    }

    private static int state(Layer l, int d, int n, int j) {
        return l.batchFirst() ? (n * l.directions() + d) * l.hidden() + j : (d * l.batch() + n) * l.hidden() + j;
    }

    /** Row {@code row} of direction d's W times x (or of R times h when {@code recurrent}). */
    private static double product(Layer l, boolean recurrent, int d, int row, double[] v) {
        float[] m = recurrent ? l.r() : l.w();
        int rows = l.kind().gates * l.hidden();
        double sum = 0;
        for (int k = 0; k < v.length; k++) sum += m[(d * rows + row) * v.length + k] * v[k];
        return sum;
    }

    private static double bias(Layer l, boolean recurrent, int d, int row) {
        int rows = l.kind().gates * l.hidden();
        return l.b() == null ? 0 : l.b()[d * 2 * rows + (recurrent ? rows : 0) + row];
    }

    /** x W + h R + Wb + Rb of gate row {@code row}. */
    private static double gate(Layer l, int d, int row, double[] x, double[] hState) {
        return product(l, false, d, row, x) + product(l, true, d, row, hState) + bias(l, false, d, row) + bias(l, true, d, row);
    }

    private static double clip(Layer l, double v) {
        return l.clip() == null ? v : Math.max(-l.clip(), Math.min(l.clip(), v));
    }

    private static double activation(Layer l, int d, int which, double v) {
        return l.activations().get(d).get(which).applyAsDouble(clip(l, v));
    }

    private static void lstmStep(Layer l, int d, double[] x, double[] hState, double[] cState) {
        int h = l.hidden();
        double[] hNew = new double[h];
        for (int j = 0; j < h; j++) {
            double pi = 0, po = 0, pf = 0;
            if (l.peepholes() != null) {
                pi = l.peepholes()[d * 3 * h + j];
                po = l.peepholes()[d * 3 * h + h + j];
                pf = l.peepholes()[d * 3 * h + 2 * h + j];
            }
            double i = activation(l, d, 0, gate(l, d, j, x, hState) + pi * cState[j]);
            double f = l.inputForget() ? 1 - i : activation(l, d, 0, gate(l, d, 2 * h + j, x, hState) + pf * cState[j]);
            double c = f * cState[j] + i * activation(l, d, 1, gate(l, d, 3 * h + j, x, hState));
            double o = activation(l, d, 0, gate(l, d, h + j, x, hState) + po * c);
            cState[j] = c;
            hNew[j] = o * l.activations().get(d).get(2).applyAsDouble(c);
        }
        System.arraycopy(hNew, 0, hState, 0, h);
    }

    private static void gruStep(Layer l, int d, double[] x, double[] hState) {
        int h = l.hidden();
        double[] z = new double[h], r = new double[h], resetH = new double[h], hNew = new double[h];
        for (int j = 0; j < h; j++) {
            z[j] = activation(l, d, 0, gate(l, d, j, x, hState));
            r[j] = activation(l, d, 0, gate(l, d, h + j, x, hState));
            resetH[j] = r[j] * hState[j];
        }
        for (int j = 0; j < h; j++) {
            int row = 2 * h + j;
            double input = product(l, false, d, row, x) + bias(l, false, d, row);
            double recurrent = l.linearBeforeReset()
                ? r[j] * (product(l, true, d, row, hState) + bias(l, true, d, row))
                : product(l, true, d, row, resetH) + bias(l, true, d, row);
            double n = activation(l, d, 1, input + recurrent);
            hNew[j] = (1 - z[j]) * n + z[j] * hState[j];
        }
        System.arraycopy(hNew, 0, hState, 0, h);
    }

    private static void rnnStep(Layer l, int d, double[] x, double[] hState) {
        double[] hNew = new double[l.hidden()];
        for (int j = 0; j < hNew.length; j++) hNew[j] = activation(l, d, 0, gate(l, d, j, x, hState));
        System.arraycopy(hNew, 0, hState, 0, hNew.length);
    }
}
