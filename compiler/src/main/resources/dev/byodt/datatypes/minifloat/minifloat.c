/*
 * IEEE 754-style binary floating point with MF_EXP_BITS exponent bits and MF_FRAC_BITS fraction bits:
 * float16 (e5m10), bfloat16 (e8m7), fp8e5m2 (e5m2), fp8e3m4 and every minifloat_eE; and, with the parameters
 * MF_SPECIALS and MF_UNSIGNED below, the formats that give the special patterns other meanings: OCP fp8e4m3,
 * the ONNX FNUZ float8s, the OCP MX elements FP6 and FP4 and scale E8M0, and NVFP4's unsigned E4M3 scale.
 *
 * Layout (low 1+E+M bits of the storage integer, zero-extended): sign, E exponent bits (bias 2^(E-1) - 1),
 * M fraction bits. Exponent 0 holds zeros and subnormals, all ones holds infinities (fraction 0) and NaNs.
 * Every result is rounded once, to nearest with ties to even (other modes: BYODT_ROUNDING below); overflow gives +-infinity; every NaN produced
 * is the canonical quiet NaN 0.1..1.10..0 (sign clear); neg and abs only change the sign bit (IEEE 754 5.5.1).
 *
 * How results are exact: + - * / are computed on the exact operand values in a wider IEEE format and rounded
 * once more to the format; for p-bit formats (p = M + 1) inside a q-bit one with q >= 2p + 2 that second rounding
 * gives the correctly rounded result (double rounding is innocuous: Figueroa, "When is double rounding
 * innocuous?", 1995). Formats with M <= 10 and float32's exponent range (MF_VIA_FLOAT below: float16, bfloat16,
 * the fp8s) use float32, q = 24, with 32-bit integer conversions (16 lanes of AVX-512) or F16C's; every other
 * format uses double, q = 53 (every value of the format is exactly a double: E <= 10, M <= 25). Comparisons,
 * min and max compare sign-magnitude patterns as integers. Square root is done with integers. Transcendentals
 * are computed in double by common/double_math.c (relative error around 2^-50) and rounded once: correctly
 * rounded unless the exact value lies within that error of a rounding boundary.
 *
 * Parameters: -DMF_EXP_BITS=E (2..10) -DMF_FRAC_BITS=M (0..25, 1+E+M <= 32) -DBYODT_PREFIX=<prefix>, and two
 * that say which patterns are special, for the formats that are not IEEE-like:
 * -DMF_SPECIALS=MF_SPECIALS_<style>, where the style is
 *   IEEE (the default): as above.
 *   FN (finite, one NaN; OCP FP8 E4M3, NVFP4's scale): the all-ones exponent holds normal numbers, the only NaN
 *     is the all-ones magnitude S.1..1.1..1, there is no infinity, and overflow (and an infinite input)
 *     saturates to the largest finite value with the sign kept (OCP's saturating conversion); a NaN input gives
 *     the NaN 0.1..1.1..1.
 *   FNUZ (finite, NaN, unsigned zero; ONNX FLOAT8E4M3FNUZ/E5M2FNUZ): the bias is 2^(E-1), one more than IEEE's,
 *     every nonzero pattern but 1.0..0.0..0 (which would be -0) is a number, that pattern is the only NaN,
 *     there is no infinity, a zero result is +0, and overflow saturates as in FN.
 *   NONE (OCP MX FP6 and FP4): every pattern is a number, overflow saturates as in FN, and a NaN (an input
 *     NaN, 0/0, sqrt of a negative number) has no pattern: it becomes +0.
 * -DMF_UNSIGNED=1: no sign bit (BITS = E + M): a negative result that does not round to zero is NaN.
 * With M = 0 (OCP MX E8M0, unsigned and FN: 2^-127 .. 2^127, 1..1 is NaN) there are no subnormals and no zero:
 * the exponent field 0 holds 2^-BIAS, and ties round to the even significand 2, that is up.
 * -DBYODT_ROUNDING=BYODT_ROUNDING_<mode> (common/rounding.c): the rounding of every result, to nearest with ties
 * to even by default. The other modes (ties away, toward zero, up, down, to odd) round the same significand
 * bits by their own rule; overflow gives infinity where the mode rounds away from zero (IEEE 754 7.4) and the
 * largest finite value otherwise (to odd: the largest finite value); the saturating styles saturate in every
 * mode. Their + - / build a double rounded to odd from the exact result (TwoSum's error term, an integer
 * quotient's remainder; products are exact in double), which the one rounding to the format then treats as the
 * exact value: to odd at 53 bits keeps every mode's rounding at p <= 51 bits (Boldo and Melquiond, "Emulation
 * of FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008). Not with E > 8, whose
 * products can overflow double.
 * Stochastic rounding (formats of up to 16 bits) adds random bits to the first cut bits of that double, which
 * are the exact value's, overflows like nearest (to infinity in the IEEE style), and its functions take a
 * counter (SR_PARAM, common/rounding.c).
 */
#include <stdint.h>

#define MF_SPECIALS_IEEE 0
#define MF_SPECIALS_FN 1
#define MF_SPECIALS_FNUZ 2
#define MF_SPECIALS_NONE 3
#ifndef MF_SPECIALS
#define MF_SPECIALS MF_SPECIALS_IEEE
#endif
#ifndef MF_UNSIGNED
#define MF_UNSIGNED 0
#endif

