package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --dtype-map while training: a mapped node's forward and gradient kernels take its datatype, the rest --dtype. */
class NodeDatatypesTest {
    private static final Optimizer SGD = new Optimizer(Optimizer.Kind.SGD, 0.05, 0, 0, 0.9, 0.999, 1e-8);

    private static CompileOptions mapped(String map) {
        CompileOptions options = CompileOptions.host().withDatatype("float32");
        return NodeDatatypes.withGradients(options.withDatatypes(options.datatypes().withOverrides(DatatypeChoice.parseOverrides(map))));
    }

    @Test
    void aNodesGradientKernelsFollowItsDatatype() {
        DatatypeChoice choice = mapped("conv*=bfloat16").datatypes();
        assertEquals("bfloat16", choice.datatypeFor("conv1", List.of("c1")));
        assertEquals("bfloat16", choice.datatypeFor("conv1 gradient of w1", List.of("dw1 from conv1")));
        assertEquals("float32", choice.datatypeFor("fc gradient of w3", List.of("dw3 from fc")));
        assertEquals("float32", choice.datatypeFor("update of w1", List.of("w1.updated")));
        assertEquals("float32", choice.datatypeFor("loss gradient", List.of("dscores")));
    }

    @Test
    void trainingWithAMapComputesMappedNodesInTheirDatatype() {
        // The exporter's node names all begin with "/": every node, forward and backward, but not the loss or updates.
        List<Float> float32 = losses(CompileOptions.host()), mapped = losses(mapped("/*=bfloat16"));
        List<Float> bfloat16 = losses(CompileOptions.host().withDatatype("bfloat16"));
        mapped.forEach(loss -> assertTrue(Float.isFinite(loss), "losses " + mapped));
        assertNotEquals(float32, mapped, "every node in bfloat16 is not float32 training");
        assertNotEquals(bfloat16, mapped, "the loss and the updates stay in --dtype (float32)");
    }

    private static List<Float> losses(CompileOptions options) {
        try (Trainer trainer = Trainer.compile(SampleBatches.smallCnn(), Loss.CROSS_ENTROPY, SGD, options)) {
            IdxSource data = SampleBatches.images(12);
            List<Float> losses = new ArrayList<>();
            for (int step = 0; step < 3; step++) {
                SampleBatches.fill(trainer, data, step);
                losses.add(trainer.step());
            }
            return losses;
        }
    }
}
