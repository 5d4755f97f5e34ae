package dev.byodt.compiler.onnx;

import dev.byodt.compiler.conformance.ExpectedPassing;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.Value;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static dev.byodt.compiler.onnx.Models.NODE_TESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every ONNX backend node-test model goes through the front end: it parses, its inputs get types (or a
 * ByodtException says why not), and loading either succeeds with every value typed or stops with a
 * one-line ByodtException, never another exception. Which of them load depends on the operators registered:
 * every case the conformance tests pin as passing (expected-passing.txt) loads, or needs no more than its
 * integer inputs bound at compile time, which the conformance run does and this plain load does not.
 */
class OnnxNodeModelsTest {
    @Test
    void everyNodeTestModelParsesAndLoadsOrFailsCleanly() throws IOException {
        List<Path> models;
        try (Stream<Path> cases = Files.list(NODE_TESTS)) {
            models = cases.map(c -> c.resolve("model.onnx")).filter(Files::isRegularFile).sorted().toList();
        }
        assertEquals(662, models.size());
        int loaded = 0;
        List<String> refused = new ArrayList<>();
        Map<String, Integer> failures = new TreeMap<>();
        for (Path model : models) {
            checkInputsAreTyped(model);
            try {
                Graph graph = OnnxLoader.load(model);
                checkFullyTyped(model, graph);
                loaded++;
            } catch (ByodtException e) {
                assertFalse(e.getMessage().contains("\n"), model + ": " + e.getMessage());
                if (!e.getMessage().contains("must be known at compile time")) refused.add(model.getParent().getFileName().toString());
                failures.merge(e.getMessage().contains("uses unsupported operators") ? "unsupported operators"
                    : e.getMessage().replaceAll("'[^']*'", "'…'").replace(model.toString(), "MODEL"), 1, Integer::sum);
            }
        }
        System.out.println("onnx-node models: " + loaded + " loaded; failures by kind: " + failures);
        List<String> pinnedButRefused = refused.stream().filter(ExpectedPassing.cases()::contains).toList();
        assertEquals(List.of(), pinnedButRefused, "cases pinned as passing that the loader refuses");
    }

    /** Parsing and input typing alone, whatever operators exist. */
    private static void checkInputsAreTyped(Path model) {
        GraphImporter.Result result = new GraphImporter(model, ModelReader.read(model)).run(Map.of(), Map.of());
        for (Value input : result.graph().inputs()) {
            boolean refused = result.problems().stream().anyMatch(p -> p.where().equals("input '" + input.name() + "'"));
            assertTrue(input.type() != null || refused, model + ": input " + input.name() + " has no type and no reason");
        }
        assertNotNull(ModelSummary.of(model).render());
    }

    private static void checkFullyTyped(Path model, Graph graph) {
        for (Value v : graph.inputs()) assertNotNull(v.type(), model + ": input " + v.name());
        for (Value v : graph.outputs()) assertNotNull(v.type(), model + ": output " + v.name());
        for (Node node : graph.nodes()) {
            for (Value v : node.outputs()) assertNotNull(v.type(), model + ": " + node + " output " + v.name());
        }
    }
}
