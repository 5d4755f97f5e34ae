package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;

import static dev.byodt.compiler.kernel.Exprs.abs;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.erf;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.gt;
import static dev.byodt.compiler.kernel.Exprs.le;
import static dev.byodt.compiler.kernel.Exprs.log;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.min;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.neg;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;
import static dev.byodt.compiler.kernel.Exprs.tanh;
import static dev.byodt.compiler.ops.ElementwiseUnary.onNumbers;
import static dev.byodt.compiler.ops.ElementwiseUnary.onReals;
import static dev.byodt.compiler.ops.ElementwiseUnary.onRealsWithLocals;

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
        Operators.register("Softplus", onRealsWithLocals((node, kb, x) -> softplus(kb, x)));
        Operators.register("Softsign", onReals((node, x) -> softsign(x)));
        Operators.register("Mish", onRealsWithLocals((node, kb, x) -> mul(x, tanh(softplus(kb, x)))));
        Operators.register("Celu", onReals((node, x) -> {
            Expr alpha = attr(node, "alpha", 1f);
            return add(max(real(0), x), min(real(0), mul(alpha, sub(exp(div(x, alpha)), real(1)))));
        }));
        Operators.register("ThresholdedRelu", onReals((node, x) -> thresholdedRelu(x, attr(node, "alpha", 1f))));
    }

    /** Softsign, x / (1 + |x|); also an activation of the recurrent layers. */
    static Expr softsign(Expr x) { return div(x, add(real(1), abs(x))); }

    /** x where it exceeds alpha, else 0; also an activation of the recurrent layers. */
    static Expr thresholdedRelu(Expr x, Expr alpha) { return select(gt(x, alpha), x, real(0)); }

    /**
     * Softplus, log(1 + exp(x)), as max(x, 0) + log(1 + exp(-|x|)): exp's argument is never positive, so it
     * cannot overflow, not even in a datatype whose range ends at 4 (fxp16_13).
     */
    private static Expr softplus(KernelBuilder kb, Expr x) {
        Local e = kb.local("e", exp(neg(abs(x))));
        return add(max(x, real(0)), log1p(kb, kb.get(e)));
    }

    /**
     * log(1 + e) from the scalar operations there are (there is no log1p): where 1 + e rounds to u, log(u)
     * times e / (u - 1) corrects for the rounding (Goldberg's formula; u - 1 is exact), so that a small e keeps
     * its relative accuracy, and where u is 1 the result is e itself.
     */
    private static Expr log1p(KernelBuilder kb, Expr e) {
        Local u = kb.local("u", add(real(1), e));
        Expr one = real(1);
        return select(eq(kb.get(u), one), e, div(mul(log(kb.get(u)), e), sub(kb.get(u), one)));
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
