package dev.byodt.compiler.dtype;

import dev.byodt.compiler.dtype.reference.BlockReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference;
import dev.byodt.compiler.dtype.reference.MinifloatReference.Specials;
import dev.byodt.compiler.dtype.reference.Rational;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Block quantization of every built-in block datatype, under every scale rule, bit for bit against
 * {@link BlockReference}: edge-case blocks (zeros, NaN, infinities, the spec's clipping example, float32's
 * extremes, ties) and seeded random blocks of narrow and wide dynamic range.
 */
@Execution(ExecutionMode.CONCURRENT)
class BlockQuantizationTest {
    private static final DatatypeRegistry REGISTRY = DatatypeChoice.builtInRegistry();
    private static final int RANDOM_TENSORS = 40, BLOCKS_PER_TENSOR = 16;

    private static final Map<String, List<Rational>> VALUES = BlockReference.BUILT_IN_VALUES;

    @Test
    void everyBuiltInFormatUnderEveryRuleMatchesTheReference() {
        int blocks = 0;
        for (BlockDatatypeName builtIn : BlockDatatypeName.builtIns().values()) {
            for (ScaleRule rule : ScaleRule.values()) {
                BlockDatatypeName name = new BlockDatatypeName(builtIn.element(), builtIn.blockSize(), builtIn.scale(), rule, builtIn.tensorScale());
                BlockFormat format = BlockFormat.resolve(name, REGISTRY);
                BlockReference reference = new BlockReference(VALUES.get(name.element().toString()), VALUES.get(name.scale().toString()),
                    rule.optionName());
                for (float[] tensor : tensors(name, format)) blocks += checkTensor(name, format, reference, tensor);
            }
        }
        System.out.println("BlockQuantizationTest: " + blocks + " blocks checked against the exact reference");
    }

    /** Elements rounded in --rounding's other deterministic modes, as the reference rounds in them; not stochastically. */
    @Test
    void elementsRoundInEveryDeterministicMode() {
        for (String spelling : List.of("mxfp8e4m3", "mxfp6e2m3", "mxint8", "nvfp4")) {
            BlockDatatypeName name = DatatypeName.parseBlock(spelling).orElseThrow();
            for (RoundingMode mode : List.of(RoundingMode.NEAREST_AWAY, RoundingMode.TOWARD_ZERO, RoundingMode.UP, RoundingMode.DOWN, RoundingMode.ODD)) {
                BlockFormat format = BlockFormat.resolve(name, REGISTRY).withElementRounding(mode.optionName());
                BlockReference reference = new BlockReference(VALUES.get(name.element().toString()), VALUES.get(name.scale().toString()),
                    name.rule().optionName(), mode);
                // The edge tensor and 8 seeded ones: each mode's steps, cheaply.
                for (float[] tensor : tensors(name, format).subList(0, 9)) checkTensor(name, format, reference, tensor);
            }
            ByodtException truncate = assertThrows(ByodtException.class,
                () -> BlockFormat.resolve(name, REGISTRY).withElementRounding("truncate"));
            assertEquals("block datatype " + name + ": its elements round in the --rounding modes nearest, nearest-away, toward-zero, up, down, odd, "
                + "stochastic, not truncate", truncate.getMessage());
        }
    }

    @Test
    void generalSpellingsMatchTheReference() {
        checkSpelling("block[custom[fp6e2m3]6,8,ue4m3,rceil,tensor]", BlockReference.minifloat(new MinifloatReference(2, 3, Specials.NONE, false)),
            VALUES.get("custom[ue4m3]8"));
        checkSpelling("block[bfloat16,64,e8m0,midmax]", BlockReference.minifloat(MinifloatReference.ieee(8, 7)), VALUES.get("custom[e8m0]8"));
        checkSpelling("block[fxp16_12,16,fp8e4m3,nearest,tensor]", BlockReference.fixedPoint(16, 12), VALUES.get("custom[fp8e4m3]8"));
    }

    /**
     * Wide elements (bfloat16, float16) under every rule with an E8M0 scale, and float16 under UE4M3 onto its grid, with
     * and without a tensor scale, and bfloat16 under tensor scales capped at 2^48: the edge tensor and 2 seeded ones (all 40 with -Pexhaustive).
     */
    @Test
    void wideElementsUnderEveryRuleMatchTheReference() {
        checkWideElements(3);
    }

