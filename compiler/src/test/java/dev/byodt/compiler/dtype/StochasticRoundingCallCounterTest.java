package dev.byodt.compiler.dtype;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.lower.RandomCounters;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A program compiled with a call counter rounds each call with other random bits: call c of a model converting
 * 4,096 float32 values to bfloat16 (its input's conversion, the one rounding in it) gives, bit for bit, the exact
 * reference's stochastic rounding of each value with the random bits of the counter docs/datatypes.md states,
 * the key of the conversion's place plus the element's index plus c times SplitMix64's increment; call 0 gives
 * the bits of the same model compiled without a call counter, and a model without stochastic rounding takes no
 * call input.
 */
class StochasticRoundingCallCounterTest {
    private static final long SEED = 11;
    private static final int SIZE = 4_096;
    /** SplitMix64's increment, written out here as the documentation states it. */
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
    /** The kernel functions of a module, "k" + position + "." + operator + "." + kernel name (LlvmCodegen). */
    private static final Pattern KERNEL = Pattern.compile("define internal [^@]*@\"?k(\\d+)\\.[A-Za-z]+\\.([^\"(]*)\"?\\(");

    @ParameterizedTest
    @CsvSource({"16", "5"})
    void callCRoundsWithTheBitsOfItsCounters(int srBits) {
        Random random = new Random(srBits);
        float[] values = new float[SIZE];
        for (int i = 0; i < SIZE; i++) values[i] = (float) (random.nextGaussian() * Math.scalb(1.0, random.nextInt(20) - 10));
        Program identity = DatatypePrograms.elementwise("identity", "Identity", SIZE, ScalarType.REAL, x -> x);
        CompileOptions options = stochastic(srBits);
        MinifloatReference bfloat16 = new MinifloatReference(8, 7, MinifloatReference.Specials.IEEE, false, RoundingMode.STOCHASTIC, srBits);
        float[] withoutCounter = DatatypePrograms.run(identity, options, values);
        try (CompiledModule module = Compiler.compile(identity, options.withCallCounter(true)); HostModel model = Compiler.jit(module)) {
            assertEquals(RandomCounters.CALL_INPUT + ": int64[1]", model.inputs().getLast().toString(), "the call input, last");
            long key = StochasticRounding.key(SEED, conversionPlace(module.printIr()) + " call 0");
            for (long call : new long[]{0, 1, 2, 12_345_678_901L}) {
                Tensor counter = Tensor.zeros(ElementType.INT64, new long[]{1});
                counter.setLong(0, call);
                float[] rounded = model.run(List.of(Tensor.ofFloats(new long[]{SIZE}, values), counter)).getFirst().toFloatArray();
                for (int i = 0; i < SIZE; i++) {
                    bfloat16.useRandomBits(StochasticRounding.randomBits(key + i + call * GOLDEN_GAMMA, srBits));
                    int expected = bfloat16.fromDouble(values[i]), actual = Float.floatToRawIntBits(rounded[i]);
                    if (actual != expected << 16) {
                        fail(String.format("call %d: %s rounded to 0x%08X, expected 0x%04X0000", call, values[i], actual, expected));
                    }
                }
                if (call == 0) assertArrayEquals(withoutCounter, rounded, "call 0 rounds as the model without a call counter");
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"bfloat16, stochastic", "bfloat16, nearest", "float32, nearest"})
    void onlyStochasticRoundingTakesTheCallInput(String datatype, String rounding) {
        Program identity = DatatypePrograms.elementwise("identity", "Identity", 8, ScalarType.REAL, x -> x);
        CompileOptions options = CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype(datatype)
            .withOptions(datatype.equals("float32") ? Map.of() : Map.of("rounding", rounding))).withCallCounter(true);
        try (CompiledModule module = Compiler.compile(identity, options)) {
            List<String> inputs = module.signature().inputs().stream().map(TensorSpec::name).toList();
            assertEquals(rounding.equals("stochastic") ? List.of("x", RandomCounters.CALL_INPUT) : List.of("x"), inputs);
        }
    }

    private static CompileOptions stochastic(int srBits) {
        return CompileOptions.host().withDatatypes(DatatypeChoice.float32().withDatatype("bfloat16")
            .withOptions(Map.of("rounding", "stochastic", StochasticRounding.BITS_OPTION, Integer.toString(srBits))).withSeed(SEED));
    }

    /** The place of the input's conversion kernel ("to bfloat16 x"), as RandomCounters names it: its position and name. */
    private static String conversionPlace(String ir) {
        Matcher m = KERNEL.matcher(ir);
        String place = null;
        while (m.find()) {
            if (m.group(2).startsWith("to ") && m.group(2).endsWith(" x")) {
                assertTrue(place == null, "one conversion of x");
                place = "kernel " + m.group(1) + " " + m.group(2);
            }
        }
        if (place == null) fail("no conversion kernel of x in the module");
        return place;
    }
}
