package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

/** An operator that maps each element on its own, y = f(x): same shape and element type as its input. */
final class ElementwiseUnary implements Operator {
    /** f(x), free to read the node's attributes (LeakyRelu's alpha, Gelu's approximation...). */
    @FunctionalInterface
    interface Formula {
        Expr apply(Node node, Expr x);
    }

    /**
     * f(x) that keeps intermediate values in locals of the element loop (declared with {@code kb}), so that a
     * value the formula uses several times, such as Softplus's exp, is computed once per element.
     */
    @FunctionalInterface
    interface FormulaWithLocals {
        Expr apply(Node node, KernelBuilder kb, Expr x);
    }

    private final boolean acceptsIntegers;
    private final FormulaWithLocals formula;

    private ElementwiseUnary(boolean acceptsIntegers, FormulaWithLocals formula) {
        this.acceptsIntegers = acceptsIntegers;
        this.formula = formula;
    }

    /** An operator ONNX defines on floating-point tensors only. */
    static ElementwiseUnary onReals(Formula formula) { return new ElementwiseUnary(false, (node, kb, x) -> formula.apply(node, x)); }

    /** An operator ONNX defines on floating-point tensors only, whose formula declares locals. */
    static ElementwiseUnary onRealsWithLocals(FormulaWithLocals formula) { return new ElementwiseUnary(false, formula); }

    /** An operator ONNX also defines on signed integer tensors (its formula must then work on I32/I64). */
    static ElementwiseUnary onNumbers(Formula formula) { return new ElementwiseUnary(true, (node, kb, x) -> formula.apply(node, x)); }

    @Override
    public List<TensorType> inferTypes(Node node) {
        if (!acceptsIntegers) TypeRules.requireFloat(node, node.input(0));
        return List.of(node.input(0).type());
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Broadcasting.map(kb, kb.output(0), List.of(kb.input(0)), x -> formula(node, kb, x.getFirst()));
    }

    /** f(x) for the element x, in the kernel {@code kb} builds. */
    Expr formula(Node node, KernelBuilder kb, Expr x) { return formula.apply(node, kb, x); }
}