    @Tag("exhaustive")
    @Test
    void wideElementsOnEverySeededTensor() {
        checkWideElements(RANDOM_TENSORS + 1);
    }

    private static void checkWideElements(int tensors) {
        // bfloat16 and E8M0 under a tensor scale: L * S beyond 2^48, so the tensor scale divides by 2^48.
        List<String> spellings = new ArrayList<>(List.of("block[float16,16,ue4m3,nearest]", "block[float16,16,ue4m3,rceil,tensor]",
            "block[bfloat16,16,ue4m3,nearest,tensor]", "block[bfloat16,32,e8m0,floor,tensor]"));
        for (String element : List.of("bfloat16", "float16")) {
            for (ScaleRule rule : ScaleRule.values()) spellings.add("block[" + element + ",32,e8m0," + rule.optionName() + "]");
        }
        for (String spelling : spellings) {
            BlockDatatypeName name = DatatypeName.parseBlock(spelling).orElseThrow();
            BlockFormat format = BlockFormat.resolve(name, REGISTRY);
            BlockReference reference = BlockReference.of(name.element().toString(), name.scale().toString(), name.rule().optionName(), RoundingMode.NEAREST_EVEN);
            for (float[] tensor : tensors(name, format).subList(0, tensors)) checkTensor(name, format, reference, tensor);
        }
    }

    private static void checkSpelling(String spelling, List<Rational> elements, List<Rational> scales) {
        BlockDatatypeName name = DatatypeName.parseBlock(spelling).orElseThrow();
        BlockReference reference = new BlockReference(elements, scales, name.rule().optionName());
        BlockFormat format = BlockFormat.resolve(name, REGISTRY);
        for (float[] tensor : tensors(name, format)) checkTensor(name, format, reference, tensor);
    }

    /**
     * Posit elements against the reference's posits (listed pattern by pattern and rounded at the (N+1)-bit posits
     * between them, {@link dev.byodt.compiler.dtype.posit.PositReference}) under an E8M0 scale: posit8 with every es
     * under every scale rule, and posits of 6, 12 and 16 bits under the floor rule, on the edge tensor, 10 seeded
     * ones and tensors of every (N+1)-bit posit (each posit and each midpoint) and its float32 neighbours, each
     * block led by maxpos.
     */
    @Test
    void positElementsUnderEveryRuleMatchTheReference() {
        int blocks = 0;
        for (String element : List.of("custom[posit_es0]8", "custom[posit_es1]8", "custom[posit]8", "custom[posit_es3]8")) {
            for (ScaleRule rule : ScaleRule.values()) blocks += checkPositElement(element, rule, 11);
        }
        for (String element : List.of("custom[posit_es1]6", "custom[posit]12", "custom[posit_es1]16")) blocks += checkPositElement(element, ScaleRule.FLOOR, 11);
        System.out.println("BlockQuantizationTest: " + blocks + " blocks of posits checked against the exact reference");
    }

    /** Posits of 6, 12 and 16 bits under every rule, and every posit element on all 40 seeded tensors. */
    @Tag("exhaustive")
    @Test
    void positElementsOfOtherWidthsUnderEveryRule() {
        for (String element : List.of("custom[posit_es0]8", "custom[posit_es1]8", "custom[posit]8", "custom[posit_es3]8", "custom[posit_es1]6",
                "custom[posit_es3]6", "custom[posit]12", "custom[posit_es1]16", "custom[posit_es0]16")) {
            for (ScaleRule rule : ScaleRule.values()) checkPositElement(element, rule, RANDOM_TENSORS + 1);
        }
    }

    /** The edge tensor, {@code tensors - 1} seeded ones and the posit points, of the element under an E8M0 scale by the rule; the blocks checked. */
    private static int checkPositElement(String element, ScaleRule rule, int tensors) {
        BlockDatatypeName name = new BlockDatatypeName(DatatypeName.parse(element), 32, DatatypeName.parse("custom[e8m0]8"), rule, false);
        BlockFormat format = BlockFormat.resolve(name, REGISTRY);
        BlockReference reference = BlockReference.of(element, "custom[e8m0]8", rule.optionName(), RoundingMode.NEAREST_EVEN);
        List<float[]> checked = new ArrayList<>(tensors(name, format).subList(0, tensors));
        checked.add(positPoints((PositGrid) format.element(), format.blockSize()));
        int blocks = 0;
        for (float[] tensor : checked) blocks += checkTensor(name, format, reference, tensor);
        return blocks;
    }

