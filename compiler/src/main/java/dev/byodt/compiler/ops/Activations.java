package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Expr;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.erf;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.le;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;
import static dev.byodt.compiler.kernel.Exprs.tanh;
import static dev.byodt.compiler.ops.ElementwiseUnary.onNumbers;
import static dev.byodt.compiler.ops.ElementwiseUnary.onReals;

/**
 * Activation functions, each the formula of its ONNX specification with the specification's attribute
 * defaults. Piecewise definitions become select(), so the loops stay branch-free and vectorize.
 */
final class Activations {
    private Activations() {}

    /** Selu's defaults: the constants of the self-normalizing networks paper, as ONNX rounds them to float. */
    private static final float SELU_ALPHA = 1.67326319217681884765625f;
    private static final float SELU_GAMMA = 1.05070102214813232421875f;

    static void registerAll() {
        Operators.register("Relu", onNumbers((node, x) -> max(x, constant(x.type(), 0))));
        Operators.register("LeakyRelu", onReals((node, x) ->
            select(lt(x, real(0)), mul(x, attr(node, "alpha", 0.01f)), x)));
        Operators.register("Elu", onReals((node, x) ->
            select(lt(x, real(0)), mul(attr(node, "alpha", 1f), sub(exp(x), real(1))), x)));
        Operators.register("Selu", onReals((node, x) -> {
            Expr alpha = attr(node, "alpha", SELU_ALPHA);
            Expr negative = sub(mul(alpha, exp(x)), alpha);
            return mul(attr(node, "gamma", SELU_GAMMA), select(le(x, real(0)), negative, x));
        }));
        Operators.register("HardSigmoid", onReals((node, x) ->
            clamp01(add(mul(attr(node, "alpha", 0.2f), x), attr(node, "beta", 0.5f)))));
        Operators.register("HardSwish", onReals((node, x) -> mul(x, clamp01(add(mul(real(1.0 / 6), x), real(0.5))))));
        Operators.register("Gelu", onReals(Activations::gelu));
    }

    /** Gelu (opset 20): x * Phi(x) with the exact normal CDF, or its tanh approximation. */
    private static Expr gelu(Node node, Expr x) {
        String approximate = node.stringAttr("approximate", "none");
        Expr halfX = mul(real(0.5), x);
        return switch (approximate) {
            case "none" -> mul(halfX, add(real(1), erf(mul(x, real(1 / Math.sqrt(2))))));
            case "tanh" -> {
                Expr cubic = add(x, mul(real(0.044715), mul(x, mul(x, x))));
                yield mul(halfX, add(real(1), tanh(mul(real(Math.sqrt(2 / Math.PI)), cubic))));
            }
            default -> throw node.badAttribute("approximate", approximate, "none or tanh");
        };
    }

    private static Expr clamp01(Expr x) { return max(real(0), min(real(1), x)); }

    private static Expr attr(Node node, String name, float fallback) { return real(node.floatAttr(name, fallback)); }
}
