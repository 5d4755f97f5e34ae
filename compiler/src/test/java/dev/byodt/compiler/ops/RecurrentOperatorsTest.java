package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.compiler.ops.RecurrentReference.Kind;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LSTM, GRU and RNN in every direction and layout, with sequence lengths, initial states, peepholes, clip,
 * input_forget, linear_before_reset and named activations, against {@link RecurrentReference} (the ONNX
 * formulas in double precision): in the kernel interpreter (float32), and compiled in 16-bit datatypes.
 */
class RecurrentOperatorsTest {
    private static final double ATOL = 2e-6, RTOL = 1e-5;

    private final Random random = new Random(20261126);

    @ParameterizedTest
    @CsvSource({"forward,0", "reverse,0", "bidirectional,0", "forward,1", "reverse,1", "bidirectional,1"})
    void lstmWithLengthsStatesPeepholesAndClip(String direction, int layout) {
        Layer l = new Layer(Kind.LSTM, direction, layout);
        l.lengths = new int[] {4, 2, 3};
        l.initialStates = true;
        l.peepholes = true;
        l.clip = 0.8f;
        l.assertMatches(l.node().run());
    }

    @ParameterizedTest
    @CsvSource({"forward,0,0", "reverse,1,1", "bidirectional,0,1", "bidirectional,1,0"})
    void gruWithLengthsStatesAndClip(String direction, int layout, int linearBeforeReset) {
        Layer l = new Layer(Kind.GRU, direction, layout);
        l.lengths = new int[] {1, 4, 3};
        l.initialStates = true;
        l.clip = 0.9f;
        l.linearBeforeReset = linearBeforeReset == 1;
        l.assertMatches(l.node().run());
    }

    @ParameterizedTest
    @CsvSource({"forward,0", "reverse,1", "bidirectional,0"})
    void rnnWithLengthsAndStates(String direction, int layout) {
        Layer l = new Layer(Kind.RNN, direction, layout);
        l.lengths = new int[] {3, 4, 1};
        l.initialStates = true;
        l.assertMatches(l.node().run());
    }

    @Test
    void withoutOptionalInputsTheStatesStartAtZeroAndEveryStepCounts() {
        for (Kind kind : Kind.values()) {
            Layer l = new Layer(kind, "bidirectional", 0);
            l.bias = false;
            l.assertMatches(l.node().run());
        }
    }

    /**
     * Parameters go, in order, to the functions that take them: LeakyRelu alpha 0.1; ScaledTanh alpha 0.7,
     * beta 1.5; HardSigmoid alpha 0.3, beta 0.6; Elu alpha 0.25. The rest take none.
     */
    @Test
    void lstmNamedActivationsTakeTheirParametersInOrder() {
        Layer l = new Layer(Kind.LSTM, "bidirectional", 0);
        l.names = new String[] {"LeakyRelu", "ScaledTanh", "Softplus", "HardSigmoid", "elu", "Softsign"};
        l.alphas = new float[] {0.1f, 0.7f, 0.3f, 0.25f};
        l.betas = new float[] {1.5f, 0.6f};
        l.activations = List.of(
            List.of(x -> x < 0 ? 0.1f * x : x, x -> 0.7f * Math.tanh(1.5f * x), x -> Math.log1p(Math.exp(x))),
            List.of(x -> Math.max(0, Math.min(1, 0.3f * x + 0.6f)), x -> x < 0 ? 0.25f * Math.expm1(x) : x,
                x -> x / (1 + Math.abs(x))));
        l.inputForget = true;
        l.assertMatches(l.node().run());
    }

    /** One direction's list serves both; Affine's and ThresholdedRelu's defaults when no parameter is left. */
    @Test
    void gruAndRnnActivationsOfOneDirectionServeBoth() {
        Layer gru = new Layer(Kind.GRU, "bidirectional", 1);
        gru.names = new String[] {"Sigmoid", "Relu"};
        DoubleUnaryOperator relu = x -> Math.max(0, x);
        gru.activations = List.of(List.of(RecurrentReference::sigmoid, relu), List.of(RecurrentReference::sigmoid, relu));
        gru.assertMatches(gru.node().run());
        Layer rnn = new Layer(Kind.RNN, "forward", 0);
        rnn.names = new String[] {"Affine"};
        rnn.alphas = new float[] {0.5f};
        rnn.activations = List.of(List.of(x -> 0.5f * x));
        rnn.assertMatches(rnn.node().run());
        Layer thresholded = new Layer(Kind.RNN, "forward", 0);
        thresholded.names = new String[] {"ThresholdedRelu"};
        thresholded.activations = List.of(List.of(x -> x > 1 ? x : 0));
        thresholded.assertMatches(thresholded.node().run());
    }

