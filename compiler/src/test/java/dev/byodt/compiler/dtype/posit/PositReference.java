package dev.byodt.compiler.dtype.posit;

import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.reference.Rational;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.AbstractList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The Posit Standard (2022) written directly, with exact rational arithmetic, as the reference the C library is
 * tested against. Patterns are N-bit unsigned integers (0..2^N-1); NaR is 2^(N-1).
 *
 * <p>Decoding follows the standard's definition bit by bit (sign, regime run, exponent bits padded with zeros,
 * fraction). Rounding (section 4.1) is done the way the standard states it: the exact value is placed between
 * the two neighbouring posits found by bisection over the patterns (posits are monotonic in their patterns), and
 * compared with the (N+1)-bit posit between them, the midpoint; ties go to the even pattern; nonzero values
 * never round to 0 and finite values never to NaR. No shifting, no guard bits: only exact comparisons. The other
 * {@link RoundingMode}s choose between the same two neighbours by their own rule; stochastic rounding reads the
 * value's bit string past N bits as the pattern of the largest (N + k)-bit posit not above it, found by bisection too.
 */
public final class PositReference {
    final int n;
    final int es;
    private final RoundingMode mode;
    /** Stochastic rounding's random bits: how many (k), and those of the next rounding ({@link #useRandomBits}). */
    private final int srBits;
    private int random;
    /** The (N + k)-bit posits, whose patterns continue the N-bit ones by k bits (stochastic rounding). */
    private final PositReference extended;
    /** The (N+1)-bit posits, whose values are the midpoints rounding to nearest reads; none for 33 bits, which only decode (the midpoints of posit32). */
    private final PositReference wider;
    /** Decoded positive patterns, filled lazily for small N (bisection revisits the same patterns). */
    private final Exact[] cache;

    public PositReference(int n, int es) {
        this(n, es, RoundingMode.NEAREST_EVEN);
    }

    public PositReference(int n, int es, RoundingMode mode) {
        this(n, es, mode, 0, true);
    }

    /** Posits rounding in {@code mode}, stochastically with {@code srBits} random bits. */
    public PositReference(int n, int es, RoundingMode mode, int srBits) {
        this(n, es, mode, srBits, true);
    }

    private PositReference(int n, int es, RoundingMode mode, int srBits, boolean withWider) {
        if (n < 2 || n > 33 || es < 0 || es > 3) throw new IllegalArgumentException("posit" + n + "es" + es);
        this.n = n;
        this.es = es;
        this.mode = mode;
        this.srBits = srBits;
        this.extended = mode == RoundingMode.STOCHASTIC && withWider ? new PositReference(n + srBits, es, RoundingMode.NEAREST_EVEN, 0, false) : null;
        this.wider = withWider && n < 33 ? new PositReference(n + 1, es, mode, 0, false) : null;
        this.cache = n <= 18 ? new Exact[1 << (n - 1)] : null;
    }

    long nar() { return 1L << (n - 1); }

    long maxPos() { return nar() - 1; }

    long mask() { return (1L << n) - 1; }

    boolean isNar(long p) { return p == nar(); }

    /** Two's complement negation in N bits (NaR and 0 map to themselves). */
    long negate(long p) { return (-p) & mask(); }

    /** The pattern as a signed N-bit integer. */
    long signed(long p) { return p >= nar() ? p - (1L << n) : p; }

    /** The exact value of a pattern other than NaR. */
    Exact value(long p) {
        if (isNar(p)) throw new IllegalArgumentException("NaR has no value");
        if (p == 0) return Exact.ZERO;
        if (p > nar()) return value(negate(p)).negate();
        if (cache != null) {
            Exact e = cache[(int) p];
            if (e == null) cache[(int) p] = e = decodePositive(p);
            return e;
        }
        return decodePositive(p);
    }

