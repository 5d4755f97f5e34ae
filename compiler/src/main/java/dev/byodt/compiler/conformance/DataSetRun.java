package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorDiff;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Loads a model for one test-data set, runs it (compiled, or with another executor) and compares each output
 * with the expected one.
 *
 * <p>Named integer inputs of the data are bound at compile time: ONNX test data feeds shapes, axes and
 * pads as inputs, and byodt compiles static shapes. The other inputs are fed at run time, in order, converted
 * to the types the model computes in; the outputs come back in the model's declared types.
 */
public final class DataSetRun {
    /** One output's comparison with its expected value. */
    public record OutputCheck(int index, String name, TensorDiff diff) {}

    private DataSetRun() {}

    /**
     * @param bound inputs the caller fixes at compile time besides the data's integer inputs
     * @throws ByodtException when byodt cannot compile the model for this data
     */
    public static List<OutputCheck> run(Path model, Map<String, long[]> shapes, Map<String, Tensor> bound,
                                        CompileOptions options, TestCase.DataSet set, double rtol, double atol) {
        return run(model, shapes, bound, GraphExecutor.compiled(options), set, rtol, atol);
    }

    /** As {@link #run(Path, Map, Map, CompileOptions, TestCase.DataSet, double, double)}, with another executor. */
    public static List<OutputCheck> run(Path model, Map<String, long[]> shapes, Map<String, Tensor> bound,
                                        GraphExecutor executor, TestCase.DataSet set, double rtol, double atol) {
        List<NamedTensor> actual = outputs(model, shapes, bound, executor, set);
        if (actual.size() < set.outputs().size()) {
            throw new ByodtException(set.dir() + " holds " + set.outputs().size() + " expected outputs, but "
                + model + " has " + actual.size());
        }
        List<OutputCheck> checks = new ArrayList<>();
        for (int i = 0; i < set.outputs().size(); i++) {
            Tensor expected = set.outputs().get(i).tensor();
            TensorDiff diff = TensorDiff.of(expected, inTypeOf(expected, actual.get(i).tensor()), rtol, atol);
            checks.add(new OutputCheck(i, actual.get(i).name(), diff));
        }
        return checks;
    }

    /**
     * The actual tensor in the expected one's element type when both are computed in the same type (an output
     * the model leaves untyped, compared with float16 data), so that the comparison sees the declared rounding.
     */
    private static Tensor inTypeOf(Tensor expected, Tensor actual) {
        return expected.type().computed() == actual.type().computed() ? actual.convertedTo(expected.type()) : actual;
    }

    /**
     * The inputs of the data that are bound at compile time, by name: the named integer ones and those an
     * operator reads at compile time, but not those the caller binds itself.
     */
    public static Map<String, Tensor> boundFromData(Path model, Map<String, Tensor> bound, TestCase.DataSet set) {
        Map<String, Tensor> fromData = new LinkedHashMap<>();
        Set<String> compileTime = OnnxLoader.compileTimeInputs(model);
        for (NamedTensor t : set.inputs()) {
            if (bound.containsKey(t.name()) || t.name().isEmpty()) continue;
            if (t.tensor().type().isInteger() || compileTime.contains(t.name())) fromData.put(t.name(), t.tensor());
        }
        return fromData;
    }

    /**
     * Loads the model with the data's named integer inputs, those an operator reads at compile time (Resize's
     * scales) and the caller's bound at compile time and runs it on the rest of the data's inputs.
     *
     * @return the graph's outputs, by name, in order
     */
    public static List<NamedTensor> outputs(Path model, Map<String, long[]> shapes, Map<String, Tensor> bound,
                                            GraphExecutor executor, TestCase.DataSet set) {
        Map<String, Tensor> fromData = boundFromData(model, bound, set);
        Map<String, Tensor> allBound = new LinkedHashMap<>(bound);
        allBound.putAll(fromData);
        List<Tensor> runTimeInputs = new ArrayList<>();
        for (NamedTensor t : set.inputs()) {
            if (!bound.containsKey(t.name()) && !fromData.containsKey(t.name())) {
                runTimeInputs.add(t.tensor().convertedTo(t.tensor().type().computed()));
            }
        }
        Graph graph = OnnxLoader.load(model, shapes, allBound);
        List<Tensor> values = graph.declaredOutputs(executor.run(graph, runTimeInputs));
        List<NamedTensor> named = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) named.add(new NamedTensor(graph.outputs().get(i).name(), values.get(i)));
        return named;
    }
}
