package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BuiltInLibraries;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.PositGrid;
import dev.byodt.compiler.dtype.PositScales;
import dev.byodt.compiler.dtype.DatatypePlugin;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.LibrarySource;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.StochasticRounding;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * Posits of the 2022 Posit Standard at 2 to 32 bits: {@code posit} (es = 2, the standard's) and
 * {@code posit_es0}, {@code posit_es1}, {@code posit_es3}. One C library (posit.c, -DPOSIT_N -DPOSIT_ES)
 * computes every operation, rounding to nearest even as the standard does or in another --rounding mode;
 * comparisons need no call, because the storage holds the N-bit pattern sign-extended, and posits compare as
 * two's-complement integers.
 */
public final class PositDatatypes implements DatatypePlugin {
    /**
     * posit.c, and for N <= 8 (compiled where the CPU has their AVX-512 features) posit_x64.c's vector variants of
     * add, sub and mul and posit_rounded_x16.c's of rounded_f32; for 9 <= N <= 16 posit_fraction_x16.c's of
     * rounded_f32_with_fraction and rounded_f32.
     */
    public static final LibrarySource LIBRARY = BuiltInLibraries.of("dev/byodt/datatypes/posit/posit.c",
        "dev/byodt/datatypes/posit/posit_x64.c", "dev/byodt/datatypes/posit/posit_rounded_x16.c",
        "dev/byodt/datatypes/posit/posit_fraction_x16.c");

    @Override
    public void registerWith(DatatypeRegistry registry) {
        registry.register(posit("posit", 131, 2));
        registry.register(posit("posit_es0", 132, 0));
        registry.register(posit("posit_es1", 133, 1));
        registry.register(posit("posit_es3", 134, 3));
    }

    private static DatatypeDefinition posit(String name, int code, int es) {
        return DatatypeDefinition.register(name, code)
            .summary("posit, es = " + es + " (Posit Standard 2022), sign-extended storage")
            .widthRange(2, 32)
            .option("rounding", RoundingMode.optionNames(List.of(RoundingMode.values())))
            .option(StochasticRounding.BITS_OPTION, StochasticRounding.bitsOptionValues())
            .check(StochasticRounding::widthProblem)
            .library(LIBRARY, i -> Stream.concat(Stream.of("POSIT_N=" + i.bits(), "POSIT_ES=" + es),
                StochasticRounding.defines(i).stream()).toList())
            .prefix(i -> "posit" + i.bits() + "es" + es)
            .registerLibraryOps(BuiltInOps.ARITHMETIC)
            .registerLibraryOps(BuiltInOps.CONVERSIONS)
            .registerLibraryOps(BuiltInOps.EXACT_ACCUMULATION)
            // posit.c defines rounded_f32 for N <= 16 to nearest even, every instance arithmeticInFloat32 accepts.
            .registerLibraryOps(DatatypeOp.ROUNDED_F32, DatatypeOp.ROUNDED_F32_WITH_FRACTION)
            .registerSignedIntegerComparisons()
            .accumulation(AccumulationMode.FLOAT32, AccumulationMode.EXACT)
            .exactAccumulator(i -> quireBits(i.bits(), es))
            .fusedAccumulation(i -> exactInFloat32(i.bits(), es))
            // acc_round and from_f64 both round the exact value by encode().
            .exactSumsInDouble(i -> exactInFloat32(i.bits(), es) ? OptionalInt.of(Math.max(1, i.bits() - 2 - es)) : OptionalInt.empty())
            .arithmeticInFloat32(i -> RoundingMode.of(i.option("rounding")) == RoundingMode.NEAREST_EVEN && arithmeticInFloat32(i.bits(), es))
            // posit.c's rounded_f32_with_fraction, beside rounded_f32, proves its rounding on those scales.
            .fractionScales(i -> Optional.of(new PositScales(i.bits(), es)))
            .valueGrid(i -> new PositGrid(i.bits(), es))
            .build();
    }

    /**
     * Whether add is the float32 sum rounded once and mul the float32 product rounded once, as posit.c's FLOAT_ADD
     * and FLOAT_MUL compute them at N >= 9: add by float_add's proof (checked on every pair at 9 <= N <= 16), mul
     * where that product is exact, p <= 12 significand bits and minPos^2 a float32 normal (posit16 es 2, posit12
     * es 1, ...). posit8 es 2 adds and multiplies in 16-bit integers, but its results are those too
     * (docs/datatypes.md, "posit8 sums in float32", checked on every pair), so its dot products sum in float32 as
     * well, rounded by posit_rounded_x16.c's vector variant of rounded_f32.
     */
    static boolean arithmeticInFloat32(int n, int es) {
        return (n >= 9 || n == 8 && es == 2) && n <= 16 && 2 * Math.max(1, n - 2 - es) <= 24 && 2 * ((n - 2) << es) <= 126;
    }

    /**
     * Whether float32 holds every posit of N bits exactly: at most N - 2 - es significand bits (sign and two
     * regime bits taken), at most 24, and scales within +-126 (maxPos = 2^((N-2) 2^es)), float32's normal range.
     */
    static boolean exactInFloat32(int n, int es) { return new PositGrid(n, es).float32HoldsEvery(); }

    /**
     * posit.c's quire width (its POSIT_ACC_BITS): at least 16N bits, as the standard asks, and at least
     * 4 maxScale + 32 so that minPos^2 .. maxPos^2 with a sign and carry bits fit (es = 3 needs the latter),
     * rounded up to 128, 256, 512 or 1024. A test checks it against the library's own macro.
     */
    static int quireBits(int n, int es) {
        int maxScale = (n - 2) << es;
        int needed = Math.max(16 * n, 4 * maxScale + 32);
        int bits = 128;
        while (bits < needed) bits *= 2;
        return bits;
    }
}