    /** Sequence lengths known only at run time take the same path through the kernel as constant ones. */
    @Test
    void sequenceLengthsAtRunTime() {
        Layer l = new Layer(Kind.LSTM, "bidirectional", 1).withLengthsAtRunTime(2, 4, 0);
        l.assertMatches(l.node().run());
    }

    /** A run-time length beyond X's steps counts as all of them; a constant one is an error. */
    @Test
    void sequenceLengthsBeyondTheSteps() {
        Layer l = new Layer(Kind.RNN, "reverse", 0).withLengthsAtRunTime(4, 9, 2);
        List<Tensor> clamped = l.node().run();
        l.lengths[1] = 4;
        l.assertMatches(clamped);
        l.lengths[1] = 9;
        l.lengthsAtRunTime = false;
        ByodtException e = assertThrows(ByodtException.class, () -> l.node().run());
        assertEquals("RNN node 'rnn': sequence_lens[1] is 9; it must be 0 to 4, the steps of X", e.getMessage());
    }

    @Test
    void anUnknownActivationIsOneLineNamingTheNodeAndTheFunction() {
        Layer l = new Layer(Kind.RNN, "forward", 0);
        l.names = new String[] {"Gelu"};
        ByodtException e = assertThrows(ByodtException.class, () -> l.node().run());
        assertTrue(e.getMessage().startsWith("RNN node 'rnn': activation 'Gelu' is not supported (supported: Relu, Tanh,"),
            e.getMessage());
    }

    @Test
    void sequenceLengthsMustBeInt32() {
        Layer l = new Layer(Kind.GRU, "forward", 0);
        NodeCase node = l.node().input(NodeCase.longs(4, 4, 4));
        ByodtException e = assertThrows(ByodtException.class, node::run);
        assertEquals("GRU node 'gru': input sequence_lens 'in4' is int64; it must be int32", e.getMessage());
    }

