package dev.byodt.cli.compare;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Shapes;
import dev.byodt.runtime.TensorSpec;

import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The float32 baseline from ONNX Runtime (--reference onnxruntime) instead of byodt's own float32 code:
 * the same model file, run without ONNX Runtime's graph optimizations (see {@link #DESCRIPTION}), fed tensors of the shape byodt compiled (so the batch matches), outputs read back
 * as float32 in the order byodt lists them.
 */
public final class OnnxRuntimeInference implements Inference {
    /** How reports name this reference: graph optimizations off, so that it computes the graph as written. */
    public static final String DESCRIPTION = "onnxruntime float32 (graph optimizations off)";

    private final OrtEnvironment environment = OrtEnvironment.getEnvironment();
    private final OrtSession session;
    private final TensorSpec input;
    private final List<TensorSpec> outputs;

    private OnnxRuntimeInference(OrtSession session, TensorSpec input, List<TensorSpec> outputs) {
        this.session = session;
        this.input = input;
        this.outputs = outputs;
    }

    /** A session on {@code model} that takes {@code input} and returns {@code outputs} (byodt's specs of the same graph). */
    public static OnnxRuntimeInference open(Path model, TensorSpec input, List<TensorSpec> outputs) {
        try {
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            // One thread per session call: the runner already spreads calls over every core.
            options.setIntraOpNumThreads(1);
            // The reference is the graph as written: ONNX Runtime's optimizations fuse a zero Pad into the
            // MaxPool after it and then pad with -inf (tiny-YOLOv3's ZeroPad2d + MaxPool(2, stride 1)).
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.NO_OPT);
            OrtSession session = OrtEnvironment.getEnvironment().createSession(model.toString(), options);
            for (TensorSpec out : outputs) {
                if (!session.getOutputNames().contains(out.name())) {
                    session.close();
                    throw new ByodtException("ONNX Runtime does not list the output '" + out.name() + "' of " + model);
                }
            }
            return new OnnxRuntimeInference(session, input, outputs);
        } catch (OrtException e) {
            throw new ByodtException("ONNX Runtime cannot load " + model + ": " + e.getMessage(), e);
        }
    }

    @Override
    public TensorSpec input() { return input; }

    @Override
    public List<TensorSpec> outputs() { return outputs; }

    @Override
    public float[][] run(float[] values, long firstItem) {
        try (OnnxTensor tensor = inputTensor(values);
             OrtSession.Result result = session.run(Map.of(input.name(), tensor))) {
            float[][] out = new float[outputs.size()][];
            for (int i = 0; i < out.length; i++) {
                TensorSpec spec = outputs.get(i);
                OnnxValue value = result.get(spec.name()).orElseThrow();
                FloatBuffer floats = ((OnnxTensor) value).getFloatBuffer();
                if (floats == null || floats.remaining() != spec.elementCount()) {
                    throw new ByodtException("ONNX Runtime's output '" + spec.name() + "' is not float32 of shape " + Shapes.format(spec.shape()));
                }
                out[i] = new float[floats.remaining()];
                floats.get(out[i]);
            }
            return out;
        } catch (OrtException e) {
            throw new ByodtException("ONNX Runtime failed on input '" + input.name() + "' of shape " + Shapes.format(input.shape()) + ": " + e.getMessage(), e);
        }
    }

    /** The call's input in the input's element type: float32, or integers (token ids) as int64 or int32. */
    private OnnxTensor inputTensor(float[] values) throws OrtException {
        if (!input.type().isInteger()) return OnnxTensor.createTensor(environment, FloatBuffer.wrap(values), input.shape());
        long[] integers = CallInput.integers(input, values);
        if (input.type() == ElementType.INT64) return OnnxTensor.createTensor(environment, LongBuffer.wrap(integers), input.shape());
        return OnnxTensor.createTensor(environment, IntBuffer.wrap(Arrays.stream(integers).mapToInt(Math::toIntExact).toArray()), input.shape());
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            throw new ByodtException("closing the ONNX Runtime session failed: " + e.getMessage(), e);
        }
    }
}