#if !defined(MF_EXP_BITS) || !defined(MF_FRAC_BITS) || !defined(BYODT_PREFIX)
#error "minifloat.c needs -DMF_EXP_BITS, -DMF_FRAC_BITS and -DBYODT_PREFIX"
#endif
#if MF_EXP_BITS < 2 || MF_EXP_BITS > 10 || MF_FRAC_BITS < 0 || MF_FRAC_BITS > 25 || 1 + MF_EXP_BITS + MF_FRAC_BITS > 32
#error "minifloat.c supports 2 <= MF_EXP_BITS <= 10, 0 <= MF_FRAC_BITS <= 25, at most 32 bits"
#endif
#if MF_FRAC_BITS == 0 && MF_SPECIALS != MF_SPECIALS_FN
#error "minifloat.c supports MF_FRAC_BITS=0 only with MF_SPECIALS=MF_SPECIALS_FN (OCP MX E8M0)"
#endif
#if MF_UNSIGNED && (MF_SPECIALS == MF_SPECIALS_FNUZ || MF_SPECIALS == MF_SPECIALS_NONE)
#error "an unsigned minifloat needs a NaN that is not -0: MF_SPECIALS IEEE or FN"
#endif
#define NEAREST_EVEN (BYODT_ROUNDING == BYODT_ROUNDING_NEAREST_EVEN)
#if !NEAREST_EVEN && MF_EXP_BITS > 8
#error "minifloat.c rounds other than to nearest even only with MF_EXP_BITS <= 8 (products exact in double)"
#endif
/* Stochastic rounding reads the first BYODT_SR_BITS (<= 16) cut bits, exact in every result when p <= 14:
   the square root's 30 bits are the shortest. */
#if defined(BYODT_ROUNDING_STOCHASTIC) && BYODT_ROUNDING == BYODT_ROUNDING_STOCHASTIC && (MF_UNSIGNED ? 0 : 1) + MF_EXP_BITS + MF_FRAC_BITS > 16
#error "minifloat.c rounds stochastically only formats of up to 16 bits"
#endif

#define E MF_EXP_BITS
#define M MF_FRAC_BITS
#define BITS ((MF_UNSIGNED ? 0 : 1) + E + M)
#define BIAS ((1 << (E - 1)) - (MF_SPECIALS == MF_SPECIALS_FNUZ ? 0 : 1))
#define EXP_ALL_ONES ((1u << E) - 1)
#define MAGNITUDE_MASK (((uint32_t)1 << (E + M)) - 1)
#define SIGN_BIT (MF_UNSIGNED ? 0 : (uint32_t)1 << (E + M))
#define SUBNORMALS (M > 0)
/* The exponent of the smallest nonzero value's last bit: 2^(1 - BIAS - M), or 2^-BIAS without subnormals. */
#define MIN_EXPONENT ((SUBNORMALS ? 1 : 0) - BIAS - M)
#if MF_SPECIALS == MF_SPECIALS_IEEE
#define INFINITY_BITS ((uint32_t)EXP_ALL_ONES << M)
#define NAN_BITS (INFINITY_BITS | ((uint32_t)1 << (M - 1)))
#define LARGEST_BITS (INFINITY_BITS - 1)
#define LARGEST_EXPONENT_FIELD ((1 << E) - 2)
#else
/* No infinity: an impossible magnitude stands for it, so the infinity tests below are never true. */
#define INFINITY_BITS (MAGNITUDE_MASK + 1)
#if MF_SPECIALS == MF_SPECIALS_FN
#define NAN_BITS MAGNITUDE_MASK
#define LARGEST_BITS (MAGNITUDE_MASK - 1)
#define LARGEST_EXPONENT_FIELD ((1 << E) - (M == 0 ? 2 : 1))
#elif MF_SPECIALS == MF_SPECIALS_FNUZ
#define NAN_BITS SIGN_BIT
#define LARGEST_BITS MAGNITUDE_MASK
#define LARGEST_EXPONENT_FIELD ((1 << E) - 1)
#else
#define NAN_BITS 0
#define LARGEST_BITS MAGNITUDE_MASK
#define LARGEST_EXPONENT_FIELD ((1 << E) - 1)
#endif
#endif
/* What an infinite input becomes: infinity, or the largest finite value in the saturating styles. */
#define INFINITE_INPUT_BITS (MF_SPECIALS == MF_SPECIALS_IEEE ? INFINITY_BITS : LARGEST_BITS)
/* The binade of the largest finite value: its value is below 2^(LARGEST_BINADE + 1). */
#define LARGEST_BINADE (LARGEST_EXPONENT_FIELD - BIAS)

#if BITS <= 8
typedef uint8_t T;
#elif BITS <= 16
typedef uint16_t T;
#else
typedef uint32_t T;
#endif

#define GLUE2(p, op) p##_##op
#define GLUE(p, op) GLUE2(p, op)
#define FN(op) GLUE(BYODT_PREFIX, op)
#define EXPORT __attribute__((always_inline))

/* ---- the format <-> double (exact one way, one rounding the other) ---- */

#if MF_SPECIALS == MF_SPECIALS_IEEE
static int is_nan(T a) { return (a & MAGNITUDE_MASK) > INFINITY_BITS; }
#elif MF_SPECIALS == MF_SPECIALS_FN
static int is_nan(T a) { return (a & MAGNITUDE_MASK) == NAN_BITS; }
#elif MF_SPECIALS == MF_SPECIALS_FNUZ
static int is_nan(T a) { return a == (T)NAN_BITS; }
#else
static int is_nan(T a) { (void)a; return 0; }
#endif
static int is_infinite(T a) { return (a & MAGNITUDE_MASK) == INFINITY_BITS; }
/* Zero of either sign (with FNUZ, 1.0..0.0..0 is NaN, not zero; E8M0 has no zero). */
static int is_zero(T a) { return SUBNORMALS && (a & MAGNITUDE_MASK) == 0 && !is_nan(a); }

