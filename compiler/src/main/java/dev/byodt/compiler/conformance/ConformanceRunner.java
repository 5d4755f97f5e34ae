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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Runs ONNX backend test cases through the whole pipeline (load, compile, JIT, run) and compares with their
 * expected outputs. A case byodt refuses at load or compile time counts as unsupported, with the reason;
 * a case that compiles but computes a wrong result, or crashes the compiler, counts as failed.
 */
public final class ConformanceRunner {
    private final double rtol;
    private final double atol;

    public ConformanceRunner(double rtol, double atol) {
        this.rtol = rtol;
        this.atol = atol;
    }

    /** Every case folder (one holding model.onnx) directly below dir, in name order. */
    public static List<Path> caseFolders(Path dir) {
        if (!Files.isDirectory(dir)) throw new ByodtException(dir + ": not a folder of ONNX test cases");
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> Files.isRegularFile(p.resolve("model.onnx"))).sorted().toList();
        } catch (IOException e) {
            throw new ByodtException(dir + ": cannot list the folder (" + e.getMessage() + ")");
        }
    }

    public Tally runAll(Path dir, Consumer<CaseResult> progress) {
        List<CaseResult> results = new ArrayList<>();
        for (Path caseDir : caseFolders(dir)) {
            CaseResult r = runCase(caseDir);
            progress.accept(r);
            results.add(r);
        }
        return new Tally(results);
    }

    public CaseResult runCase(Path caseDir) {
        String name = caseDir.getFileName().toString();
        TestCase testCase;
        Graph graph;
        try {
            testCase = TestCase.load(caseDir);
            graph = OnnxLoader.load(testCase.model(), Map.of());
        } catch (ByodtException e) {
            return new CaseResult(name, CaseResult.Outcome.UNSUPPORTED, e.getMessage());
        } catch (RuntimeException e) {
            return new CaseResult(name, CaseResult.Outcome.FAILED, "loading crashed: " + e);
        }
        try (CompiledModule module = Compiler.compile(graph, CompileOptions.host());
             HostModel model = Compiler.jit(module)) {
            for (TestCase.DataSet set : testCase.dataSets()) {
                String problem = check(model, set);
                if (problem != null) return new CaseResult(name, CaseResult.Outcome.FAILED, problem);
            }
            return new CaseResult(name, CaseResult.Outcome.PASSED, "");
        } catch (ByodtException e) {
            return new CaseResult(name, CaseResult.Outcome.UNSUPPORTED, e.getMessage());
        } catch (RuntimeException e) {
            return new CaseResult(name, CaseResult.Outcome.FAILED, "compiling or running crashed: " + e);
        }
    }

    /** Null when every output is within tolerance, else what differs. */
    private String check(HostModel model, TestCase.DataSet set) {
        List<Tensor> inputs = set.inputs().stream().map(NamedTensor::tensor).toList();
        List<Tensor> actual = model.run(inputs);
        if (actual.size() < set.outputs().size()) {
            return set.dir().getFileName() + ": model has " + actual.size() + " outputs, expected " + set.outputs().size();
        }
        for (int i = 0; i < set.outputs().size(); i++) {
            TensorDiff diff = TensorDiff.of(set.outputs().get(i).tensor(), actual.get(i), rtol, atol);
            if (!diff.withinTolerance()) {
                return set.dir().getFileName() + " output " + i + " '" + model.outputs().get(i).name() + "': " + diff.describe();
            }
        }
        return null;
    }
}
