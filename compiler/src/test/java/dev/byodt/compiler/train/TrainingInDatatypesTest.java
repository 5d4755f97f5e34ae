package dev.byodt.compiler.train;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.data.IdxSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The training step compiles and runs in other datatypes and computes in them: after SGD steps in bfloat16
 * or float16 every weight is a value of that format (checked with Java's own float16 conversion and
 * bfloat16's bit layout, not with byodt's: {@link DatatypeValues}); in every datatype the first step's loss,
 * computed in the datatype, is near float32's (as near as the format's precision lets a forward pass of 4 layers be; in
 * fxp16_12 too, whose range ends at 8, below the batch's summed losses) and no loss is NaN.
 */
@Execution(ExecutionMode.CONCURRENT)
class TrainingInDatatypesTest {
    private static final int STEPS = 5;
    private static float float32FirstLoss;

    @BeforeAll
    static void trainInFloat32() {
        List<Float> losses = new ArrayList<>();
        train("float32", AccumulationMode.DTYPE, losses).close();
        float32FirstLoss = losses.getFirst();
    }

    @ParameterizedTest
    @CsvSource({"bfloat16, dtype, 0.02", "float16, dtype, 0.02", "custom[posit]16, dtype, 0.02",
        "custom[fp8e4m3]8, dtype, 0.25", "fxp16_12, dtype, 0.02", "custom[posit]16, exact, 0.02", "bfloat16, exact, 0.02", "fxp16_8, exact, 0.02"})
    void trainsInTheDatatype(String datatype, String accumulation, double relativeTolerance) {
        List<Float> losses = new ArrayList<>();
        Map<String, Tensor> weights;
        try (Trainer trainer = train(datatype, AccumulationMode.parse(accumulation), losses)) {
            weights = trainer.weights();
        }
        assertEquals(float32FirstLoss, losses.getFirst(), relativeTolerance * float32FirstLoss, datatype + " first step's loss");
        losses.forEach(loss -> assertTrue(Float.isFinite(loss), datatype + " losses " + losses));
        if (datatype.equals("bfloat16") || datatype.equals("float16")) {
            for (Tensor w : weights.values()) {
                for (float v : w.toFloatArray()) assertTrue(DatatypeValues.representable(datatype, v), datatype + " weight " + v);
            }
        }
    }

    private static Trainer train(String datatype, AccumulationMode accumulation, List<Float> losses) {
        Optimizer sgd = new Optimizer(Optimizer.Kind.SGD, 0.05, 0, 0, 0.9, 0.999, 1e-8);
        Trainer trainer = Trainer.compile(SampleBatches.smallCnn(), Loss.CROSS_ENTROPY, sgd,
            CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype).withAccumulation(accumulation)));
        IdxSource data = SampleBatches.images(4 * STEPS);
        for (int step = 0; step < STEPS; step++) {
            SampleBatches.fill(trainer, data, step);
            losses.add(trainer.step());
        }
        return trainer;
    }
}
