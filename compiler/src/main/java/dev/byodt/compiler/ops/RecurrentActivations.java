package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Expr;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.log;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.neg;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sigmoid;
import static dev.byodt.compiler.kernel.Exprs.sub;
import static dev.byodt.compiler.kernel.Exprs.tanh;

/**
 * The activation functions of LSTM, GRU and RNN, named by the {@code activations} attribute, with their
 * parameters from {@code activation_alpha} and {@code activation_beta}. As in ONNX Runtime, names are
 * matched without regard to case, and the parameter lists are consumed in order by the functions that take
 * a parameter (LeakyRelu takes an alpha, ScaledTanh an alpha and a beta, Tanh none); a function left
 * without one takes its default.
 */
final class RecurrentActivations {
    private RecurrentActivations() {}

    private static final String SUPPORTED =
        "Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus";

    /**
     * The functions of each direction: {@code defaults} (one direction's list) unless the node names them.
     * A bidirectional node names each function for both directions, forward first; one direction's list is
     * taken for both, as ONNX Runtime does.
     */
    static List<List<UnaryOperator<Expr>>> of(Node node, List<String> defaults, int directions) {
        List<String> names = names(node, defaults, directions);
        float[] alphas = node.floatsAttr("activation_alpha", new float[0]);
        float[] betas = node.floatsAttr("activation_beta", new float[0]);
        int nextAlpha = 0, nextBeta = 0;
        List<List<UnaryOperator<Expr>>> perDirection = new ArrayList<>();
        for (int d = 0; d < directions; d++) {
            List<UnaryOperator<Expr>> functions = new ArrayList<>();
            for (int f = 0; f < defaults.size(); f++) {
                String name = names.get(d * defaults.size() + f);
                Parameters p = Parameters.of(node, name);
                float alpha = p.alpha() != null && nextAlpha < alphas.length ? alphas[nextAlpha++] : nullToZero(p.alpha());
                float beta = p.beta() != null && nextBeta < betas.length ? betas[nextBeta++] : nullToZero(p.beta());
                functions.add(function(name, real(alpha), real(beta)));
            }
            perDirection.add(functions);
        }
        return perDirection;
    }

    private static List<String> names(Node node, List<String> defaults, int directions) {
        if (!(node.attributes().get("activations") instanceof Attribute.StringsAttr given)) {
            if (node.hasAttribute("activations")) throw node.error("attribute 'activations' should be a list of strings");
            List<String> all = new ArrayList<>();
            for (int d = 0; d < directions; d++) all.addAll(defaults);
            return all;
        }
        List<String> names = given.values();
        if (names.size() == defaults.size() && directions == 2) {
            List<String> both = new ArrayList<>(names);
            both.addAll(names);
            return both;
        }
        if (names.size() != defaults.size() * directions) {
            throw node.error("attribute activations names " + names.size() + " functions; it needs " + defaults.size()
                + " per direction (" + defaults.size() * directions + ")");
        }
        return names;
    }

    private static float nullToZero(Float value) { return value == null ? 0 : value; }

    /** The defaults of a function's parameters; null where it takes none. */
    private record Parameters(Float alpha, Float beta) {
        static Parameters of(Node node, String name) {
            return switch (name.toLowerCase(Locale.ROOT)) {
                case "relu", "tanh", "sigmoid", "softsign", "softplus" -> new Parameters(null, null);
                case "affine" -> new Parameters(1f, 0f);
                case "leakyrelu" -> new Parameters(0.01f, null);
                case "thresholdedrelu", "elu" -> new Parameters(1f, null);
                case "scaledtanh" -> new Parameters(1f, 1f);
                case "hardsigmoid" -> new Parameters(0.2f, 0.5f);
                default -> throw node.error("activation '" + name + "' is not supported (supported: " + SUPPORTED + ")");
            };
        }
    }

    private static UnaryOperator<Expr> function(String name, Expr alpha, Expr beta) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "relu" -> x -> max(x, real(0));
            case "tanh" -> x -> tanh(x);
            case "sigmoid" -> x -> sigmoid(x);
            case "affine" -> x -> add(mul(alpha, x), beta);
            case "leakyrelu" -> x -> select(lt(x, real(0)), mul(alpha, x), x);
            case "thresholdedrelu" -> x -> Activations.thresholdedRelu(x, alpha);
            case "scaledtanh" -> x -> mul(alpha, tanh(mul(beta, x)));
            case "hardsigmoid" -> x -> max(real(0), min(real(1), add(mul(alpha, x), beta)));
            case "elu" -> x -> select(lt(x, real(0)), mul(alpha, sub(exp(x), real(1))), x);
            case "softsign" -> Activations::softsign;
            // log(1 + e^x) as max(x, 0) + log(1 + e^-|x|), which cannot overflow.
            case "softplus" -> x -> add(max(x, real(0)), log(add(real(1), exp(neg(abs(x))))));
            default -> throw new IllegalStateException(name);
        };
    }
}