    /** value = 2^(k 2^es + e) (1 + f), bits read after the sign bit from the most significant end. */
    private Exact decodePositive(long p) {
        int[] bits = new int[n - 1];
        for (int i = 0; i < n - 1; i++) bits[i] = (int) ((p >>> (n - 2 - i)) & 1);
        int run = 1;
        while (run < bits.length && bits[run] == bits[0]) run++;
        int k = bits[0] == 1 ? run - 1 : -run;
        int position = run + 1; // the regime's terminating bit, if any, is skipped
        int exponent = 0;
        for (int i = 0; i < es; i++) {
            exponent = 2 * exponent + (position < bits.length ? bits[position] : 0);
            position++;
        }
        long significand = 1; // the hidden bit, then the fraction bits (at most 31 of them)
        int fractionBits = 0;
        for (; position < bits.length; position++) {
            significand = 2 * significand + bits[position];
            fractionBits++;
        }
        return Exact.dyadic(BigInteger.valueOf(significand), k * (1 << es) + exponent - fractionBits);
    }

    /** The positive finite values, pattern by pattern: minPos .. maxPos (a block format's elements, BlockReference), each decoded when read. */
    public List<Rational> positiveValues() {
        return new AbstractList<>() {
            @Override
            public Rational get(int index) {
                if (index < 0 || index >= size()) throw new IndexOutOfBoundsException(index);
                return positiveValue(index + 1L);
            }

            @Override
            public int size() { return (int) maxPos(); }
        };
    }

    /** The value of the positive pattern 1 .. maxPos. */
    public Rational positiveValue(long pattern) {
        if (pattern < 1 || pattern > maxPos()) throw new IllegalArgumentException("pattern " + pattern + " of posit" + n);
        return rational(value(pattern));
    }

    /**
     * The posit value of the magnitude {@code magnitude} > 0 of a real of the sign {@code negative}, rounded per
     * section 4.1 in this reference's mode (the sign matters to up and down).
     */
    public Rational roundedMagnitude(Rational magnitude, boolean negative) {
        Exact exact = new Exact(magnitude.num(), magnitude.den());
        return rational(value(roundMagnitude(exact::compareTo, negative)));
    }

    private static Rational rational(Exact e) { return new Rational(e.num(), e.den()); }

    /** The posit of an exact real, rounded per section 4.1. */
    long round(Exact v) {
        Exact magnitude = v.abs();
        return roundTarget(v.signum(), magnitude::compareTo);
    }

    /**
     * Rounds a real number known only through comparisons: {@code sign} is its sign and
     * {@code compareMagnitude.applyAsInt(c)} the sign of |x| - c for a candidate c >= 0.
     */
    long roundTarget(int sign, ToIntFunction<Exact> compareMagnitude) {
        if (sign == 0) return 0;
        long magnitude = roundMagnitude(compareMagnitude, sign < 0);
        return sign < 0 ? negate(magnitude) : magnitude;
    }

    /**
     * The positive pattern of |x|, for x of the sign {@code negative} says: maxPos from maxPos up and minPos up to
     * minPos, in every mode (the standard's rules: no 0, no NaR); else the pattern of a posit equal to |x|, or of
     * one of its neighbours lo < |x| < hi, as the mode chooses: the nearer (on a tie to the even pattern or the
     * larger magnitude), the smaller magnitude, the larger or smaller value (magnitude by sign), the odd pattern.
     */
    private long roundMagnitude(ToIntFunction<Exact> compare, boolean negative) {
        if (compare.applyAsInt(value(maxPos())) >= 0) return maxPos();
        if (compare.applyAsInt(value(1)) <= 0) return 1;
        long lo = 1, hi = maxPos(); // value(lo) < x < value(hi)
        while (hi - lo > 1) {
            long mid = (lo + hi) >>> 1;
            int c = compare.applyAsInt(value(mid));
            if (c == 0) return mid;
            if (c > 0) lo = mid; else hi = mid;
        }
        return switch (mode) {
            case NEAREST_EVEN, NEAREST_AWAY -> {
                int toMidpoint = compare.applyAsInt(midpointAbove(lo));
                if (toMidpoint != 0) yield toMidpoint < 0 ? lo : hi;
                yield mode == RoundingMode.NEAREST_AWAY || (lo & 1) != 0 ? hi : lo;
            }
            case TOWARD_ZERO -> lo;
            case UP -> negative ? lo : hi;
            case DOWN -> negative ? hi : lo;
            case ODD -> (lo & 1) != 0 ? lo : hi;
            case STOCHASTIC -> cutBits(compare, lo) + random >= 1L << srBits ? hi : lo;
        };
    }

