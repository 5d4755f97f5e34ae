package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarType;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * What stochastic rounding (--rounding stochastic) needs beyond its mode (docs/datatypes.md, "Rounding modes"):
 * the datatype option --sr-bits, how many random bits each rounding adds to as many cut bits (1 to 16, 16 by
 * default: every cut bit of a float32 rounded to bfloat16 counts, and every library knows at least 16 cut bits
 * of every result exactly); and the counters the random bits are a hash of. A stochastic library's rounding
 * functions take a counter ({@link DatatypeOp#takesRandomCounter}); each place in a model that rounds (a call
 * site in a kernel, a weight tensor, the constants) has a key, a 64-bit hash of --seed and the place's name,
 * and its elements' counters count up from it. common/rounding.c turns a counter into random bits with
 * SplitMix64's output function, {@link #randomBits} here.
 */
public final class StochasticRounding {
    /** The datatype option: how many random bits. */
    public static final String BITS_OPTION = "sr-bits";
    public static final int DEFAULT_BITS = 16;
    public static final int MAX_BITS = 16;
    /** SplitMix64's increment (the golden ratio in 64 bits), which common/rounding.c adds to a counter first. */
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    private StochasticRounding() {}

    /** The values of --sr-bits, the default first. */
    public static String[] bitsOptionValues() {
        return Stream.concat(Stream.of(DEFAULT_BITS), IntStream.range(1, MAX_BITS + 1).filter(b -> b != DEFAULT_BITS).boxed())
            .map(String::valueOf).toArray(String[]::new);
    }

    /** Whether the instance rounds stochastically. */
    public static boolean isStochastic(DatatypeInstance instance) {
        return instance.definition().options().containsKey("rounding")
            && instance.option("rounding").equals(RoundingMode.STOCHASTIC.optionName());
    }

    /** The library parameters of an instance's --rounding mode, BYODT_SR_BITS with stochastic rounding. */
    public static List<String> defines(DatatypeInstance instance) {
        RoundingMode mode = RoundingMode.of(instance.option("rounding"));
        List<String> defines = new ArrayList<>(mode.defines());
        if (mode == RoundingMode.STOCHASTIC) defines.add("BYODT_SR_BITS=" + instance.option(BITS_OPTION));
        return defines;
    }

    /**
     * The instance check of the formats whose libraries round stochastically up to 16 bits (minifloat.c and
     * posit.c read that many exact cut bits of every result only there).
     */
    public static String widthProblem(DatatypeInstance instance) {
        return isStochastic(instance) && instance.bits() > 16 ? "--rounding stochastic takes formats of at most 16 bits" : null;
    }

    /** The first counter of a place's elements: a hash of the seed and the place's name. */
    public static long key(long seed, String place) {
        long h = mix(seed + GOLDEN_GAMMA);
        for (byte b : place.getBytes(StandardCharsets.UTF_8)) h = mix(h + GOLDEN_GAMMA + (b & 0xff));
        return h;
    }

    /**
     * How far a call of a program compiled with a call counter moves every counter, of the I64 {@code call}, its
     * number, a kernel loads: {@code call} times SplitMix64's own increment, so the counters of call c are c steps
     * further along SplitMix64's sequence than the first call's (call 0 rounds with the bits of a program without a
     * call counter). Multiples of the golden ratio are spread evenly around 2^64 (Weyl), so the counters of one
     * place in two different calls, each a run of consecutive integers, do not meet while the runs are well
     * shorter than 2^64 over the number of calls (runs of a million counters: over 10^12 calls).
     */
    public static Expr callOffset(Expr call) {
        return Exprs.mul(call, new Expr.IntConst(ScalarType.I64, GOLDEN_GAMMA));
    }

    /** The random bits a library rounding with {@code bits} random bits gives the counter (common/rounding.c's stochastic_bits). */
    public static int randomBits(long counter, int bits) {
        return (int) (mix(counter + GOLDEN_GAMMA) >>> (64 - bits));
    }

    /** {@link #randomBits(long, int)} of an I64 {@code counter} computed by a kernel: the same bits, for code byodt generates itself. */
    public static Expr randomBits(Expr counter, int bits) {
        Expr z = Exprs.add(counter, new Expr.IntConst(ScalarType.I64, GOLDEN_GAMMA));
        z = Exprs.mul(Exprs.xor(z, Exprs.shiftRight(z, 30)), new Expr.IntConst(ScalarType.I64, 0xbf58476d1ce4e5b9L));
        z = Exprs.mul(Exprs.xor(z, Exprs.shiftRight(z, 27)), new Expr.IntConst(ScalarType.I64, 0x94d049bb133111ebL));
        return Exprs.shiftRight(Exprs.xor(z, Exprs.shiftRight(z, 31)), 64 - bits);
    }

    /** SplitMix64's output function (Steele, Lea and Flood, OOPSLA 2014). */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