/* The integer significand and exponent of a finite a: a = significand * 2^exponent. */
static uint64_t significand_of(T a) {
    uint32_t exponent = (a >> M) & EXP_ALL_ONES;
    uint64_t fraction = a & (((uint32_t)1 << M) - 1);
    return exponent || !SUBNORMALS ? fraction | ((uint64_t)1 << M) : fraction;
}
static int exponent_of(T a) {
    uint32_t exponent = (a >> M) & EXP_ALL_ONES;
    return (exponent || !SUBNORMALS ? (int)exponent : 1) - BIAS - M;
}

/*
 * The pattern of a rounded magnitude (already saturated or on infinity's encoding) with x's sign: a zero of
 * an unsigned-zero (FNUZ) format is +0, and an unsigned format has no negative numbers, so a negative x that
 * does not round to zero is NaN (E8M0, which has no zero, gives NaN for every x < 0).
 */
static T with_sign(int negative, uint32_t encoded, int zero_input) {
#if MF_UNSIGNED
    int rounds_to_zero = zero_input || (SUBNORMALS && encoded == 0);
    return negative && !rounds_to_zero ? (T)NAN_BITS : (T)encoded;
#elif MF_SPECIALS == MF_SPECIALS_FNUZ
    (void)zero_input;
    return (T)(negative && encoded != 0 ? SIGN_BIT | encoded : encoded);
#else
    (void)zero_input;
    return (T)(negative ? SIGN_BIT | encoded : encoded);
#endif
}

/* The exact value of a as a double. */
static double to_double(T a) {
    uint64_t sign = a & SIGN_BIT ? (uint64_t)1 << 63 : 0;
    /* An integer times a power of two, both exact (for a subnormal, the fraction times 2^(1 - BIAS - M)). */
    double value = (double)(int64_t)significand_of(a) * pow2(exponent_of(a));
    double finite = double_of(sign | bits_of(value));
    double infinite = double_of(sign | 0x7ff0000000000000ULL);
    return is_nan(a) ? double_of(0x7ff8000000000000ULL) : is_infinite(a) ? infinite : finite;
}

/*
 * The encoding of a magnitude beyond the largest finite value, rounded in BYODT_ROUNDING: infinity where the
 * mode rounds it away from zero (IEEE 754 7.4), else the largest finite value; saturated without infinity.
 */
static uint32_t overflowed(int negative) {
#if MF_SPECIALS == MF_SPECIALS_IEEE
    int away = BYODT_ROUNDING == BYODT_ROUNDING_NEAREST_EVEN || BYODT_ROUNDING == BYODT_ROUNDING_NEAREST_AWAY
        || BYODT_ROUNDING == BYODT_ROUNDING_STOCHASTIC || (BYODT_ROUNDING == BYODT_ROUNDING_UP && !negative) || (BYODT_ROUNDING == BYODT_ROUNDING_DOWN && negative);
    return away ? INFINITY_BITS : LARGEST_BITS;
#else
    (void)negative;
    return LARGEST_BITS;
#endif
}

/*
 * x rounded to the format in BYODT_ROUNDING. The significand (with its hidden bit) is shifted right to the
 * format's precision at x's exponent, which for results below the normal range is the fixed precision of the
 * subnormals; adding the result to the (biased exponent - 1) field lets a carry out of the significand bump the
 * exponent, and a carry out of the largest exponent land beyond the largest finite encoding, where it overflows.
 * Without subnormals (E8M0) everything below the smallest value 2^-BIAS rounds to it.
 */
static T from_double(double x SR_PARAM) {
    uint64_t u = bits_of(x);
    uint64_t magnitude = u & 0x7fffffffffffffffULL;
    int negative = (int)(u >> 63);
    int exponent = (int)(magnitude >> 52) - 1023;      /* double subnormals are far below the format's range */
    uint64_t significand = (magnitude & 0x000fffffffffffffULL) | 0x0010000000000000ULL;
    int normal = exponent >= MIN_EXPONENT + M;
    int exact_shift = 52 - M + (normal ? 0 : MIN_EXPONENT + M - exponent);
    int shift = exact_shift > 60 ? 60 : exact_shift;
    uint64_t kept = significand >> shift;
    uint64_t rest = significand & (((uint64_t)1 << shift) - 1);
    uint64_t half = (uint64_t)1 << (shift - 1);
    kept += rounding_increment((uint32_t)kept & 1, rest >= half, (rest & (half - 1)) != 0, (uint32_t)negative,
                               first_cut_bits(significand, exact_shift), SR_RANDOM);
    int64_t encoded = normal ? ((int64_t)(exponent + BIAS - 1) << M) + (int64_t)kept : SUBNORMALS ? (int64_t)kept : 0;
    encoded = magnitude == 0 ? 0 : encoded;
    encoded = encoded > LARGEST_BITS ? overflowed(negative) : encoded;
    encoded = magnitude == 0x7ff0000000000000ULL ? INFINITE_INPUT_BITS : encoded;
    T result = with_sign(negative, (uint32_t)encoded, magnitude == 0);
    return magnitude > 0x7ff0000000000000ULL ? (T)NAN_BITS : result;
}

