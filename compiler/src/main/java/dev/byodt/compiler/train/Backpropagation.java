package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.DotProductKernels;
import dev.byodt.compiler.ops.NodeArithmetic;
import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import static dev.byodt.compiler.kernel.Exprs.add;

/**
 * Reverse-mode differentiation of a graph into kernels: from the gradients of some values (the loss's
 * gradient of the model's output), the nodes between them and the values to differentiate with respect to
 * are visited last to first, and each node's gradient rule writes the gradients of its inputs. A value read
 * by several nodes sums their contributions. Every operator on the way must have a rule: those that do not
 * are listed together, before any kernel is built.
 */
public final class Backpropagation {
    /** The kernel of node N's gradient with respect to its input X is named "N gradient of X". */
    static final String GRADIENT_KERNEL = " gradient of ";

    /** The backward kernels in execution order, and the gradient of each value differentiated with respect to. */
    public record Result(List<Kernel> kernels, Map<Value, Buffer> gradients) {}

    private final Function<Value, Buffer> bufferOf;
    private final Optional<Function<Node, NodeArithmetic>> arithmeticOf;
    private final Map<Value, List<Buffer>> contributions = new HashMap<>();
    private final Map<Value, Buffer> sums = new HashMap<>();
    private final List<Kernel> kernels = new ArrayList<>();

    private Backpropagation(Function<Value, Buffer> bufferOf, Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        this.bufferOf = bufferOf;
        this.arithmeticOf = arithmeticOf;
    }

    /**
     * @param nodes    the graph's nodes in execution order
     * @param seeds    the loss's gradient with respect to some node outputs
     * @param wrt      the values whose gradients are wanted (weights, or every input in a gradient check)
     * @param bufferOf the buffer of each value, the same the forward kernels use
     * @param arithmeticOf  the vector lanes of each node's datatype (and its arithmetic), for gradient kernels in their tuned schedules;
     *                 empty for the reference nests
     */
    public static Result of(List<Node> nodes, Map<Value, Buffer> seeds, List<Value> wrt, Function<Value, Buffer> bufferOf,
                            Optional<Function<Node, NodeArithmetic>> arithmeticOf) {
        Backpropagation b = new Backpropagation(bufferOf, arithmeticOf);
        seeds.forEach((v, g) -> b.contributions.computeIfAbsent(v, k -> new ArrayList<>()).add(g));
        Set<Value> needed = needsGradient(nodes, wrt);
        List<Node> path = onPath(nodes, seeds.keySet(), needed);
        checkRules(path);
        for (Node node : path.reversed()) b.backward(node, needed);
        Map<Value, Buffer> gradients = new LinkedHashMap<>();
        for (Value v : wrt) {
            Buffer g = b.gradientOf(v);
            if (g == null) throw new ByodtException("tensor '" + v.name() + "' does not affect the loss: it has no gradient");
            gradients.put(v, g);
        }
        return new Result(b.kernels, gradients);
    }

    /** The values that depend on one of {@code wrt} through a differentiable input. */
    private static Set<Value> needsGradient(List<Node> nodes, List<Value> wrt) {
        Set<Value> needed = new HashSet<>(wrt);
        for (Node node : nodes) {
            GradientRule rule = Gradients.lookup(node.opType());
            for (int i = 0; i < node.inputCount(); i++) {
                Value v = node.input(i);
                if (v != null && needed.contains(v) && (rule == null || rule.differentiable(node, i))) {
                    needed.addAll(node.outputs());
                }
            }
        }
        return needed;
    }

    /** The nodes, in execution order, that lead from a value needing a gradient to a seeded value. */
    private static List<Node> onPath(List<Node> nodes, Set<Value> seeded, Set<Value> needed) {
        Set<Value> reaches = new HashSet<>(seeded);
        List<Node> path = new ArrayList<>();
        for (Node node : nodes.reversed()) {
            boolean feedsLoss = node.outputs().stream().anyMatch(reaches::contains);
            boolean needs = node.inputs().stream().anyMatch(v -> v != null && needed.contains(v));
            if (feedsLoss && needs) {
                path.addFirst(node);
                node.inputs().stream().filter(v -> v != null).forEach(reaches::add);
            }
        }
        return path;
    }

    private static void checkRules(List<Node> path) {
        List<String> missing = new ArrayList<>();
        for (Node node : path) {
            GradientRule rule = Gradients.lookup(node.opType());
            if (rule == null) missing.add(node.describe());
            else rule.unsupported(node).ifPresent(why -> missing.add(node.describe() + " (" + why + ")"));
        }
        if (!missing.isEmpty()) {
            throw new ByodtException("no gradient for " + missing.size() + (missing.size() == 1 ? " node: " : " nodes: ")
                + String.join(", ", missing));
        }
    }

    private void backward(Node node, Set<Value> needed) {
        if (node.outputs().size() != 1) throw node.error("only nodes with one output have a gradient");
        Buffer dy = gradientOf(node.output(0));
        if (dy == null) return;
        GradientRule rule = Gradients.lookup(node.opType());
        List<Buffer> inputs = new ArrayList<>();
        for (Value v : node.inputs()) inputs.add(v == null ? null : bufferOf.apply(v));
        Buffer y = bufferOf.apply(node.output(0));
        for (int i = 0; i < node.inputCount(); i++) {
            Value v = node.input(i);
            if (v == null || !needed.contains(v) || !rule.differentiable(node, i)) continue;
            Buffer in = bufferOf.apply(v);
            Buffer grad = new Buffer("d" + v.name() + " from " + node.name(), ScalarType.REAL, in.shape());
            List<Buffer> read = new ArrayList<>(inputs);
            read.add(y);
            read.add(dy);
            KernelBuilder kb = new KernelBuilder(node.name() + GRADIENT_KERNEL + v.name(), node.opType() + DotProductKernels.GRADIENT,
                read, List.of(grad));
            rule.lower(node, i, new GradientKernel(kb, inputs, y, dy, grad, arithmeticOf.map(a -> a.apply(node))));
            kernels.add(kb.build());
            contributions.computeIfAbsent(v, k -> new ArrayList<>()).add(grad);
        }
    }

    /** The gradient of a value, summing its contributions once they are all in; null when it has none. */
    private Buffer gradientOf(Value v) {
        Buffer known = sums.get(v);
        if (known != null) return known;
        List<Buffer> parts = contributions.get(v);
        if (parts == null) return null;
        Buffer total = parts.getFirst();
        if (parts.size() > 1) {
            total = new Buffer("d" + v.name(), ScalarType.REAL, total.shape());
            KernelBuilder kb = new KernelBuilder("sum of gradients of " + v.name(), "Sum", parts, List.of(total));
            Buffer out = total;
            kb.loop(out.size(), i -> {
                Expr sum = kb.load(parts.getFirst(), i);
                for (Buffer part : parts.subList(1, parts.size())) sum = add(sum, kb.load(part, i));
                kb.store(out, i, sum);
            });
            kernels.add(kb.build());
        }
        sums.put(v, total);
        return total;
    }
}
