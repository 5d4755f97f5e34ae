package dev.byodt.compiler.conformance;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.DataSource;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * ONNX test data (read by {@link TestCase#readDataSets}) as a data source for accuracy runs: each
 * test_data_set folder is one item, its input_0.pb the whole model input. Only single-input models fit
 * this; the output_N.pb files are not used, because reports compare against float32 run on the same inputs.
 * The data has no labels.
 */
public final class TestDataSource implements DataSource {
    private final List<Tensor> items;
    private final String description;

    private TestDataSource(List<Tensor> items, String description) {
        this.items = items;
        this.description = description;
    }

    /** The data sets of {@code dir}: its test_data_set_N folders, or the folder itself. */
    public static TestDataSource open(Path dir) {
        List<TestCase.DataSet> sets = TestCase.readDataSets(dir);
        long[] shape = null;
        Tensor[] items = new Tensor[sets.size()];
        for (int i = 0; i < items.length; i++) {
            TestCase.DataSet set = sets.get(i);
            if (set.inputs().size() != 1) {
                throw new ByodtException(set.dir() + " holds " + set.inputs().size()
                    + " inputs; accuracy runs take data for models with one input");
            }
            NamedTensor input = set.inputs().get(0);
            Tensor t = input.tensor();
            if (t.type() != ElementType.FLOAT32) throw new ByodtException(set.dir().resolve("input_0.pb") + " holds " + t.type() + ", not float32");
            if (shape == null) shape = t.shape();
            if (!Arrays.equals(shape, t.shape())) {
                throw new ByodtException(set.dir().resolve("input_0.pb") + " has shape " + Shapes.format(t.shape())
                    + " but " + sets.get(0).dir().resolve("input_0.pb") + " has " + Shapes.format(shape));
            }
            items[i] = t;
        }
        return new TestDataSource(List.of(items), "ONNX test data " + dir + " (" + items.length + " data sets, values as stored)");
    }

    @Override
    public String description() { return description; }

    @Override
    public long[] itemShape() { return items.get(0).shape(); }

    @Override
    public int size() { return items.size(); }

    @Override
    public void readItem(int index, MemorySegment target) {
        MemorySegment data = items.get(index).data();
        MemorySegment.copy(data, 0, target, 0, data.byteSize());
    }

    @Override
    public boolean hasLabels() { return false; }

    @Override
    public int label(int index) { throw new IllegalStateException("ONNX test data has no labels"); }
}
