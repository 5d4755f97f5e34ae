package dev.byodt.compiler.dtype.reference;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.posit.PositReference;

import java.math.BigInteger;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Block quantization written from the definitions in docs/datatypes.md ("Block formats"), in exact rationals
 * and over the element and scale datatypes' values listed one by one (every positive finite bit pattern,
 * decoded by {@link MinifloatReference}, or every k/2^P of fixed point), not over a grid formula: the
 * nearest value is found among the listed ones; of two equally near, the one that is an even multiple of their
 * distance (the even significand: for E8M0, whose values are all 1 * 2^k, 1.5 * 2^k goes up to 2^(k+1)).
 * Elements round so, or in another deterministic {@link RoundingMode} of the signed value: of the listed
 * neighbours of the magnitude, the nearer (ties to the larger magnitude), the smaller magnitude, the larger or
 * the smaller value, or the one at an odd position of the list that starts with 0 (the odd significand).
 * Posit elements are listed pattern by pattern by {@link PositReference}, which also rounds them: between the
 * listed neighbours by comparison with the (N+1)-bit posit between them (section 4.1), to minpos and maxpos at the
 * ends in every mode. Elements of 32 bits (float32, every positive finite float decoded by Java's own
 * {@link Float#intBitsToFloat}; fixed point's 2^31 - 1 magnitudes) are listed lazily, each value computed when read.
 */
public final class BlockReference {
    /** A block's scale (null for NaN) and its elements, each with the sign of its input. */
    public record Block(Rational scale, Rational[] elements, boolean[] negative) {}

    /** The listed values of each element and scale datatype of the built-in block datatypes, by spelling. */
    public static final Map<String, List<Rational>> BUILT_IN_VALUES = Map.of(
        "custom[fp8e4m3]8", minifloat(new MinifloatReference(4, 3, MinifloatReference.Specials.FN, false)),
        "custom[fp8e5m2]8", minifloat(MinifloatReference.ieee(5, 2)),
        "custom[fp6e3m2]6", minifloat(new MinifloatReference(3, 2, MinifloatReference.Specials.NONE, false)),
        "custom[fp6e2m3]6", minifloat(new MinifloatReference(2, 3, MinifloatReference.Specials.NONE, false)),
        "custom[fp4e2m1]4", minifloat(new MinifloatReference(2, 1, MinifloatReference.Specials.NONE, false)),
        "fxp8_6", fixedPoint(8, 6),
        "custom[e8m0]8", minifloat(new MinifloatReference(8, 0, MinifloatReference.Specials.FN, true)),
        "custom[ue4m3]8", minifloat(new MinifloatReference(4, 3, MinifloatReference.Specials.FN, true)));

    /** The listed values of the IEEE-style scalar datatypes that can be block elements, by spelling. */
    public static final Map<String, List<Rational>> WIDE_ELEMENT_VALUES = Map.of(
        "bfloat16", minifloat(MinifloatReference.ieee(8, 7)),
        "float16", minifloat(MinifloatReference.ieee(5, 10)));

    /** Fixed point's spelling, fxpN_P. */
    private static final Pattern FIXED_POINT = Pattern.compile("fxp([0-9]+)_([0-9]+)");

    /** A posit element's spelling: custom[posit]N (es 2) or custom[posit_esE]N. */
    private static final Pattern POSIT = Pattern.compile("custom\\[posit(?:_es(\\d))?]([0-9]+)");

    private final List<Rational> elements;
    private final List<Rational> scales;
    private final String rule;
    private final RoundingMode elementRounding;
    /** The posit elements' rounding, or null for elements rounded among the listed values. */
    private final PositReference posit;
    /** M of the even rule ({@link #countFractionBits}). */
    private final int elementFractionBits;

    public BlockReference(List<Rational> elements, List<Rational> scales, String rule) {
        this(elements, scales, rule, RoundingMode.NEAREST_EVEN);
    }

    public BlockReference(List<Rational> elements, List<Rational> scales, String rule, RoundingMode elementRounding) {
        this(elements, scales, rule, elementRounding, null);
    }

    private BlockReference(List<Rational> elements, List<Rational> scales, String rule, RoundingMode elementRounding, PositReference posit) {
        this.elements = sorted(elements);
        this.scales = sorted(scales);
        this.rule = rule;
        this.elementRounding = elementRounding;
        this.posit = posit;
        this.elementFractionBits = countFractionBits();
    }

    /**
     * The reference of a block datatype with these element and scale spellings: a posit element, float32, fixed
     * point, or an element of {@link #BUILT_IN_VALUES} or {@link #WIDE_ELEMENT_VALUES}, and a scale of
     * {@link #BUILT_IN_VALUES}.
     */
    public static BlockReference of(String element, String scale, String rule, RoundingMode elementRounding) {
        Matcher positElement = POSIT.matcher(element), fixedPoint = FIXED_POINT.matcher(element);
        if (!positElement.matches()) {
            List<Rational> elements = element.equals("float32") ? float32()
                : fixedPoint.matches() ? fixedPoint(Integer.parseInt(fixedPoint.group(1)), Integer.parseInt(fixedPoint.group(2)))
                : WIDE_ELEMENT_VALUES.containsKey(element) ? WIDE_ELEMENT_VALUES.get(element) : BUILT_IN_VALUES.get(element);
            return new BlockReference(elements, BUILT_IN_VALUES.get(scale), rule, elementRounding);
        }
        int es = positElement.group(1) == null ? 2 : Integer.parseInt(positElement.group(1));
        PositReference posits = new PositReference(Integer.parseInt(positElement.group(2)), es, elementRounding);
        List<Rational> values = posits.positiveValues();
        return new BlockReference(new Ascending(values.size(), values::get), BUILT_IN_VALUES.get(scale), rule, elementRounding, posits);
    }

    /** The positive finite values of a minifloat. */
    public static List<Rational> minifloat(MinifloatReference format) {
        List<Rational> points = new ArrayList<>();
        for (int a = 0; a < format.count(); a++) {
            if ((a & format.signBit()) != 0 || !format.isFinite(a) || format.value(a).signum() <= 0) continue;
            points.add(format.value(a));
        }
        return points;
    }

    /** k / 2^P for k = 1 .. 2^(N-1) - 1: MX INT8's symmetric magnitudes for N = 8, P = 6. */
    public static List<Rational> fixedPoint(int bits, int fractionBits) {
        return new Ascending((int) ((1L << (bits - 1)) - 1), i -> Rational.scaled(BigInteger.valueOf(i + 1L), -fractionBits));
    }

    /** float32's positive finite values: the floats of the bit patterns 1 .. 0x7f7fffff, ascending as their patterns. */
    public static List<Rational> float32() { return new Ascending(0x7f7fffff, i -> exact(Float.intBitsToFloat(i + 1))); }

    /** Values listed in ascending order, each computed from its index when read. */
    private static final class Ascending extends AbstractList<Rational> implements RandomAccess {
        private final int size;
        private final IntFunction<Rational> value;

        Ascending(int size, IntFunction<Rational> value) {
            this.size = size;
            this.value = value;
        }

        @Override
        public Rational get(int index) {
            if (index < 0 || index >= size) throw new IndexOutOfBoundsException(index);
            return value.apply(index);
        }

        @Override
        public int size() { return size; }
    }

    private static List<Rational> sorted(List<Rational> points) {
        if (points instanceof Ascending) return points;
        List<Rational> copy = new ArrayList<>(points);
        copy.sort(Comparator.naturalOrder());
        return copy;
    }

    /** The element's positive values, ascending. */
    public List<Rational> elements() { return elements instanceof Ascending ? elements : List.copyOf(elements); }

    /** The element value next above {@code v} (0 or an element), or null above the largest. */
    public Rational elementAbove(Rational v) {
        long index = notBelowWithZero(v);
        if (index < countWithZero() && withZero(index).compareTo(v) == 0) index++;
        return index < countWithZero() ? withZero(index) : null;
    }

    /**
     * The values an element rounds among are 0 and the elements: value i of them (long indices, as fixed point of 32
     * bits has 2^31 of them, one more than a list holds).
     */
    private Rational withZero(long i) { return i == 0 ? Rational.ZERO : elements.get((int) (i - 1)); }

    private long countWithZero() { return elements.size() + 1L; }

    /** The index among 0 and the elements of the first not below q, or their count when every one is. */
    private long notBelowWithZero(Rational q) { return q.signum() <= 0 ? 0 : 1L + firstNotBelow(elements, q); }

    public Rational largestElement() { return elements.getLast(); }

    public Rational largestScale() { return scales.getLast(); }

    /**
     * A format's float32 tensor scale over {@code values}: the largest finite magnitude over (largest element *
     * the largest scale the rule can choose: the largest listed scale for rceil and nearest, the largest listed
     * power of two for the others; or 2^48 where that product is larger), rounded to the nearest float32 (ties to
     * even), or 1 when that is 0.
     */
    public Rational tensorScale(float[] values) {
        Rational amax = Rational.ZERO;
        for (float v : values) {
            if (Float.isFinite(v) && exact(Math.abs(v)).compareTo(amax) > 0) amax = exact(Math.abs(v));
        }
        if (amax.signum() == 0) return Rational.of(1);
        boolean anyScale = rule.equals("rceil") || rule.equals("nearest");
        Rational largestChosen = anyScale ? largestScale() : scales.stream().filter(BlockReference::isPowerOfTwo).reduce((a, b) -> b).orElseThrow();
        Rational divisor = largestElement().multiply(largestChosen);
        Rational most = Rational.scaled(BigInteger.ONE, 48);
        Rational quotient = amax.divide(divisor.compareTo(most) > 0 ? most : divisor);
        int exponent = Math.max(quotient.floorLog2(), -126);
        BigInteger significand = Rounding.nearestEven(quotient.multiply(Rational.scaled(BigInteger.ONE, 23 - exponent)));
        return significand.signum() == 0 ? Rational.of(1) : Rational.scaled(significand, exponent - 23);
    }

    /** The block {@code values} quantized under the tensor scale {@code t}. */
    public Block quantize(float[] values, Rational t) {
        int n = values.length;
        boolean[] negative = new boolean[n];
        for (int i = 0; i < n; i++) negative[i] = Float.floatToRawIntBits(values[i]) < 0;
        Rational amax = Rational.ZERO;
        for (float v : values) {
            if (!Float.isFinite(v)) return new Block(null, new Rational[n], negative);
            Rational magnitude = exact(Math.abs(v));
            if (magnitude.compareTo(amax) > 0) amax = magnitude;
        }
        Rational scale = amax.signum() == 0 ? scales.getFirst() : scale(amax.divide(t));
        Rational divisor = scale.multiply(t);
        Rational[] rounded = new Rational[n];
        for (int i = 0; i < n; i++) rounded[i] = element(exact(Math.abs(values[i])).divide(divisor), negative[i]);
        return new Block(scale, rounded, negative);
    }

    /** A float's exact value as a fraction over a power of two (Rational.of(double) would use a power of ten). */
    private static Rational exact(float v) {
        int exponent = Math.max(Math.getExponent(v), Float.MIN_EXPONENT) - 23;
        return Rational.scaled(BigInteger.valueOf((long) Math.scalb((double) v, -exponent)), exponent);
    }

    /** The scale the rule gives for a = amax / t > 0. */
    private Rational scale(Rational a) {
        int emax = largestElement().floorLog2();
        return switch (rule) {
            case "floor" -> powerOfTwoScale(a.floorLog2() - emax);
            case "ceil" -> powerOfTwoScale(ceilLog2(a) - emax);
            case "even" -> {
                Rational binade = Rational.scaled(BigInteger.ONE, a.floorLog2());
                Rational step = binade.multiply(Rational.scaled(BigInteger.ONE, -elementFractionBits));
                BigInteger halfUp = Rounding.floor(a.divide(step).add(new Rational(BigInteger.ONE, BigInteger.TWO)));
                yield powerOfTwoScale(Rational.of(halfUp).multiply(step).floorLog2() - emax);
            }
            case "rceil" -> {
                Rational wanted = a.divide(largestElement());
                yield scales.stream().filter(s -> s.compareTo(wanted) >= 0).findFirst().orElse(largestScale());
            }
            case "midmax" -> {
                Rational topStep = largestElement().subtract(elements.get(elements.size() - 2));
                Rational midpoint = largestElement().add(topStep.divide(Rational.of(2)));
                int k = a.divide(midpoint).floorLog2() - 1;
                while (a.divide(Rational.scaled(BigInteger.ONE, k)).compareTo(midpoint) > 0) k++;
                yield powerOfTwoScale(k);
            }
            case "nearest" -> {
                Rational q = a.divide(largestElement());
                yield nearest(scales.size(), i -> scales.get((int) i), firstNotBelow(scales, q), q);
            }
            default -> throw new IllegalArgumentException(rule);
        };
    }

    /**
     * M: log2 of the largest element's binade over the step below the largest (fp8e4m3: 256 / 32, fxp32_16: 2^14 /
     * 2^-16); for posits, whose precision tapers, log2 of how many lie in the largest one's binade (maxpos's alone: 0).
     */
    private int countFractionBits() {
        Rational binade = Rational.scaled(BigInteger.ONE, largestElement().floorLog2());
        if (posit != null) return Long.numberOfTrailingZeros(elements.size() - firstNotBelow(elements, binade));
        return binade.divide(largestElement().subtract(elements.get(elements.size() - 2))).floorLog2();
    }

    private static int ceilLog2(Rational a) {
        int floor = a.floorLog2();
        return a.compareTo(Rational.scaled(BigInteger.ONE, floor)) == 0 ? floor : floor + 1;
    }

    /** 2^k, or the nearest power of two among the scale's values when k is outside them. */
    private Rational powerOfTwoScale(int k) {
        List<Rational> powers = scales.stream().filter(BlockReference::isPowerOfTwo).toList();
        Rational wanted = Rational.scaled(BigInteger.ONE, k);
        if (wanted.compareTo(powers.getFirst()) < 0) return powers.getFirst();
        if (wanted.compareTo(powers.getLast()) > 0) return powers.getLast();
        return wanted;
    }

    private static boolean isPowerOfTwo(Rational v) {
        BigInteger g = v.num().gcd(v.den());
        return v.num().divide(g).bitCount() == 1 && v.den().divide(g).bitCount() == 1;
    }

    /** The element magnitude of q >= 0, for a value of sign {@code negative}, in the element rounding. */
    private Rational element(Rational q, boolean negative) {
        if (posit != null) return q.signum() == 0 ? Rational.ZERO : posit.roundedMagnitude(q, negative);
        if (elementRounding == RoundingMode.NEAREST_EVEN) return nearest(countWithZero(), this::withZero, notBelowWithZero(q), q);
        long above = notBelowWithZero(q);
        if (above == countWithZero()) return elements.getLast();
        if (withZero(above).compareTo(q) == 0) return q;
        Rational low = withZero(above - 1), high = withZero(above);
        return switch (elementRounding) {
            case NEAREST_AWAY -> q.subtract(low).compareTo(high.subtract(q)) < 0 ? low : high;
            case TOWARD_ZERO -> low;
            case UP -> negative ? low : high;
            case DOWN -> negative ? high : low;
            case ODD -> above % 2 == 1 ? high : low;
            case NEAREST_EVEN, STOCHASTIC -> throw new IllegalArgumentException(elementRounding + " is not a mode to step between neighbours");
        };
    }

    /** The index of the first of the ascending {@code points} not below q, or their count when every one is, by bisection. */
    private static int firstNotBelow(List<Rational> points, Rational q) {
        int low = 0, high = points.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (points.get(mid).compareTo(q) < 0) low = mid + 1;
            else high = mid;
        }
        return low;
    }

    /**
     * The value of the {@code count} ascending candidates (candidate(i)) nearest q >= 0, {@code notBelow} the index of
     * the first not below q; of two, the even multiple of their distance.
     */
    private static Rational nearest(long count, LongFunction<Rational> candidate, long notBelow, Rational q) {
        long low = Math.min(notBelow, count - 1);
        Rational above = candidate.apply(low);
        if (low == 0 || above.compareTo(q) < 0) return above;
        Rational below = candidate.apply(low - 1);
        int c = q.subtract(below).compareTo(above.subtract(q));
        if (c < 0) return below;
        if (c > 0) return above;
        Rational quotient = below.divide(above.subtract(below));
        return Rounding.floor(quotient).testBit(0) ? above : below;
    }
}