    /** Posit elements in the other deterministic modes. */
    @Test
    void positElementsRoundInTheOtherDeterministicModes() {
        for (String element : List.of("custom[posit]8", "custom[posit_es0]6")) {
            BlockDatatypeName name = new BlockDatatypeName(DatatypeName.parse(element), 32, DatatypeName.parse("custom[e8m0]8"), ScaleRule.FLOOR, false);
            for (RoundingMode mode : List.of(RoundingMode.NEAREST_AWAY, RoundingMode.TOWARD_ZERO, RoundingMode.UP, RoundingMode.DOWN, RoundingMode.ODD)) {
                BlockFormat format = BlockFormat.resolve(name, REGISTRY).withElementRounding(mode.optionName());
                BlockReference reference = BlockReference.of(element, "custom[e8m0]8", "floor", mode);
                List<float[]> tensors = new ArrayList<>(tensors(name, format).subList(0, 9));
                tensors.add(positPoints((PositGrid) format.element(), format.blockSize()));
                for (float[] tensor : tensors) checkTensor(name, format, reference, tensor);
            }
        }
    }

    /**
     * Posit elements rounded stochastically step by their distance from their neighbours, not by their bit string:
     * posit8 es 2's 2^22 lies a fifth of the way from 2^20 to 2^24 (its cut bits would read a half), so with 4 random
     * bits it goes up when floor(16 / 5) = 3 and the random bits r carry, r >= 13; below minpos it stays minpos and
     * from maxpos maxpos, whatever the bits.
     */
    @Test
    void positElementsRoundStochasticallyByTheirDistanceFromTheirNeighbours() {
        BlockFormat format = BlockFormat.resolve(DatatypeName.parseBlock("block[custom[posit]8,4,e8m0,floor]").orElseThrow(), REGISTRY)
            .withElementRounding("stochastic").withRandomBits(4, 0);
        float[] values = {0x1p24f, 0x1p22f, 0x1p-30f, 0x1.8p24f};
        for (int random = 0; random < 16; random++) {
            long counter = counterWithRandomBits(random, 4);
            QuantizedBlock q = format.quantize(values, 0, 4, 1, j -> counter);
            assertEquals(1.0, q.scale());
            assertEquals(random >= 13 ? 0x1p24 : 0x1p20, q.element(1), "2^22 with random bits " + random);
            assertEquals(0x1p-24, q.element(2), "below minpos with random bits " + random);
            assertEquals(0x1p24, q.element(3), "above maxpos with random bits " + random);
        }
    }

    /** The first counter whose {@code bits} random bits are {@code random}. */
    private static long counterWithRandomBits(int random, int bits) {
        long counter = 0;
        while (StochasticRounding.randomBits(counter, bits) != random) counter++;
        return counter;
    }

    /**
     * The posit's own examples of rounding: below minpos to minpos and from maxpos up to maxpos (never 0 or NaR),
     * posit8 es 2's midpoint 2^22 between 2^20 and 2^24 (the bit string's, not their mean) to the even pattern, 2^20.
     */
    @Test
    void positElementsRoundOnTheirBitString() {
        BlockFormat format = BlockFormat.resolve(DatatypeName.parseBlock("block[custom[posit]8,4,e8m0,floor]").orElseThrow(), REGISTRY);
        QuantizedBlock q = format.quantize(new float[] {0x1p24f, 0x1p-30f, -0x1p22f, Math.nextUp(0x1p22f)}, 0, 4, 1);
        assertEquals(1.0, q.scale());
        assertEquals(0x1p-24, q.element(1));
        assertEquals(-0x1p20, q.element(2));
        assertEquals(0x1p24, q.element(3));
        QuantizedBlock clipped = format.quantize(new float[] {0x1.fp24f, -0x1.8p24f, 0, -0f}, 0, 4, 1);
        assertEquals(0x1p24, clipped.element(0));
        assertEquals(-0x1p24, clipped.element(1));
        assertEquals(-0.0, clipped.element(3));
    }

