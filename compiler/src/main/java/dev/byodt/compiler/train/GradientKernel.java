package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.List;
import java.util.OptionalInt;

/**
 * What a gradient rule writes one input's gradient with: the builder of its kernel, the node's forward
 * tensors (inputs in ONNX order, null where omitted, and its output), the gradient of the loss with respect
 * to that output, the buffer to write, and the elements of the node's datatype a vector of the target holds
 * when the rule is to write its schedule tuned for them (empty: its reference nest, as the interpreter runs it).
 * A tuned schedule computes the reference nest's result bit for bit: each element sums the same terms in the
 * same order.
 */
public record GradientKernel(KernelBuilder kb, List<Buffer> inputs, Buffer output, Buffer outputGradient,
                             Buffer gradient, OptionalInt lanes) {
    public Buffer input(int i) { return i < inputs.size() ? inputs.get(i) : null; }
}
