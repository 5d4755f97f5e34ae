package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Attribute;
import dev.byodt.runtime.Tensor;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/** What the tests of tuned schedules (the operators' and the gradients') build their one-node cases from. */
public final class ScheduleCases {
    private ScheduleCases() {}

    /**
     * Values in [-2, 2) on a grid of 1/64, a few of them 0: exact in every datatype the tests use, so that the sums
     * rather than the conversions decide each result, and small enough that posit8's sums do not all saturate.
     */
    public static Tensor gridValues(long[] shape, Random random) {
        float[] v = new float[(int) Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < v.length; i++) v[i] = random.nextInt(8) == 0 ? 0 : (random.nextInt(256) - 128) / 64f;
        return Tensor.ofFloats(shape, v);
    }

    /**
     * Values in [-2, 2) with all of float32's significand bits: sums of them round in every datatype, float32's too,
     * so that the order a schedule sums in shows in its bits.
     */
    public static Tensor valuesWhoseSumsRound(long[] shape, Random random) {
        float[] v = new float[(int) Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < v.length; i++) v[i] = random.nextFloat() * 4 - 2;
        return Tensor.ofFloats(shape, v);
    }

    /** Node attributes from names and values: long[] (ints), Long (int) or Float (float). */
    public static Map<String, Attribute> attributes(Object... nameValue) {
        Map<String, Attribute> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            Object value = nameValue[i + 1];
            map.put((String) nameValue[i], switch (value) {
                case long[] ints -> new Attribute.IntsAttr(ints);
                case Long l -> new Attribute.IntAttr(l);
                case Float f -> new Attribute.FloatAttr(f);
                default -> throw new IllegalArgumentException(value.toString());
            });
        }
        return map;
    }
}
