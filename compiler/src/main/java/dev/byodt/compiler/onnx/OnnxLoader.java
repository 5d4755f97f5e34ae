package dev.byodt.compiler.onnx;

import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.ops.Operators;
import dev.byodt.onnx.Onnx.NodeProto;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.Tensor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Loads an ONNX model file into a Graph with static types on every value and compile-time constants
 * folded away.
 *
 * <p>Shapes are static: a symbolic dimension of a graph input (a batch size "N", say) is fixed at compile
 * time, to the shape given for that input if there is one and to 1 otherwise. Weights are constants, also
 * when an IR-3 model lists them among its inputs; Constant nodes become constants too. Nodes whose kernels
 * read only constants are evaluated while loading and do not appear in {@link Graph#nodes()}; graph outputs
 * keep their values even when these turn out constant.
 */
public final class OnnxLoader {
    private OnnxLoader() {}

    public static Graph load(Path file) { return load(file, Map.of()); }

    /**
     * @param shapeOverrides the shape of a graph input by its name, for inputs whose shape the model leaves
     *                       (partly) symbolic; it must agree with every dimension the model fixes
     * @throws dev.byodt.runtime.ByodtException for a file that is not a readable ONNX model, an invalid shape,
     *                       or anything byodt does not support, all unsupported operators listed in one message
     */
    public static Graph load(Path file, Map<String, long[]> shapeOverrides) {
        return load(file, shapeOverrides, Map.of());
    }

    /**
     * Loads the model with some inputs fixed to values at compile time: they stop being run-time inputs and
     * become constants, so that shape, axes and index inputs can fold as weights do.
     *
     * @param boundInputs the value of a graph input by its name; it must fit the input's declared type
     */
    public static Graph load(Path file, Map<String, long[]> shapeOverrides, Map<String, Tensor> boundInputs) {
        GraphImporter.Result result = new GraphImporter(file, ModelReader.read(file)).run(shapeOverrides, boundInputs);
        List<ImportProblem> missing = result.problems().stream().filter(ImportProblem::isMissingOperator).toList();
        if (!missing.isEmpty()) throw new ByodtException("model " + file + " uses unsupported operators: " + list(missing));
        if (!result.problems().isEmpty()) throw result.problems().getFirst().error();
        return result.graph();
    }

    /**
     * The names that some node reads where its operator needs the value at compile time although it is a
     * float (Resize's scales and roi), so that test data binds them, as it binds integer inputs.
     */
    public static Set<String> compileTimeInputs(Path file) {
        Set<String> names = new HashSet<>();
        for (NodeProto node : ModelReader.read(file).getGraph().getNodeList()) {
            if (!ModelReader.normalizeDomain(node.getDomain()).isEmpty()) continue;
            for (int i = 0; i < node.getInputCount(); i++) {
                String name = node.getInput(i);
                if (!name.isEmpty() && Operators.readsAtCompileTime(node.getOpType(), i)) names.add(name);
            }
        }
        return names;
    }

    /** "Foo (node 'a'), Bar (node 'b' and 2 more)": each operator once, with where it is used first. */
    private static String list(List<ImportProblem> missing) {
        Map<String, List<String>> nodesByOperator = new LinkedHashMap<>();
        for (ImportProblem p : missing) nodesByOperator.computeIfAbsent(p.opType(), k -> new ArrayList<>()).add(p.where());
        List<String> entries = new ArrayList<>();
        nodesByOperator.forEach((op, nodes) -> entries.add(op + " (" + describeNodes(nodes) + ")"));
        return String.join(", ", entries);
    }

    private static String describeNodes(List<String> nodes) {
        return nodes.getFirst() + (nodes.size() > 1 ? " and " + (nodes.size() - 1) + " more" : "");
    }
}