    /** Every (N+1)-bit posit (a posit or a midpoint between two) and its float32 neighbours, with alternating signs, in blocks led by maxpos. */
    private static float[] positPoints(PositGrid posit, int blockSize) {
        PositGrid wider = new PositGrid(posit.bits() + 1, posit.es());
        List<Float> values = new ArrayList<>();
        long stride = Math.max(1, wider.largestPattern() / 4096);
        for (long p = 1; p <= wider.largestPattern(); p += stride) {
            float v = (float) wider.value(p);
            values.addAll(List.of(v, -Math.nextDown(v), Math.nextUp(v)));
        }
        values.addAll(List.of((float) posit.smallest() / 2, (float) -posit.smallest() * 0.75f, Float.MIN_VALUE));
        int perBlock = blockSize - 1;
        float[] tensor = new float[(values.size() + perBlock - 1) / perBlock * blockSize];
        for (int i = 0, next = 0; i < tensor.length; i++) tensor[i] = i % blockSize == 0 ? (float) posit.largest() : next < values.size() ? values.get(next++) : 0f;
        return tensor;
    }

    /**
     * OCP MX v1.0's example: with 960 in an MXFP8 E4M3 block the scale is 2, and 957/2 = 478.5 clips to 448;
     * the rules that avoid clipping choose 4, where 957 rounds to 960.
     */
    @Test
    void theFloorRuleClipsTheBlockMaximum() {
        BlockFormat format = BlockFormat.resolve(DatatypeName.parseBlock("mxfp8e4m3").orElseThrow(), REGISTRY);
        float[] block = new float[32];
        block[0] = 960;
        block[1] = 957;
        block[2] = -1;
        QuantizedBlock q = format.quantize(block, 0, 32, 1);
        assertEquals(2.0, q.scale());
        assertEquals(896.0, q.value(0));
        assertEquals(896.0, q.value(1));
        assertEquals(-1.0, q.value(2));
        for (ScaleRule unclipped : new ScaleRule[] {ScaleRule.CEIL, ScaleRule.RCEIL, ScaleRule.MIDMAX}) {
            BlockDatatypeName name = new BlockDatatypeName(format.name().element(), 32, format.name().scale(), unclipped, false);
            QuantizedBlock wider = BlockFormat.resolve(name, REGISTRY).quantize(block, 0, 32, 1);
            assertEquals(4.0, wider.scale(), unclipped.optionName());
            assertEquals(960.0, wider.value(0), unclipped.optionName());
            assertEquals(960.0, wider.value(1), unclipped.optionName());
        }
    }

    @Test
    void zeroBlocksTakeTheSmallestScaleAndSpecialsMakeTheBlockNaN() {
        BlockFormat format = BlockFormat.resolve(DatatypeName.parseBlock("mxfp4").orElseThrow(), REGISTRY);
        float[] zeros = new float[32];
        zeros[3] = -0f;
        QuantizedBlock zero = format.quantize(zeros, 0, 32, 1);
        assertEquals(Math.scalb(1.0, -127), zero.scale());
        assertEquals(-0.0, zero.value(3));
        for (float special : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
            float[] block = new float[32];
            block[0] = 1;
            block[5] = special;
            QuantizedBlock q = format.quantize(block, 0, 32, 1);
            for (int i = 0; i < 32; i++) assertTrue(Double.isNaN(q.value(i)), special + " at 5 leaves element " + i + " a number");
        }
    }

    private static int checkTensor(BlockDatatypeName name, BlockFormat format, BlockReference reference, float[] tensor) {
        Rational expectedTensorScale = name.tensorScale() ? reference.tensorScale(tensor) : Rational.of(1);
        double tensorScale = format.tensorScale(tensor);
        assertEquals(0, Rational.of(tensorScale).compareTo(expectedTensorScale), name + ": tensor scale " + tensorScale);
        int blocks = 0;
        for (int from = 0; from < tensor.length; from += format.blockSize(), blocks++) {
            int count = Math.min(format.blockSize(), tensor.length - from);
            float[] values = java.util.Arrays.copyOfRange(tensor, from, from + count);
            compare(name, values, format.quantize(tensor, from, count, tensorScale), reference.quantize(values, expectedTensorScale));
        }
        return blocks;
    }

