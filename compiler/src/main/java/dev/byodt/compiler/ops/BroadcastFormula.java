package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;

import java.util.List;
import java.util.stream.IntStream;

/**
 * An operator computing one element of its output from the elements of its inputs at the broadcast position
 * (multidirectional broadcasting), whose output element type follows from the inputs' by a rule: bool for a
 * comparison, the inputs' common type for a selection.
 */
final class BroadcastFormula implements Operator {
    /** The output's element type, or a node error when the inputs' types do not fit the operator. */
    @FunctionalInterface
    interface TypeRule {
        ElementType outputType(Node node, List<Value> inputs);
    }

    /** The output element from the input elements, in input order. */
    @FunctionalInterface
    interface Formula {
        Expr apply(Node node, List<Expr> args);
    }

    private final TypeRule typeRule;
    private final Formula formula;

    BroadcastFormula(TypeRule typeRule, Formula formula) {
        this.typeRule = typeRule;
        this.formula = formula;
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        List<Value> inputs = node.inputs();
        if (inputs.contains(null)) throw node.error("needs all of its " + inputs.size() + " inputs");
        ElementType type = typeRule.outputType(node, inputs);
        return List.of(new TensorType(type, Broadcasting.shape(node, inputs.stream().map(v -> v.type().shape()).toList())));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        List<Buffer> inputs = IntStream.range(0, kb.inputCount()).mapToObj(kb::input).toList();
        Broadcasting.map(kb, kb.output(0), inputs, args -> formula.apply(node, args));
    }
}
