package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;

/**
 * What a gradient rule writes one input's gradient with: the builder of its kernel, the node's forward
 * tensors (inputs in ONNX order, null where omitted, and its output), the gradient of the loss with respect
 * to that output, and the buffer to write.
 */
public record GradientKernel(KernelBuilder kb, List<Buffer> inputs, Buffer output, Buffer outputGradient,
                             Buffer gradient) {
    public Buffer input(int i) { return i < inputs.size() ? inputs.get(i) : null; }
}
