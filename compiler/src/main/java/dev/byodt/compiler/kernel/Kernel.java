package dev.byodt.compiler.kernel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The loop nest of one ONNX node. Inputs and outputs are the node's tensors in ONNX order (null where an
 * optional input is omitted); the kernel writes only its outputs and reads its inputs.
 */
public record Kernel(String name, String opType, List<Buffer> inputs, List<Buffer> outputs, List<Stmt> body) {
    public Kernel {
        inputs = Collections.unmodifiableList(new ArrayList<>(inputs));
        outputs = List.copyOf(outputs);
        body = List.copyOf(body);
    }

    /** The buffers the body actually loads from (Reshape's shape input, say, is read at compile time only). */
    public Set<Buffer> loadedBuffers() {
        Set<Buffer> found = new LinkedHashSet<>();
        KernelWalker.forEachExpr(body, e -> {
            if (e instanceof Expr.Load load) found.add(load.buffer());
        });
        return found;
    }
}
