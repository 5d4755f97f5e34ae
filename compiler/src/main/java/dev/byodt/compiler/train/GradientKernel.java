package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.ops.NodeArithmetic;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a gradient rule writes one input's gradient with: the builder of its kernel, the node's forward
 * tensors (inputs in ONNX order, null where omitted, and its output), the gradient of the loss with respect
 * to that output, the buffer to write, and the node's arithmetic (the elements of its datatype a vector of the
 * target holds, and whether they are the machine's float32) when the rule is to write its schedule tuned for it
 * (empty: its reference nest, as the interpreter runs it). A tuned schedule computes the reference nest's result
 * bit for bit: each element sums the same terms in the same order.
 */
public record GradientKernel(KernelBuilder kb, List<Buffer> inputs, Buffer output, Buffer outputGradient,
                             Buffer gradient, Optional<NodeArithmetic> arithmetic) {
    public Buffer input(int i) { return i < inputs.size() ? inputs.get(i) : null; }

    /** The lanes of a tuned schedule, or empty for the reference nest. */
    public OptionalInt lanes() { return arithmetic.map(a -> OptionalInt.of(a.lanes())).orElse(OptionalInt.empty()); }
}
