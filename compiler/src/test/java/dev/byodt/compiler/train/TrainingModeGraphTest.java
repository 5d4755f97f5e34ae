package dev.byodt.compiler.train;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the training graph cannot take is a one-line error naming the node and what to do. */
class TrainingModeGraphTest {
    private static final long[] SHAPE = {4, 3};

    @Test
    void aBatchNormalizationExportedInTrainingModeIsRefused() {
        List<Value> parameters = List.of(constant("scale", 1), constant("B", 0), constant("mean", 0), constant("var", 1));
        Node bn = new Node("bn", "BatchNormalization", "", 15, List.of(tensor("x"), parameters.get(0), parameters.get(1),
            parameters.get(2), parameters.get(3)), List.of(tensor("y")), Map.of("training_mode", new Attribute.IntAttr(1)));
        assertError("BatchNormalization node 'bn': is in training mode (training_mode=1), and the trained model would keep "
            + "normalizing by its batches: export the model in inference mode (from PyTorch's eval(), with "
            + "TrainingMode.PRESERVE)", bn, bn.output(0));
    }

    @Test
    void aDropoutWhoseMaskIsReadIsRefused() {
        Node dropout = new Node("drop", "Dropout", "", 13, List.of(tensor("x")), List.of(tensor("y"), tensor("mask")), Map.of());
        assertError("Dropout node 'drop': its mask output is read, which training does not compute", dropout, dropout.output(1));
    }

    @Test
    void aDropoutThatDropsEverythingIsRefused() {
        Node dropout = new Node("drop", "Dropout", "", 13, List.of(tensor("x"), constant("ratio", 1)), List.of(tensor("y")), Map.of());
        assertError("Dropout node 'drop': ratio 1.0 is not in [0, 1)", dropout, dropout.output(0));
    }

    private static void assertError(String expected, Node node, Value output) {
        Graph graph = new Graph("g", List.of(node.input(0)), List.of(output), List.of(node));
        ByodtException e = assertThrows(ByodtException.class, () -> TrainingModeGraph.of(graph));
        assertEquals(expected, e.getMessage());
    }

    private static Value tensor(String name) {
        Value v = new Value(name);
        v.setType(new TensorType(ElementType.FLOAT32, SHAPE));
        return v;
    }

    /** A constant of the channels' shape, or a scalar for a ratio, every element {@code value}. */
    private static Value constant(String name, float value) {
        long[] shape = name.equals("ratio") ? new long[0] : new long[]{SHAPE[1]};
        float[] values = new float[name.equals("ratio") ? 1 : (int) SHAPE[1]];
        Arrays.fill(values, value);
        Value v = new Value(name);
        v.setConstant(Tensor.ofFloats(shape, values));
        return v;
    }
}
