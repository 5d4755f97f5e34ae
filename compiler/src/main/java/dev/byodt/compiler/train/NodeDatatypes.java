package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.dtype.DatatypeChoice;

import java.util.ArrayList;
import java.util.List;

/**
 * --dtype-map in training: a pattern that gives a node a datatype gives it to that node's gradient kernels too
 * ("N gradient of X"), so the node computes forward and backward in it. The loss, the sums of gradients that
 * meet at a value, and the updates compute in --dtype.
 */
public final class NodeDatatypes {
    private NodeDatatypes() {}

    /** {@code options} with each --dtype-map entry followed by one for its nodes' gradient kernels. */
    public static CompileOptions withGradients(CompileOptions options) {
        DatatypeChoice choice = options.datatypes();
        List<DatatypeChoice.Override> overrides = new ArrayList<>();
        for (DatatypeChoice.Override o : choice.overrides()) {
            overrides.add(o);
            overrides.add(new DatatypeChoice.Override(o.pattern() + Backpropagation.GRADIENT_KERNEL + "*", o.datatype()));
        }
        return options.withDatatypes(choice.withOverrides(overrides));
    }
}
