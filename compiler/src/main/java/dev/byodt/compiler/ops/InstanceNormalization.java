package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.runtime.Shapes;

import java.util.List;

/**
 * ONNX InstanceNormalization: each channel of each sample of X (N x C x D1..Dn) normalised by its own mean
 * and variance, then scaled and shifted per channel: GroupNormalization with a group per channel. The variance
 * is taken around the mean in a second pass, which stays accurate where the mean is large compared to the spread.
 */
final class InstanceNormalization implements Operator {
    static void registerAll() {
        Operators.register("InstanceNormalization", new InstanceNormalization());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        TensorType x = Operands.requireRank(node, Operands.floatInput(node, 0, "input"), "input", 3);
        for (int i = 1; i <= 2; i++) {
            String role = i == 1 ? "scale" : "B";
            long[] shape = Operands.floatInput(node, i, role).shape();
            if (shape.length != 1 || shape[0] != x.dim(1)) {
                throw node.error("input " + role + " has shape " + Shapes.format(shape) + ", expected " + x.dim(1));
            }
        }
        return List.of(x);
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        GroupNormalization.lowerGroups(node, kb, kb.input(0).dim(1), true);
    }
}