    private static void compare(BlockDatatypeName name, float[] values, QuantizedBlock actual, BlockReference.Block expected) {
        String where = name + " block " + java.util.Arrays.toString(values);
        if (expected.scale() == null) {
            assertTrue(Double.isNaN(actual.scale()), where + ": scale " + actual.scale() + ", expected NaN");
            return;
        }
        if (Double.isNaN(actual.scale()) || Rational.of(actual.scale()).compareTo(expected.scale()) != 0) {
            fail(where + ": scale " + actual.scale() + ", expected " + expected.scale().toBigDecimal(20));
        }
        for (int i = 0; i < values.length; i++) {
            double element = actual.element(i);
            boolean sameValue = Rational.of(Math.abs(element)).compareTo(expected.elements()[i]) == 0;
            boolean sameSign = (Double.doubleToRawLongBits(element) < 0) == expected.negative()[i];
            if (!sameValue || !sameSign) {
                fail(where + ": element " + i + " (" + values[i] + ") is " + element + ", expected "
                    + (expected.negative()[i] ? "-" : "") + expected.elements()[i].toBigDecimal(20));
            }
        }
    }

    /** Edge-case tensors, then seeded random ones; each holds whole blocks but the last, which is partial. */
    private static List<float[]> tensors(BlockDatatypeName name, BlockFormat format) {
        int size = name.blockSize();
        List<float[]> tensors = new ArrayList<>();
        float[] edges = new float[size * 12 + size / 2 + 1];
        fill(edges, 0, size, i -> i % 2 == 0 ? 0f : -0f);
        fill(edges, size, size, i -> i == 3 ? 960f : i == 4 ? 957f : i == 5 ? -450f : i);
        fill(edges, 2 * size, size, i -> i % 3 == 0 ? Float.MAX_VALUE : -Float.MIN_VALUE * i);
        fill(edges, 3 * size, size, i -> Float.MIN_VALUE * i);
        fill(edges, 4 * size, size, i -> i == 0 ? 1024f : Math.nextDown(1024f) / (i + 1));
        fill(edges, 5 * size, size, i -> i == 0 ? Math.nextDown(1024f) : 3f * i / 8);
        fill(edges, 6 * size, size, i -> i == 7 ? Float.NaN : i);
        fill(edges, 7 * size, size, i -> i == 0 ? Float.NEGATIVE_INFINITY : -i);
        fill(edges, 8 * size, size, i -> (float) (format.element().largest() * (i + 1) / 4));
        fill(edges, 9 * size, size, i -> (float) (format.element().midpointAboveLargest() * (i % 2 == 0 ? 1 : -1)));
        fill(edges, 10 * size, size, i -> Math.scalb((float) (i - size / 2), -130));
        fill(edges, 11 * size, size, i -> i == 0 ? 6f * 448f * 3f : (float) (i - size / 2) / 64);
        fill(edges, 12 * size, edges.length - 12 * size, i -> 1f / (i + 1));
        tensors.add(edges);
        SplittableRandom random = new SplittableRandom(name.toString().hashCode() * 31L + name.rule().ordinal());
        for (int t = 0; t < RANDOM_TENSORS; t++) {
            float[] tensor = new float[size * BLOCKS_PER_TENSOR + random.nextInt(size)];
            int center = random.nextInt(-140, 120);
            int spread = random.nextBoolean() ? 4 : 40;
            boolean ties = random.nextInt(4) == 0;
            for (int i = 0; i < tensor.length; i++) {
                int exponent = Math.clamp(center + random.nextInt(-spread, spread + 1), -149, 127);
                float value = ties ? Math.scalb((float) random.nextInt(-64, 65), Math.min(exponent, 120))
                    : Math.scalb(1f + random.nextFloat(), exponent);
                tensor[i] = random.nextInt(20) == 0 ? 0f : random.nextBoolean() ? -value : value;
            }
            tensors.add(tensor);
        }
        return tensors;
    }

    private interface ValueAt { float at(int i); }

    private static void fill(float[] tensor, int from, int count, ValueAt value) {
        for (int i = 0; i < count; i++) tensor[from + i] = value.at(i);
    }
}