/* ---- the format <-> float32, for the formats whose arithmetic float32 does exactly (MF_VIA_FLOAT) ---- */

/*
 * p = M + 1 significand bits with 2p + 2 <= 24 (M <= 10) make float32 results of + - * / innocuous to round
 * again when float32's precision is at hand: with E <= 7 every result that matters (at least half the format's
 * smallest subnormal) is a float32 normal; with E == 8 the format's subnormals lie in float32's subnormal range,
 * where sums are exact (both are multiples of the format's smallest subnormal), products of M <= 7 significands
 * are exact above half that subnormal, and quotients cannot come within float32's rounding error of a midpoint.
 * (E8M0, with no fraction bits, goes through double, and so does every format in the other rounding modes, where
 * rounding twice is not innocuous.)
 */
#if NEAREST_EVEN && ((E <= 7 && M >= 1 && M <= 10) || (E == 8 && M >= 1 && M <= 7 && MF_SPECIALS == MF_SPECIALS_IEEE && !MF_UNSIGNED))
#define MF_VIA_FLOAT 1
#else
#define MF_VIA_FLOAT 0
#endif

#if MF_VIA_FLOAT
static uint32_t f32_bits(float x) { union { float f; uint32_t u; } v = { x }; return v.u; }
static float f32_of(uint32_t u) { union { uint32_t u; float f; } v = { u }; return v.f; }

#define F32_DROPPED (23 - M)                                  /* fraction bits float32 has beyond the format */
#define F32_REBIAS ((uint32_t)(127 - BIAS) << 23)              /* float32's exponent bias minus the format's */
#define F32_MIN_NORMAL ((uint32_t)(128 - BIAS) << 23)          /* 2^(1 - BIAS), the format's smallest normal */
/* 2^(24 - BIAS - M): its float32 ulp is the format's smallest subnormal 2^(1 - BIAS - M). */
#define F32_SUBNORMAL_ULP_MAGIC ((uint32_t)(151 - BIAS - M) << 23)

#if E == 5 && M == 10 && MF_SPECIALS == MF_SPECIALS_IEEE && defined(__x86_64__) && defined(__F16C__)
/*
 * IEEE binary16 on an x86-64 with F16C (byodt passes -mf16c when the target has it): the conversions are single
 * instructions, vcvtph2ps and vcvtps2ph (which rounds in MXCSR's mode: to nearest even in the JVM and in byodt's
 * executables, as the float32 arithmetic itself assumes), with the integer code's results; a NaN result is
 * replaced by the canonical one.
 */
static float to_float(T a) { union { T u; _Float16 h; } v = { a }; return (float)v.h; }
static T from_float(float x) { union { _Float16 h; T u; } v = { (_Float16)x }; return x != x ? (T)NAN_BITS : v.u; }
#else
/* to_float(a) is a's exact value (a NaN stays a NaN, with any sign and payload); from_float rounds once. */
#if E == 8
/* float32 and the format share the exponent field: the value is the top bits of a float32, subnormals included. */
static float to_float(T a) {
    return f32_of((uint32_t)(a & SIGN_BIT) << (31 - E - M) | (uint32_t)(a & MAGNITUDE_MASK) << F32_DROPPED);
}
#else
/*
 * The exact value of a as a float32: a normal's fields move into place and the exponent is rebiased; a
 * subnormal m 2^(1 - BIAS - M) is read as the normal (1 + m 2^-M) 2^(1 - BIAS) less 2^(1 - BIAS), an exact
 * float32 subtraction; the all-ones exponent becomes float32's (infinity, NaN) in the IEEE style; the other
 * styles' NaN pattern becomes float32's NaN.
 */
static float to_float(T a) {
    uint32_t magnitude = a & MAGNITUDE_MASK;
    uint32_t exponent = magnitude >> M;
    uint32_t moved = (magnitude << F32_DROPPED) + F32_REBIAS;
    float subnormal = f32_of(moved + ((uint32_t)1 << 23)) - f32_of(F32_MIN_NORMAL);
#if MF_SPECIALS == MF_SPECIALS_IEEE
    uint32_t bits = exponent == 0 ? f32_bits(subnormal) : exponent == EXP_ALL_ONES ? moved | 0x7f800000u : moved;
#else
    uint32_t bits = is_nan(a) ? 0x7fc00000u : exponent == 0 ? f32_bits(subnormal) : moved;
#endif
    return f32_of(bits | (uint32_t)(a & SIGN_BIT) << (31 - E - M));
}
#endif

/*
 * x rounded to the format, to nearest with ties to even, with 32-bit integers. A result in the format's normal
 * range: rebias the exponent and add half an ulp less one plus the kept fraction's lowest bit (a tie rounds
 * up exactly when that bit is odd), then drop the extra fraction bits; a carry runs into the exponent field and
 * past the largest exponent onto infinity's encoding. Below it (E < 8): adding 2^(24 - BIAS - M), whose float32
 * ulp is the format's smallest subnormal, rounds once (the host's round-to-nearest-even, no flush to zero) and
 * leaves the subnormal encoding in the sum's low bits. With E == 8 the first way also rounds float32's
 * subnormals, which have the format's exponent field 0.
 */