    /**
     * Compiled in 16-bit datatypes, every sum and function in the datatype: close to the reference as the
     * format's precision allows over a few steps, and not float32's result.
     */
    @ParameterizedTest
    @ValueSource(strings = {"custom[posit]16:0.004", "bfloat16:0.03", "fxp16_13:0.003"})
    void compiledInSixteenBitDatatypes(String datatypeAndTolerance) {
        String datatype = datatypeAndTolerance.split(":")[0];
        double tolerance = Double.parseDouble(datatypeAndTolerance.split(":")[1]);
        for (Kind kind : Kind.values()) {
            Layer l = new Layer(kind, "bidirectional", 0);
            l.lengths = new int[] {4, 2, 3};
            l.initialStates = true;
            List<Tensor> float32 = l.node().run(GraphExecutor.compiled(CompileOptions.host()));
            l.assertMatches(float32);
            List<Tensor> inDatatype = l.node().run(GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype)));
            RecurrentReference.Outputs expected = RecurrentReference.run(l.layer());
            boolean differs = false;
            for (int o = 0; o < inDatatype.size(); o++) {
                double[] e = expectedOutput(expected, o);
                for (int i = 0; i < e.length; i++) {
                    double got = inDatatype.get(o).getFloat(i);
                    assertTrue(Math.abs(got - e[i]) <= tolerance, kind + " in " + datatype + ", output " + o + "[" + i + "]: "
                        + got + ", expected " + e[i]);
                    differs |= got != float32.get(o).getFloat(i);
                }
            }
            assertTrue(differs, kind + " in " + datatype + " gives float32's result");
        }
    }

    private static double[] expectedOutput(RecurrentReference.Outputs expected, int o) {
        return switch (o) {
            case 0 -> expected.y();
            case 1 -> expected.yH();
            default -> expected.yC();
        };
    }

    /** A layer of 4 steps, a batch of 3, 3 inputs and 2 hidden units, random operands, options set by the test. */
    private final class Layer {
        final Kind kind;
        final String direction;
        final int layout;
        final int steps = 4, batch = 3, inputSize = 3, hidden = 2, directions;
        int[] lengths;
        boolean lengthsAtRunTime, initialStates, bias = true, peepholes, inputForget, linearBeforeReset;
        Float clip;
        String[] names;
        float[] alphas, betas;
        List<List<DoubleUnaryOperator>> activations;
        private RecurrentReference.Layer layer;

        Layer(Kind kind, String direction, int layout) {
            this.kind = kind;
            this.direction = direction;
            this.layout = layout;
            directions = direction.equals("bidirectional") ? 2 : 1;
        }

        Layer withLengthsAtRunTime(int... runTimeLengths) {
            lengths = runTimeLengths;
            lengthsAtRunTime = true;
            return this;
        }

        /** The operands, drawn once. */
        RecurrentReference.Layer layer() {
            if (layer == null) {
                int rows = kind.gates * hidden;
                int states = directions * batch * hidden;
                List<List<DoubleUnaryOperator>> functions = activations != null ? activations : defaults();
                layer = new RecurrentReference.Layer(kind, steps, batch, inputSize, hidden, directions,
                    direction.equals("reverse"), layout == 1, values(steps * batch * inputSize), values(directions * rows * inputSize),
                    values(directions * rows * hidden), bias ? values(directions * 2 * rows) : null, lengths,
                    initialStates ? values(states) : null, initialStates && kind == Kind.LSTM ? values(states) : null,
                    peepholes ? values(directions * 3 * hidden) : null, clip == null ? null : (double) clip, inputForget,
                    linearBeforeReset, functions);
            }
            return layer;
        }

        private List<List<DoubleUnaryOperator>> defaults() {
            List<DoubleUnaryOperator> one = switch (kind) {
                case LSTM -> List.of(RecurrentReference::sigmoid, Math::tanh, Math::tanh);
                case GRU -> List.of(RecurrentReference::sigmoid, Math::tanh);
                case RNN -> List.of(Math::tanh);
            };
            return Collections.nCopies(directions, one);
        }

        private float[] values(int count) {
            float[] v = new float[count];
            for (int i = 0; i < count; i++) v[i] = random.nextFloat() * 2 - 1;
            return v;
        }

        NodeCase node() {
            RecurrentReference.Layer l = layer();
            NodeCase node = new NodeCase(kind.name(), 22).attr("hidden_size", (long) hidden).attr("direction", direction)
                .attr("layout", (long) layout).outputs(kind == Kind.LSTM ? 3 : 2);
            if (clip != null) node.attr("clip", clip);
            if (names != null) node.attr("activations", names);
            if (alphas != null) node.attr("activation_alpha", alphas);
            if (betas != null) node.attr("activation_beta", betas);
            if (inputForget) node.attr("input_forget", 1L);
            if (linearBeforeReset) node.attr("linear_before_reset", 1L);
            long[] stateShape = layout == 1 ? new long[] {batch, directions, hidden} : new long[] {directions, batch, hidden};
            node.input(NodeCase.floats(layout == 1 ? new long[] {batch, steps, inputSize} : new long[] {steps, batch, inputSize}, l.x()))
                .constant(NodeCase.floats(new long[] {directions, kind.gates * hidden, inputSize}, l.w()))
                .constant(NodeCase.floats(new long[] {directions, kind.gates * hidden, hidden}, l.r()));
            List<Runnable> optional = new ArrayList<>();
            optional.add(l.b() == null ? node::omitted : () -> node.constant(NodeCase.floats(new long[] {directions, 2 * kind.gates * hidden}, l.b())));
            if (lengths == null) {
                optional.add(node::omitted);
            } else {
                Tensor t = Tensor.zeros(ElementType.INT32, new long[] {batch});
                for (int n = 0; n < batch; n++) t.setLong(n, lengths[n]);
                optional.add(lengthsAtRunTime ? () -> node.input(t) : () -> node.constant(t));
            }
            optional.add(l.initialH() == null ? node::omitted : () -> node.input(NodeCase.floats(stateShape, l.initialH())));
            if (kind == Kind.LSTM) {
                optional.add(l.initialC() == null ? node::omitted : () -> node.input(NodeCase.floats(stateShape, l.initialC())));
                optional.add(l.peepholes() == null ? node::omitted : () -> node.constant(NodeCase.floats(new long[] {directions, 3 * hidden}, l.peepholes())));
            }
            // Trailing omitted inputs are left out, as ONNX writes them.
            int last = optional.size();
            while (last > 0 && !isGiven(last - 1)) last--;
            for (int i = 0; i < last; i++) optional.get(i).run();
            return node;
        }

        private boolean isGiven(int optionalInput) {
            RecurrentReference.Layer l = layer();
            return switch (optionalInput) {
                case 0 -> l.b() != null;
                case 1 -> lengths != null;
                case 2 -> l.initialH() != null;
                case 3 -> l.initialC() != null;
                default -> l.peepholes() != null;
            };
        }

        void assertMatches(List<Tensor> outputs) {
            RecurrentReference.Outputs expected = RecurrentReference.run(layer());
            assertEquals(kind == Kind.LSTM ? 3 : 2, outputs.size());
            for (int o = 0; o < outputs.size(); o++) {
                double[] e = expectedOutput(expected, o);
                assertEquals(e.length, outputs.get(o).elementCount(), kind + " output " + o + " size");
                for (int i = 0; i < e.length; i++) {
                    double got = outputs.get(o).getFloat(i);
                    assertTrue(Math.abs(got - e[i]) <= ATOL + RTOL * Math.abs(e[i]),
                        kind + " " + direction + " layout " + layout + ", output " + o + "[" + i + "]: " + got + ", expected " + e[i]);
                }
            }
        }
    }
}
