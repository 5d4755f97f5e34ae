package dev.byodt.compiler.graph;

import dev.byodt.compiler.onnx.OnnxLoader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IntermediateOutputsTest {
    private static final Path LENET = Path.of(System.getProperty("byodt.modelsDir", "../models"), "lenet5-fashion.onnx");

    @Test
    void everyRuntimeFloatTensorFollowsTheOutputsInGraphOrder() {
        Graph graph = OnnxLoader.load(LENET, Map.of(), Map.of());
        Graph exposed = IntermediateOutputs.expose(graph);
        List<Value> added = exposed.outputs().subList(graph.outputs().size(), exposed.outputs().size());
        assertEquals(graph.outputs(), exposed.outputs().subList(0, graph.outputs().size()));
        List<Value> expected = graph.nodes().stream().flatMap(n -> n.outputs().stream())
            .filter(v -> !v.isConstant() && !graph.outputs().contains(v)).toList();
        assertEquals(expected, added);
        assertEquals(graph.nodes().size() - 1, added.size(), "LeNet-5: one tensor per node but the last, which is the output");
        assertTrue(added.stream().noneMatch(Value::isConstant));
        assertFalse(added.contains(graph.outputs().get(0)));
        assertEquals(graph.nodes(), exposed.nodes());
    }
}