static T from_float(float x) {
    uint32_t u = f32_bits(x);
    uint32_t magnitude = u & 0x7fffffffu;
    uint32_t normal = (magnitude - F32_REBIAS + (((uint32_t)1 << (F32_DROPPED - 1)) - 1)
                       + ((magnitude >> F32_DROPPED) & 1)) >> F32_DROPPED;
#if E == 8
    uint32_t encoded = normal;
#else
    uint32_t subnormal = f32_bits(f32_of(magnitude) + f32_of(F32_SUBNORMAL_ULP_MAGIC)) - F32_SUBNORMAL_ULP_MAGIC;
    uint32_t encoded = magnitude < F32_MIN_NORMAL ? subnormal : normal;
#endif
    encoded = encoded > LARGEST_BITS ? overflowed(0) : encoded;
    return magnitude > 0x7f800000u ? (T)NAN_BITS : with_sign((int)(u >> 31), encoded, magnitude == 0);
}
#endif /* F16C or integers */
#endif /* MF_VIA_FLOAT */

/* ---- square root with integers ---- */

/*
 * sqrt(a) = sqrt(m 2^e) with the integer significand m scaled so that e is even and m has 60 or 61 bits:
 * floor(sqrt(m)) has 30 or 31 bits (>= M + 3), and a sticky bit for an inexact root; that, as a double, rounds
 * once to the correct result.
 */
static T sqrt_format(T a SR_PARAM) {
    uint64_t m = significand_of(a);
    int e = exponent_of(a);
    int leading = 63 - __builtin_clzll(m | 1);
    int scale = 60 - leading;
    scale += (e - scale) & 1;                             /* make the remaining exponent even */
    uint64_t scaled = m << scale;
    uint64_t root = isqrt(scaled);
    uint64_t inexact = root * root != scaled;
    double y = (double)((root << 1) | inexact) * pow2((e - scale) / 2 - 1);
    T result = from_double(y SR_ARG);
    result = is_zero(a) || (a == INFINITY_BITS) ? a : result;              /* sqrt(+-0) = +-0, sqrt(inf) = inf */
    return (a & SIGN_BIT) && !is_zero(a) ? (T)NAN_BITS : is_nan(a) ? (T)NAN_BITS : result;
}

/* ---- + and / rounded to odd in double, for the modes other than to nearest even ---- */

#if !NEAREST_EVEN
/*
 * x + y for format values x and y, as a double rounded to odd: TwoSum's error term (exact: no double overflows
 * here) says whether the double sum s is exact and on which side the exact sum lies; an inexact s with an even
 * last bit moves one ulp toward it, to its odd neighbour. Infinities and NaN pass as they are. An exact zero
 * sum of operands that are not both -0 is +0, and -0 rounding down (IEEE 754 6.3): the sum of the negated
 * operands, negated, has that sign.
 */
static double sum_to_odd(double x, double y) {
    double s = x + y;
    double t = s - x;
    double error = (x - (s - t)) + (y - t);
    uint64_t bits = bits_of(s);
    int inexact = error != 0 && s - s == 0;
    bits += inexact && !(bits & 1) ? ((error > 0) == (s > 0) ? 1 : (uint64_t)-1) : 0;
    double zero = BYODT_ROUNDING == BYODT_ROUNDING_DOWN ? -((-x) + (-y)) : s;
    return s == 0 ? zero : double_of(bits);
}

/*
 * a / b as a double rounded to odd: both significands brought to [2^32, 2^33), their quotient's 41 bits by
 * restoring division (no 64-bit division call on 32-bit targets) and a sticky bit for a remainder; exact in a
 * double. Zero, infinite and NaN operands divide exactly in double.
 */
static double quotient_to_odd(T a, T b) {
    uint64_t numerator = significand_of(a), divisor = significand_of(b);
    int numerator_shift = __builtin_clzll(numerator | 1) - 31, divisor_shift = __builtin_clzll(divisor | 1) - 31;
    numerator <<= numerator_shift;
    divisor <<= divisor_shift;
    uint64_t quotient = 0;
    for (int i = 0; i <= 40; i++) {
        uint64_t fits = numerator >= divisor;
        numerator -= fits ? divisor : 0;
        quotient = (quotient << 1) | fits;
        numerator <<= 1;
    }
    int scale = exponent_of(a) - numerator_shift - exponent_of(b) + divisor_shift - 41;
    double magnitude = (double)((quotient << 1) | (numerator != 0)) * pow2(scale);
    double x = to_double(a), y = to_double(b);
    int exact = is_zero(a) || is_zero(b) || x - x != 0 || y - y != 0;
    return exact ? x / y : ((a ^ b) & SIGN_BIT) ? -magnitude : magnitude;
}
#endif

/* ---- comparisons with integers ---- */

/*
 * The sign-magnitude pattern as a signed integer that orders like the values it encodes: -magnitude for a
 * negative value, so -0 and +0 are both 0. Meaningless for NaN, which callers test first.
 */
static int32_t order_key(T a) {
    int32_t magnitude = (int32_t)(a & MAGNITUDE_MASK);
    return a & SIGN_BIT ? -magnitude : magnitude;
}

/*
 * -a by flipping the sign bit (IEEE 754 5.5.1), except where that pattern means something else: with FNUZ, -0
 * would be the NaN, so zero (and the NaN) stay; an unsigned format's negated numbers are NaN, but for zero.
 */
static T negated(T a) {
#if MF_UNSIGNED
    return is_zero(a) || is_nan(a) ? a : (T)NAN_BITS;
#elif MF_SPECIALS == MF_SPECIALS_FNUZ
    return (a & MAGNITUDE_MASK) == 0 ? a : (T)(a ^ SIGN_BIT);
#else
    return (T)(a ^ SIGN_BIT);
#endif
}

