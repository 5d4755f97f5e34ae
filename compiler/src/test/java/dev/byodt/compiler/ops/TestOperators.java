package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.idx;

/**
 * Tiny operators for testing the ONNX front end without the real operator library. Their op types start
 * with "Test" so they never collide with ONNX operators registered by the library itself.
 */
public final class TestOperators {
    private TestOperators() {}

    /** Registers the test operators once per JVM; tests of several classes may call it. */
    public static synchronized void install() {
        if (Operators.lookup("TestAdd") != null) return;
        Operators.register("TestAdd", new ElementwiseAdd());
        Operators.register("TestShape", new ShapeOf());
        Operators.register("TestReshape", new ReshapeToConstant());
        Operators.register("TestRejects", new Rejects());
        Operators.register("TestPair", new Pair());
    }

    /** Y = A + B, same shapes and types. */
    static final class ElementwiseAdd implements Operator {
        @Override
        public List<TensorType> inferTypes(Node node) {
            TensorType a = node.input(0).type(), b = node.input(1).type();
            if (!a.equals(b)) throw node.error("inputs " + a + " and " + b + " differ");
            return List.of(a);
        }

        @Override
        public void lower(Node node, KernelBuilder kb) {
            Buffer out = kb.output(0);
            kb.loop(out.size(), i -> kb.store(out, i, add(kb.load(kb.input(0), i), kb.load(kb.input(1), i))));
        }
    }

    /** The input's shape as int64, computed from the static type alone (its kernel loads nothing). */
    static final class ShapeOf implements Operator {
        @Override
        public List<TensorType> inferTypes(Node node) {
            return List.of(new TensorType(ElementType.INT64, new long[] {node.input(0).type().rank()}));
        }

        @Override
        public void lower(Node node, KernelBuilder kb) {
            long[] shape = node.input(0).type().shape();
            for (int d = 0; d < shape.length; d++) kb.store(kb.output(0), idx(d), constant(kb.output(0).elementType(), shape[d]));
        }
    }

    /** Reshape whose target shape must be known at compile time; the kernel copies the data only. */
    static final class ReshapeToConstant implements Operator {
        @Override
        public List<TensorType> inferTypes(Node node) {
            Value shape = node.input(1);
            if (!shape.isConstant()) throw node.error("the target shape must be known at compile time");
            Tensor target = shape.constant();
            long[] dims = target.toLongArray();
            if (Arrays.stream(dims).reduce(1, Math::multiplyExact) != node.input(0).type().elementCount()) {
                throw node.error("cannot reshape " + node.input(0).type() + " to " + Arrays.toString(dims));
            }
            return List.of(node.input(0).type().withShape(dims));
        }

        @Override
        public void lower(Node node, KernelBuilder kb) {
            Buffer out = kb.output(0);
            kb.loop(out.size(), i -> kb.store(out, i, kb.load(kb.input(0), i)));
        }
    }

    /** Two copies of its input, for nodes with more than one output. */
    static final class Pair implements Operator {
        @Override
        public List<TensorType> inferTypes(Node node) {
            return List.of(node.input(0).type(), node.input(0).type());
        }

        @Override
        public void lower(Node node, KernelBuilder kb) {
            for (int o = 0; o < 2; o++) {
                Buffer out = kb.output(o);
                kb.loop(out.size(), i -> kb.store(out, i, kb.load(kb.input(0), i)));
            }
        }
    }

    /** An operator whose type inference refuses every node, as a real one refuses an unsupported attribute. */
    static final class Rejects implements Operator {
        @Override
        public List<TensorType> inferTypes(Node node) {
            throw node.badAttribute("mode", node.stringAttr("mode", "none"), "only 'none' is implemented");
        }

        @Override
        public void lower(Node node, KernelBuilder kb) {
            throw new AssertionError("never lowered");
        }
    }
}
