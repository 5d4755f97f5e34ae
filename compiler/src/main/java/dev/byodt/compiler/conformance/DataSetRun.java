package dev.byodt.compiler.conformance;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
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

/**
 * Compiles a model for one test-data set, runs it and compares each output with the expected one.
 *
 * <p>Named integer inputs of the data are bound at compile time: ONNX test data feeds shapes, axes and
 * pads as inputs, and byodt compiles static shapes. The float inputs are fed at run time, in order.
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
        Map<String, Tensor> allBound = new LinkedHashMap<>(bound);
        List<Tensor> runTimeInputs = new ArrayList<>();
        for (NamedTensor t : set.inputs()) {
            if (bound.containsKey(t.name())) continue;
            if (t.tensor().type().isInteger() && !t.name().isEmpty()) allBound.put(t.name(), t.tensor());
            else runTimeInputs.add(t.tensor());
        }
        Graph graph = OnnxLoader.load(model, shapes, allBound);
        try (CompiledModule module = Compiler.compile(graph, options);
             HostModel compiled = Compiler.jit(module)) {
            List<Tensor> actual = compiled.run(runTimeInputs);
            if (actual.size() < set.outputs().size()) {
                throw new ByodtException(set.dir() + " holds " + set.outputs().size() + " expected outputs, but "
                    + model + " has " + actual.size());
            }
            List<OutputCheck> checks = new ArrayList<>();
            for (int i = 0; i < set.outputs().size(); i++) {
                TensorDiff diff = TensorDiff.of(set.outputs().get(i).tensor(), actual.get(i), rtol, atol);
                checks.add(new OutputCheck(i, compiled.outputs().get(i).name(), diff));
            }
            return checks;
        }
    }
}