/* Neither operand is NaN: IEEE comparisons are false with a NaN, except ne. */
static int ordered(T a, T b) { return !is_nan(a) && !is_nan(b); }

/* ---- the library ---- */

#if !NEAREST_EVEN
EXPORT T FN(add)(T a, T b SR_PARAM) { return from_double(sum_to_odd(to_double(a), to_double(b)) SR_ARG); }
EXPORT T FN(sub)(T a, T b SR_PARAM) { return from_double(sum_to_odd(to_double(a), -to_double(b)) SR_ARG); }
EXPORT T FN(mul)(T a, T b SR_PARAM) { return from_double(to_double(a) * to_double(b) SR_ARG); } /* exact: p <= 26, E <= 8 */
EXPORT T FN(div)(T a, T b SR_PARAM) { return from_double(quotient_to_odd(a, b) SR_ARG); }
#elif MF_VIA_FLOAT
EXPORT T FN(add)(T a, T b) { return from_float(to_float(a) + to_float(b)); }
EXPORT T FN(sub)(T a, T b) { return from_float(to_float(a) - to_float(b)); }
EXPORT T FN(mul)(T a, T b) { return from_float(to_float(a) * to_float(b)); }
EXPORT T FN(div)(T a, T b) { return from_float(to_float(a) / to_float(b)); }
#else
EXPORT T FN(add)(T a, T b) { return from_double(to_double(a) + to_double(b)); }
EXPORT T FN(sub)(T a, T b) { return from_double(to_double(a) - to_double(b)); }
EXPORT T FN(mul)(T a, T b) { return from_double(to_double(a) * to_double(b)); }
EXPORT T FN(div)(T a, T b) { return from_double(to_double(a) / to_double(b)); }
#endif
/* ONNX Min/Max: NaN in, NaN out; equal operands (+0 and -0) give the first. */
EXPORT T FN(min)(T a, T b) { return is_nan(a) || is_nan(b) ? (T)NAN_BITS : order_key(b) < order_key(a) ? b : a; }
EXPORT T FN(max)(T a, T b) { return is_nan(a) || is_nan(b) ? (T)NAN_BITS : order_key(b) > order_key(a) ? b : a; }

EXPORT T FN(neg)(T a) { return negated(a); }
/* Clears the sign bit, except that FNUZ's NaN (the -0 pattern) stays NaN. */
EXPORT T FN(abs)(T a) { return MF_SPECIALS == MF_SPECIALS_FNUZ && is_nan(a) ? a : (T)(a & MAGNITUDE_MASK); }
EXPORT T FN(sqrt)(T a SR_PARAM) { return sqrt_format(a SR_ARG); }

/* The functions computed in double and rounded once (common/double_math.c); floor, ceil and round are exact. */
#define EXACT_DOUBLE(a) to_double(a)
#define ROUNDED(y) from_double(y SR_ARG)
EVERY_LIBRARY_THROUGH_DOUBLE(THROUGH_DOUBLE)
THROUGH_DOUBLE(log)
THROUGH_DOUBLE(tanh)
THROUGH_DOUBLE(sigmoid)
THROUGH_DOUBLE_BINARY(pow)
ROUNDINGS(THROUGH_DOUBLE)

/* IEEE comparisons: NaN is unordered (only ne is true), -0 == +0. */
EXPORT int32_t FN(lt)(T a, T b) { return ordered(a, b) && order_key(a) < order_key(b); }
EXPORT int32_t FN(le)(T a, T b) { return ordered(a, b) && order_key(a) <= order_key(b); }
EXPORT int32_t FN(gt)(T a, T b) { return ordered(a, b) && order_key(a) > order_key(b); }
EXPORT int32_t FN(ge)(T a, T b) { return ordered(a, b) && order_key(a) >= order_key(b); }
EXPORT int32_t FN(eq)(T a, T b) { return ordered(a, b) && order_key(a) == order_key(b); }
EXPORT int32_t FN(ne)(T a, T b) { return !(ordered(a, b) && order_key(a) == order_key(b)); }

#if MF_VIA_FLOAT
EXPORT T FN(from_f32)(float x) { return from_float(x); }
/* The canonical float32 NaN for every NaN, as through double. */
EXPORT float FN(to_f32)(T a) { return is_nan(a) ? f32_of(0x7fc00000u) : to_float(a); }

