package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BinaryOperator;

import static dev.byodt.compiler.kernel.Exprs.divideByCount;

/**
 * Max, Min, Sum and Mean: element-wise over any number of broadcast inputs, folded left to right. Min and
 * Max also take integer tensors (opset 12); Sum and Mean are defined on floating-point tensors only.
 */
final class VariadicOps implements Operator {
    private final boolean acceptsIntegers;
    private final BinaryOperator<Expr> combine;
    /** Applied to the combined value; Mean divides by the number of inputs. */
    private final Finish finish;

    @FunctionalInterface
    private interface Finish {
        Expr apply(Expr combined, int inputCount);
    }

    private VariadicOps(boolean acceptsIntegers, BinaryOperator<Expr> combine, Finish finish) {
        this.acceptsIntegers = acceptsIntegers;
        this.combine = combine;
        this.finish = finish;
    }

    static void registerAll() {
        Operators.register("Max", new VariadicOps(true, Exprs::max, (v, n) -> v));
        Operators.register("Min", new VariadicOps(true, Exprs::min, (v, n) -> v));
        Operators.register("Sum", new VariadicOps(false, Exprs::add, (v, n) -> v));
        Operators.register("Mean", new VariadicOps(false, Exprs::add, (v, n) -> divideByCount(v, n)));
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        List<Value> inputs = presentInputs(node);
        if (inputs.isEmpty()) throw node.error("needs at least one input");
        ElementType type = TypeRules.common(node, inputs);
        if (!acceptsIntegers) TypeRules.requireFloat(node, inputs.getFirst());
        List<long[]> shapes = inputs.stream().map(v -> v.type().shape()).toList();
        return List.of(new TensorType(type, Broadcasting.shape(node, shapes)));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        List<Buffer> inputs = new ArrayList<>();
        for (int i = 0; i < kb.inputCount(); i++) {
            if (kb.input(i) != null) inputs.add(kb.input(i));
        }
        int count = inputs.size();
        Broadcasting.map(kb, kb.output(0), inputs,
            values -> finish.apply(values.stream().reduce(combine).orElseThrow(), count));
    }

    private static List<Value> presentInputs(Node node) {
        return node.inputs().stream().filter(Objects::nonNull).toList();
    }
}