    /**
     * The k bits of |x|'s bit string after the N bits of {@code lo} (value(lo) < |x| < value(lo + 1)): the last k bits
     * of the largest (N + k)-bit posit not above |x|, whose pattern starts with lo's.
     */
    private long cutBits(ToIntFunction<Exact> compare, long lo) {
        long below = 0, above = 1L << srBits; // value of extended pattern (lo << k) + below <= |x| < that of + above
        while (above - below > 1) {
            long mid = (below + above) >>> 1;
            if (compare.applyAsInt(extended.value((lo << srBits) + mid)) >= 0) below = mid; else above = mid;
        }
        return below;
    }

    /** The random bits stochastic rounding adds in the roundings that follow (an element's, as its library gets them). */
    void useRandomBits(int bits) { random = bits; }

    /** The (N+1)-bit posit between the posit with signed pattern {@code lo} and the next one up. */
    Exact midpointAbove(long lo) {
        return wider.value((2 * lo + 1) & wider.mask());
    }

    // ---- operations on patterns

    public long add(long a, long b) {
        if (isNar(a) || isNar(b)) return nar();
        return round(value(a).add(value(b)));
    }

    long sub(long a, long b) {
        if (isNar(a) || isNar(b)) return nar();
        return round(value(a).subtract(value(b)));
    }

    public long mul(long a, long b) {
        if (isNar(a) || isNar(b)) return nar();
        return round(value(a).multiply(value(b)));
    }

    long div(long a, long b) {
        if (isNar(a) || isNar(b) || b == 0) return nar();
        return round(value(a).divide(value(b)));
    }

    /** sqrt by comparing squares of candidates with the argument exactly. */
    long sqrt(long a) {
        if (isNar(a) || signed(a) < 0) return nar();
        Exact x = value(a);
        return roundTarget(x.signum(), c -> x.compareTo(c.multiply(c)));
    }

    long min(long a, long b) {
        if (isNar(a) || isNar(b)) return nar();
        return value(a).compareTo(value(b)) <= 0 ? a : b;
    }

    long max(long a, long b) {
        if (isNar(a) || isNar(b)) return nar();
        return value(a).compareTo(value(b)) >= 0 ? a : b;
    }

    /** -1, 0 or 1 as a < b, a = b, a > b, with NaR below every real (the standard's order). */
    int compare(long a, long b) {
        if (isNar(a) || isNar(b)) return Boolean.compare(!isNar(a), !isNar(b));
        return Integer.signum(value(a).compareTo(value(b)));
    }

    public long fromDouble(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) return nar();
        return round(Exact.of(d));
    }

    /** The posit's exact value as a double (exact: at most 30 significant bits, exponent within +-240); NaR -> NaN. */
    public double toDouble(long p) {
        if (isNar(p)) return Double.NaN;
        Exact v = value(p);
        double d = new BigDecimal(v.num()).divide(new BigDecimal(v.den()), MathContext.DECIMAL128).doubleValue();
        if (!Exact.of(d).equals(v)) throw new AssertionError("posit value not exact in double: " + v);
        return d;
    }

    /** IEEE round to nearest even of the exact value (Java's double-to-float cast, the double being exact). */
    float toFloat(long p) { return (float) toDouble(p); }

    long fromInt(int i) { return round(Exact.of(i)); }

    /** Round half to even, saturating; NaR -> Integer.MIN_VALUE. */
    int toInt(long p) {
        if (isNar(p)) return Integer.MIN_VALUE;
        Exact v = value(p);
        BigDecimal d = new BigDecimal(v.num()).divide(new BigDecimal(v.den()));
        BigInteger i = d.setScale(0, java.math.RoundingMode.HALF_EVEN).toBigIntegerExact();
        if (i.compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0) return Integer.MAX_VALUE;
        if (i.compareTo(BigInteger.valueOf(Integer.MIN_VALUE)) < 0) return Integer.MIN_VALUE;
        return i.intValueExact();
    }
}