#if E <= 7 && !MF_UNSIGNED && (MF_SPECIALS == MF_SPECIALS_IEEE || MF_SPECIALS == MF_SPECIALS_FN)
/* The largest finite value, and what a magnitude beyond it rounds to: infinity, or itself where there is none. */
#define F32_LARGEST (((uint32_t)LARGEST_BITS << F32_DROPPED) + F32_REBIAS)
#define F32_OVERFLOWED (MF_SPECIALS == MF_SPECIALS_IEEE ? 0x7f800000u : F32_LARGEST)
/* 2^(LARGEST_BINADE + 1)'s exponent field: the largest binade rounded_f32 needs to tell apart. */
#define F32_BEYOND_LARGEST ((uint32_t)(LARGEST_BINADE + 128) << 23)
/*
 * to_f32(from_f32(x)) in float32 arithmetic, without the format's encoding: --accumulate dtype rounds twice per
 * multiply-add with it (RoundedFloat32Accumulator), so its cost is most of a dot product's.
 * Let a = |x|, a number, and e its binade (a in [2^e, 2^(e+1)); e = -127 for 0 and float32's subnormals). Below
 * the overflow, from_float rounds a to the nearest multiple of u = 2^(max(e, 1 - BIAS) - M), the format's spacing
 * at e (the subnormals' spacing below the normal range), ties to the even multiple: the encoding's last bit is the
 * multiple's parity, in normals and subnormals alike. C = 2^(max(e, 1 - BIAS) + 23 - M) has float32 spacing u in
 * [C, 2C), and a < 2^(max(e, 1 - BIAS) + 1) <= C 2^(M - 22), so a + C lies in [C, 1.001 C]: the float32 sum,
 * rounded to nearest even, is C plus a rounded to a multiple of u, ties to the even multiple (C / u = 2^23 is even),
 * and subtracting C leaves that multiple exactly. A carry to 2^(e+1) is such a multiple too. The format's values
 * are symmetric (signed IEEE or FN style, -0 included), so the sign of x goes back on as it is.
 * Overflow: from_float's encoding exceeds LARGEST_BITS exactly when the rounded magnitude exceeds the largest
 * value, and then gives infinity (IEEE) or the largest value (FN). For e above LARGEST_BINADE + 1 the exponent
 * of C stops at LARGEST_BINADE + 1 (so that its field stays below 255): then a >= 2^(LARGEST_BINADE + 2), and the
 * difference is still beyond the largest value (a < C: a rounded to a multiple of C 2^-23, which
 * 2^(LARGEST_BINADE + 2) is; a >= C: fl(a + C) >= 2C, so the difference is at least C); an infinite x stays
 * infinite. A NaN gives a NaN, not always to_f32's (DatatypeOp.ROUNDED_F32 allows that): the sums only pass it on
 * to from_f32, which gives the one NaN pattern for every NaN, and canonicalizing it here would cost two of the
 * eleven vector instructions each call takes.
 */
EXPORT float FN(rounded_f32)(float x) {
    uint32_t u = f32_bits(x);
    uint32_t magnitude = u & 0x7fffffffu;
    uint32_t field = magnitude & 0x7f800000u;
    field = field < F32_MIN_NORMAL ? F32_MIN_NORMAL : field > F32_BEYOND_LARGEST ? F32_BEYOND_LARGEST : field;
    float c = f32_of(field + ((uint32_t)(23 - M) << 23));
    float rounded = (f32_of(magnitude) + c) - c;
    rounded = rounded > f32_of(F32_LARGEST) ? f32_of(F32_OVERFLOWED) : rounded;
    return f32_of(f32_bits(rounded) | (u & 0x80000000u));
}
#else
/* to_f32(from_f32(x)) as it says (--accumulate dtype's sums in float32 registers). */
EXPORT float FN(rounded_f32)(float x) { return FN(to_f32)(FN(from_f32)(x)); }
#endif
#else
EXPORT T FN(from_f32)(float x SR_PARAM) { return from_double(x SR_ARG); }
/* Exact when E <= 8 and M <= 23; otherwise one rounding of the exact value. */
EXPORT float FN(to_f32)(T a) { return (float)to_double(a); }
#endif
EXPORT T FN(from_f64)(double x SR_PARAM) { return from_double(x SR_ARG); }
EXPORT T FN(from_i32)(int32_t x SR_PARAM) { return from_double(x SR_ARG); }
/* Truncation toward zero, saturating at the int32 range; NaN gives 0. */
EXPORT int32_t FN(to_i32)(T a) {
    double x = clamp_d(to_double(a), -2147483648.0, 2147483647.0);
    return (int32_t)(x != x ? 0 : x);
}
/* -infinity, the most negative finite value, or for an unsigned format the smallest (0, or 2^-127 for E8M0). */
EXPORT T FN(lowest)(void) { return (T)(MF_UNSIGNED ? 0 : SIGN_BIT | INFINITE_INPUT_BITS); }

/* ---- exact accumulation ----
 * The accumulator is a two's-complement fixed-point integer of ACC_WORDS * 64 bits whose unit is the square of
 * the smallest subnormal, so every product and every value is an integer in it; its top three bits are not
 * part of the number but flags: NaN seen, +infinity seen, -infinity seen. The integer part is wide enough for
 * the largest product (< 2^(2 LARGEST_BINADE + 2)) with at least 2^24 such products of headroom: 64 bits for
 * OCP E4M3, 128 for float16 and fp8e5m2, 1024 for bfloat16 (its products span 2^-266 .. 2^256).
 */
#define ACC_FRACTION_BITS (-2 * MIN_EXPONENT)
#define ACC_NEEDED_BITS (ACC_FRACTION_BITS + 2 * LARGEST_BINADE + 2 + 1 + 3 + 24)
#if ACC_NEEDED_BITS <= 64
#define ACC_WORDS 1
#elif ACC_NEEDED_BITS <= 128
#define ACC_WORDS 2
#elif ACC_NEEDED_BITS <= 256
#define ACC_WORDS 4
#elif ACC_NEEDED_BITS <= 512
#define ACC_WORDS 8
#else
#define ACC_WORDS 16
#endif
#define FLAG_NAN ((uint64_t)1 << 63)
#define FLAG_PLUS_INF ((uint64_t)1 << 62)
#define FLAG_MINUS_INF ((uint64_t)1 << 61)
#define FLAGS (FLAG_NAN | FLAG_PLUS_INF | FLAG_MINUS_INF)
/* The accumulator's width in bits, for the registry (-dM lists it). */
#define MF_ACC_BITS (64 * ACC_WORDS)

