package dev.byodt.compiler.kernel;

import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The loop nest of one ONNX node. Inputs and outputs are the node's tensors in ONNX order (null where an
 * optional input is omitted); the kernel writes only its outputs and its scratch buffers, and reads its
 * inputs, its constants and its scratch buffers.
 *
 * @param scratch   buffers private to the kernel and live only while it runs (see {@link KernelBuilder#scratch}):
 *                  rows of accumulators, so that loops can run across outputs while each output keeps its own
 *                  sequential sum
 * @param constants tensors the operator derived at compile time from its constant inputs (weights repacked in
 *                  the order its loops read them, see {@link KernelBuilder#constant}), with their values
 */
public record Kernel(String name, String opType, List<Buffer> inputs, List<Buffer> outputs, List<Buffer> scratch,
                     Map<Buffer, Tensor> constants, List<Stmt> body) {
    public Kernel {
        inputs = Collections.unmodifiableList(new ArrayList<>(inputs));
        outputs = List.copyOf(outputs);
        scratch = List.copyOf(scratch);
        constants = Collections.unmodifiableMap(new LinkedHashMap<>(constants));
        body = List.copyOf(body);
    }

    /**
     * The buffers the body actually loads from (Reshape's shape input, say, is read at compile time only);
     * for a load of a view, the buffer it views.
     */
    public Set<Buffer> loadedBuffers() {
        Set<Buffer> found = new LinkedHashSet<>();
        KernelWalker.forEachExpr(body, e -> {
            if (e instanceof Expr.Load load) found.add(load.buffer().storage());
        });
        return found;
    }
}
