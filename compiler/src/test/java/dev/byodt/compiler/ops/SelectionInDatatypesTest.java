package dev.byodt.compiler.ops;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.conformance.GraphExecutor;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static dev.byodt.compiler.ops.NodeCase.floats;
import static dev.byodt.compiler.ops.NodeCase.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * ArgMax, ArgMin and TopK compiled in custom datatypes compare through the datatype's own order: values every
 * datatype holds exactly select alike, and a NaN, which a posit holds as NaR (below every real), ranks as
 * the posit order says, where in float32 it wins.
 */
class SelectionInDatatypesTest {
    /** Values that bfloat16, posit16 and fxp16_13 all hold exactly, their order far from every rounding. */
    private static final Tensor X = floats(new long[] {2, 4}, 0.25f, -3, 1.5f, 1.25f, 2, -0.5f, 2, 3.75f);

    @ParameterizedTest
    @ValueSource(strings = {"float32", "bfloat16", "custom[posit]16", "fxp16_13"})
    void selectionFollowsTheValuesInEveryDatatype(String datatype) {
        GraphExecutor compiled = GraphExecutor.compiled(CompileOptions.host().withDatatype(datatype));
        assertArrayEquals(new long[] {2, 3}, new NodeCase("ArgMax", 13).attr("axis", 1).attr("keepdims", 0).input(X).run(compiled)
            .getFirst().toLongArray());
        assertArrayEquals(new long[] {1, 1}, new NodeCase("ArgMin", 13).attr("axis", -1).attr("keepdims", 0).input(X).run(compiled)
            .getFirst().toLongArray());
        List<Tensor> top = new NodeCase("TopK", 11).outputs(2).input(X).constant(longs(3)).run(compiled);
        assertArrayEquals(new float[] {1.5f, 1.25f, 0.25f, 3.75f, 2, 2}, top.get(0).toFloatArray());
        assertArrayEquals(new long[] {2, 3, 0, 3, 0, 2}, top.get(1).toLongArray());
    }

    @Test
    void nanWinsInFloat32AndNaRRanksLowestInPosits() {
        Tensor x = floats(1, Float.NaN, 2);
        GraphExecutor float32 = GraphExecutor.compiled(CompileOptions.host());
        GraphExecutor posit16 = GraphExecutor.compiled(CompileOptions.host().withDatatype("custom[posit]16"));
        assertArrayEquals(new long[] {1}, new NodeCase("ArgMax", 13).input(x).run(float32).getFirst().toLongArray());
        assertArrayEquals(new long[] {2}, new NodeCase("ArgMax", 13).input(x).run(posit16).getFirst().toLongArray());
        assertArrayEquals(new long[] {1}, new NodeCase("ArgMin", 13).input(x).run(posit16).getFirst().toLongArray());
        List<Tensor> top = new NodeCase("TopK", 11).outputs(2).input(x).constant(longs(3)).run(posit16);
        assertArrayEquals(new float[] {2, 1, Float.NaN}, top.get(0).toFloatArray());
        assertArrayEquals(new long[] {2, 0, 1}, top.get(1).toLongArray());
        assertArrayEquals(new long[] {1, 2, 0}, new NodeCase("TopK", 11).outputs(2).input(x).constant(longs(3)).run(float32)
            .get(1).toLongArray());
    }
}