/* Adds +-magnitude * 2^shift (magnitude < 2^52, 0 <= shift < ACC_WORDS * 64 - 52) to the accumulator. */
static void acc_add_shifted(uint64_t *acc, uint64_t magnitude, int shift, int negative) {
    uint64_t flags = acc[ACC_WORDS - 1] & FLAGS;
    acc[ACC_WORDS - 1] = (uint64_t)((int64_t)(acc[ACC_WORDS - 1] << 3) >> 3); /* sign-extend the number */
    uint64_t invert = negative ? ~(uint64_t)0 : 0;
    uint64_t carry = (uint64_t)negative;                  /* -v = ~v + 1 */
    for (int i = 0; i < ACC_WORDS; i++) {
        int d = shift - 64 * i;
        uint64_t word = d >= 0 && d < 64 ? magnitude << d : d < 0 && d > -64 ? magnitude >> -d : 0;
        word ^= invert;
        uint64_t sum = acc[i] + word;
        uint64_t carry_out = sum < word;
        sum += carry;
        carry_out |= sum < carry;
        acc[i] = sum;
        carry = carry_out;
    }
    acc[ACC_WORDS - 1] = (acc[ACC_WORDS - 1] & ~FLAGS) | flags;
}

static void acc_flag(uint64_t *acc, int nan, int infinite, int negative) {
    acc[ACC_WORDS - 1] |= (nan ? FLAG_NAN : 0) | (!nan && infinite ? (negative ? FLAG_MINUS_INF : FLAG_PLUS_INF) : 0);
}

EXPORT void FN(acc_mac)(uint64_t *acc, T a, T b) {
    int a_inf = (a & MAGNITUDE_MASK) == INFINITY_BITS, b_inf = (b & MAGNITUDE_MASK) == INFINITY_BITS;
    int a_zero = (a & MAGNITUDE_MASK) == 0, b_zero = (b & MAGNITUDE_MASK) == 0;
    int negative = ((a ^ b) & SIGN_BIT) != 0;
    int nan = is_nan(a) || is_nan(b) || (a_inf && b_zero) || (b_inf && a_zero);
    int special = nan || a_inf || b_inf;
    acc_flag(acc, nan, a_inf || b_inf, negative);
    uint64_t product = special ? 0 : significand_of(a) * significand_of(b);
    acc_add_shifted(acc, product, special ? 0 : exponent_of(a) + exponent_of(b) + ACC_FRACTION_BITS, negative);
}

EXPORT void FN(acc_add)(uint64_t *acc, T a) {
    int infinite = (a & MAGNITUDE_MASK) == INFINITY_BITS, nan = is_nan(a);
    int negative = (a & SIGN_BIT) != 0;
    acc_flag(acc, nan, infinite, negative);
    int special = nan || infinite;
    acc_add_shifted(acc, special ? 0 : significand_of(a), special ? 0 : exponent_of(a) + ACC_FRACTION_BITS, negative);
}

/*
 * The accumulator rounded once: the top 52 bits of its magnitude plus a sticky bit for everything below form
 * a 53-bit integer that is exactly a double, and rounding that to the format (at most 26 bits of precision)
 * gives the same result as rounding the exact value.
 */
EXPORT T FN(acc_round)(const uint64_t *acc SR_PARAM) {
    uint64_t flags = acc[ACC_WORDS - 1] & FLAGS;
    uint64_t words[ACC_WORDS];
    for (int i = 0; i < ACC_WORDS; i++) words[i] = acc[i];
    words[ACC_WORDS - 1] = (uint64_t)((int64_t)(words[ACC_WORDS - 1] << 3) >> 3);
    int negative = (int64_t)words[ACC_WORDS - 1] < 0;
    uint64_t invert = negative ? ~(uint64_t)0 : 0, carry = (uint64_t)negative;
    int top = -1;
    for (int i = 0; i < ACC_WORDS; i++) {
        uint64_t w = (words[i] ^ invert) + carry;
        carry = carry && w == 0;
        words[i] = w;
        top = w ? 64 * i + 63 - __builtin_clzll(w) : top;
    }
    int low = top - 52;                                    /* the window is bits low..top */
    low = low < 0 ? 0 : low;
    uint64_t window = 0, sticky = 0;
    for (int i = 0; i < ACC_WORDS; i++) {
        int d = 64 * i - low;
        window |= d >= 0 && d < 64 ? words[i] << d : d < 0 && d > -64 ? words[i] >> -d : 0;
        uint64_t below = d <= -64 ? words[i] : d < 0 ? words[i] & (((uint64_t)1 << -d) - 1) : 0;
        sticky |= below;
    }
    window &= ((uint64_t)1 << 53) - 1;
    window |= sticky != 0;
    /* 2^(low - F) as two factors, each within double's normal range. */
    int scale = low - ACC_FRACTION_BITS;
    double value = (double)(int64_t)window * pow2(scale / 2) * pow2(scale - scale / 2);
    T result = from_double((negative ? -value : value) SR_ARG);
    result = flags & FLAG_PLUS_INF ? (T)INFINITY_BITS : result;
    result = flags & FLAG_MINUS_INF ? (T)(SIGN_BIT | INFINITY_BITS) : result;
    int nan = (flags & FLAG_NAN) || ((flags & FLAG_PLUS_INF) && (flags & FLAG_MINUS_INF));
    return nan ? (T)NAN_BITS : result;
}
