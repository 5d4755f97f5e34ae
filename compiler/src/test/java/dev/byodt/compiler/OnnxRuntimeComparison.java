package dev.byodt.compiler;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.onnx.OnnxLoader;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.Tensor;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A small model with one float image input, compiled by byodt and run beside ONNX Runtime on seeded random images. */
final class OnnxRuntimeComparison {
    private OnnxRuntimeComparison() {}

    /**
     * Per output, the largest |byodt - onnxruntime| over {@code images} images of uniform [0, 1) pixels drawn with
     * {@code seed}, relative to the largest |output| of ONNX Runtime's on each image.
     */
    static double[] worstDifferences(Path model, CompileOptions options, String input, long[] shape, List<String> outputs,
                                     int images, long seed) throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        Random random = new Random(seed);
        double[] worst = new double[outputs.size()];
        try (OrtSession session = env.createSession(model.toString(), new OrtSession.SessionOptions());
             CompiledModule module = Compiler.compile(OnnxLoader.load(model, Map.of()), options);
             HostModel byodt = Compiler.jit(module)) {
            for (int image = 0; image < images; image++) {
                float[] pixels = new float[(int) Shapes.elementCount(shape, input)];
                for (int i = 0; i < pixels.length; i++) pixels[i] = random.nextFloat();
                List<Tensor> ours = byodt.run(List.of(Tensor.ofFloats(shape, pixels)));
                try (OnnxTensor feed = OnnxTensor.createTensor(env, FloatBuffer.wrap(pixels), shape);
                     OrtSession.Result result = session.run(Map.of(input, feed))) {
                    for (int o = 0; o < outputs.size(); o++) {
                        float[] theirs = new float[(int) ours.get(o).elementCount()];
                        ((OnnxTensor) result.get(outputs.get(o)).orElseThrow()).getFloatBuffer().get(theirs);
                        float[] mine = ours.get(o).toFloatArray();
                        assertEquals(theirs.length, mine.length, outputs.get(o) + " elements");
                        double largest = 0;
                        for (float v : theirs) largest = Math.max(largest, Math.abs(v));
                        for (int i = 0; i < theirs.length; i++) worst[o] = Math.max(worst[o], Math.abs(theirs[i] - mine[i]) / largest);
                    }
                }
            }
        }
        return worst;
    }
}
