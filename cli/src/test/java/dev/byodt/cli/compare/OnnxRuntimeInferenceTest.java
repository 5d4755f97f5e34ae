package dev.byodt.cli.compare;

import dev.byodt.onnx.Onnx;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The ONNX Runtime reference runs the graph as written: its graph optimizations fuse a zero Pad into the
 * MaxPool after it (tiny-YOLOv3's ZeroPad2d + MaxPool(2, stride 1)) and then pad with -inf, not zero.
 */
class OnnxRuntimeInferenceTest {
    @TempDir
    Path dir;

    @Test
    void aZeroPadBeforeMaxPoolPadsWithZeros() throws IOException {
        Path model = padThenMaxPool(dir.resolve("pad-maxpool.onnx"));
        TensorSpec x = new TensorSpec("x", ElementType.FLOAT32, new long[] {1, 1, 2, 2});
        TensorSpec y = new TensorSpec("y", ElementType.FLOAT32, new long[] {1, 1, 2, 2});
        try (OnnxRuntimeInference reference = OnnxRuntimeInference.open(model, x, List.of(y))) {
            float[][] out = reference.run(new float[] {-1, -2, -3, -4}, 0);
            // Windows of 2x2 over [[-1, -2, 0], [-3, -4, 0], [0, 0, 0]]: every one but the first reaches a pad zero.
            assertArrayEquals(new float[] {-1, 0, 0, 0}, out[0], Arrays.toString(out[0]));
        }
    }

    /** x[1,1,2,2] -> Pad (zeros after each spatial axis) -> MaxPool 2x2, stride 1 -> y[1,1,2,2]. */
    private static Path padThenMaxPool(Path file) throws IOException {
        Onnx.TensorProto pads = Onnx.TensorProto.newBuilder().setName("pads").setDataType(7).addDims(8)
            .addAllInt64Data(List.of(0L, 0L, 0L, 0L, 0L, 0L, 1L, 1L)).build();
        Onnx.NodeProto pad = Onnx.NodeProto.newBuilder().setOpType("Pad").setName("pad")
            .addInput("x").addInput("pads").addOutput("padded").build();
        Onnx.NodeProto pool = Onnx.NodeProto.newBuilder().setOpType("MaxPool").setName("pool").addInput("padded").addOutput("y")
            .addAttribute(ints("kernel_shape", 2, 2)).addAttribute(ints("strides", 1, 1)).build();
        Onnx.ModelProto model = Onnx.ModelProto.newBuilder().setIrVersion(8)
            .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
            .setGraph(Onnx.GraphProto.newBuilder().setName("g").addNode(pad).addNode(pool).addInitializer(pads)
                .addInput(value("x", 2)).addOutput(value("y", 2)))
            .build();
        Files.write(file, model.toByteArray());
        return file;
    }

    private static Onnx.AttributeProto ints(String name, long... values) {
        Onnx.AttributeProto.Builder attribute = Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long v : values) attribute.addInts(v);
        return attribute.build();
    }

    private static Onnx.ValueInfoProto value(String name, long side) {
        Onnx.TensorShapeProto.Builder shape = Onnx.TensorShapeProto.newBuilder();
        for (long d : new long[] {1, 1, side, side}) shape.addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        return Onnx.ValueInfoProto.newBuilder().setName(name)
            .setType(Onnx.TypeProto.newBuilder().setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(1).setShape(shape))).build();
    }
}
