package dev.byodt.compiler.train;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.TensorProto;
import dev.byodt.runtime.AtomicFiles;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.InputFiles;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The weights of an ONNX file: the float initializers training changes, and the model written back with new values. */
public final class OnnxWeights {
    private OnnxWeights() {}

    /** The names of the model's float32 initializers. */
    public static Set<String> floatInitializers(Path model) {
        Set<String> names = new LinkedHashSet<>();
        for (TensorProto t : read(model).getGraph().getInitializerList()) {
            if (t.getDataType() == TensorProto.DataType.FLOAT_VALUE) names.add(t.getName());
        }
        return names;
    }

    /**
     * Writes {@code model} to {@code out} with each initializer named in {@code weights} replaced by its value there.
     * A value named there that a node computes from initializers (a running statistic PyTorch's exporter tied to
     * another initializer by an Identity, which training gave values of its own) becomes an initializer in place of
     * that node.
     */
    public static void write(Path model, Map<String, Tensor> weights, Path out) {
        ModelProto.Builder builder = read(model).toBuilder();
        var graph = builder.getGraphBuilder();
        Map<String, Tensor> computed = new LinkedHashMap<>(weights);
        for (int i = 0; i < graph.getInitializerCount(); i++) {
            Tensor value = computed.remove(graph.getInitializer(i).getName());
            if (value != null) graph.setInitializer(i, TensorProtos.toProto(graph.getInitializer(i).getName(), value));
        }
        computed.forEach((name, value) -> {
            for (int i = 0; i < graph.getNodeCount(); i++) {
                if (graph.getNode(i).getOutputList().equals(List.of(name))) {
                    graph.removeNode(i);
                    graph.addInitializer(TensorProtos.toProto(name, value));
                    return;
                }
            }
            throw new ByodtException(model + ": no initializer or single-output node named '" + name + "' to write the trained value into");
        });
        AtomicFiles.write(out, builder.build().toByteArray());
    }

    private static ModelProto read(Path model) {
        try {
            return ModelProto.parseFrom(InputFiles.readAllBytes(model));
        } catch (InvalidProtocolBufferException e) {
            throw new ByodtException(model + " is not an ONNX model", e);
        }
    }
}
