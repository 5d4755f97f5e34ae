package dev.byodt.compiler;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.IdxReader;
import dev.byodt.runtime.LabeledImages;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** byodt's float32 LeNet-5 against ONNX Runtime on the shipped sample images: the same logits to 1e-5. */
class OnnxRuntimeCrossCheckTest {
    private static final Path MODELS = Path.of(System.getProperty("byodt.modelsDir", "../models"));
    private static final int IMAGES = 200;
    private static final int BATCH = 8;

    @Test
    void lenet5LogitsMatchOnnxRuntime() throws OrtException {
        Path model = MODELS.resolve("lenet5-fashion.onnx");
        LabeledImages data = IdxReader.readTestSet(MODELS.resolve("fashion-mnist-sample"), IMAGES);
        long[] shape = {BATCH, 1, 28, 28};
        long imageFloats = 28 * 28;

        OrtEnvironment env = OrtEnvironment.getEnvironment();
        double worst = 0;
        try (OrtSession session = env.createSession(model.toString(), new OrtSession.SessionOptions());
             CompiledModule module = Compiler.compile(OnnxLoader.load(model, Map.of("image", shape)), CompileOptions.host());
             HostModel byodt = Compiler.jit(module)) {
            for (int first = 0; first < IMAGES; first += BATCH) {
                Tensor batch = Tensor.zeros(dev.byodt.runtime.ElementType.FLOAT32, shape);
                MemorySegment.copy(data.images().data(), first * imageFloats * 4, batch.data(), 0, BATCH * imageFloats * 4);
                float[] ours = byodt.run(List.of(batch)).get(0).toFloatArray();
                float[][] theirs;
                try (OnnxTensor input = OnnxTensor.createTensor(env, FloatBuffer.wrap(batch.toFloatArray()), shape);
                     OrtSession.Result result = session.run(Map.of("image", input))) {
                    theirs = (float[][]) result.get(0).getValue();
                }
                assertEquals(BATCH, theirs.length);
                for (int i = 0; i < BATCH; i++) {
                    for (int c = 0; c < 10; c++) {
                        float expected = theirs[i][c], actual = ours[i * 10 + c];
                        worst = Math.max(worst, Math.abs(expected - actual));
                        assertTrue(Math.abs(expected - actual) <= 1e-5,
                            "image " + (first + i) + " class " + c + ": onnxruntime " + expected + ", byodt " + actual);
                    }
                }
            }
        }
        System.out.printf("LeNet-5 float32 vs ONNX Runtime on %d images: max abs difference %.3g%n", IMAGES, worst);
    }
}
