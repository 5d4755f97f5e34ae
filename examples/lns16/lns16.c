/*
 * lns16: a 16-bit logarithmic number system, written for byodt from scratch as the example of
 * docs/bring-your-own-datatype.md.
 *
 * A value is stored in a uint16_t as a sign bit and a 15-bit field F:
 *   bit 15     sign (1 = negative)
 *   bits 14..0 F = round(1024 * log2|x|) + 16384, a fixed-point log2 with 5 integer and 10 fraction bits
 * so |x| = 2^((F - 16384) / 1024), from 2^-16 (F = 1) to just under 2^16 (F = 32767), and neighbouring values
 * differ by a factor of 2^(1/1024), about 0.07%. Two codes are special:
 *   0x0000  zero (F = 0)
 *   0x8000  NaN, "not a real" (the negative zero code): 0/0, sqrt(-1), log(-1), and NaN from float
 * There are no infinities: results too large saturate to the largest magnitude, results too small become zero.
 *
 * Multiplication and division are additions and subtractions of the logs: integer arithmetic only.
 * Addition needs the Gaussian logarithms, log2|a + b| = log2|a| + log2(1 +- 2^-d) with d = log2|a| - log2|b|
 * >= 0, computed in double and rounded once, so each sum is the correctly rounded log (up to the double's error).
 * Everything else goes through double with this file's own exp2 and log2: byodt libraries have no libm.
 *
 * byodt compiles this file with -DBYODT_PREFIX=lns16; every function is PREFIX_op.
 */
#include <stdint.h>

#ifndef BYODT_PREFIX
#define BYODT_PREFIX lns16
#endif
#define GLUE(a, b) a##_##b
#define NAME(prefix, op) GLUE(prefix, op)
#define FN(op) NAME(BYODT_PREFIX, op)
/* Helpers are static; the operations have external linkage so byodt finds them, and inline into the model's loops. */
#define INLINE __attribute__((always_inline)) inline
#define EXPORT __attribute__((always_inline))

typedef uint16_t lns;

#define LNS_ZERO ((lns) 0x0000)
#define LNS_NAN ((lns) 0x8000)
#define LNS_BIAS 16384
#define LNS_FIELD_MAX 32767
#define LNS_FRACTION 1024.0

static const double LN2 = 0.69314718055994530942;

static INLINE int32_t sign_of(lns x) { return x >> 15; }
static INLINE int32_t field_of(lns x) { return x & 0x7FFF; }
static INLINE int is_nan(lns x) { return x == LNS_NAN; }
static INLINE int is_zero(lns x) { return x == LNS_ZERO; }
/* log2|x| in units of 2^-10, for x neither zero nor NaN. */
static INLINE int32_t log_of(lns x) { return field_of(x) - LNS_BIAS; }

/* The value of sign and log2 magnitude (units of 2^-10): saturating above the range, zero below it. */
static INLINE lns pack(int32_t sign, int32_t log2_units) {
    int32_t field = log2_units + LNS_BIAS;
    field = field > LNS_FIELD_MAX ? LNS_FIELD_MAX : field;
    return field < 1 ? LNS_ZERO : (lns) ((sign << 15) | field);
}

/* round(v), halves upwards, for |v| < 2^20: truncation is exact for the non-negative v + 2^20 + 0.5. */
static INLINE int32_t round_units(double v) { return (int32_t) (v + 1048576.5) - 1048576; }

/* ---- double arithmetic without libm */

static INLINE double from_bits(uint64_t bits) {
    union { uint64_t u; double d; } v = { .u = bits };
    return v.d;
}

static INLINE uint64_t to_bits(double d) {
    union { double d; uint64_t u; } v = { .d = d };
    return v.u;
}

/* 2^x for x in [-1000, 1000] (clamped): 2^n times e^(r ln 2) with |r| <= 1/2, Taylor to degree 12. */
static INLINE double exp2_double(double x) {
    x = x < -1000.0 ? -1000.0 : x > 1000.0 ? 1000.0 : x;
    int32_t n = round_units(x);
    double t = (x - n) * LN2;
    double p = 1.0 / 479001600.0;
    p = p * t + 1.0 / 39916800.0;
    p = p * t + 1.0 / 3628800.0;
    p = p * t + 1.0 / 362880.0;
    p = p * t + 1.0 / 40320.0;
    p = p * t + 1.0 / 5040.0;
    p = p * t + 1.0 / 720.0;
    p = p * t + 1.0 / 120.0;
    p = p * t + 1.0 / 24.0;
    p = p * t + 1.0 / 6.0;
    p = p * t + 0.5;
    p = p * t + 1.0;
    p = p * t + 1.0;
    return p * from_bits((uint64_t) (n + 1023) << 52);
}

/* log2 x for a positive normal double: the exponent plus log of the mantissa m in [sqrt(1/2), sqrt(2)),
   as 2 atanh(s) with s = (m - 1)/(m + 1), |s| < 0.172, to s^21. */
static INLINE double log2_double(double x) {
    uint64_t bits = to_bits(x);
    int32_t exponent = (int32_t) (bits >> 52) - 1023;
    double m = from_bits((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
    int big = m > 1.4142135623730951;
    m = big ? m * 0.5 : m;
    exponent += big;
    double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = 1.0 / 21.0;
    p = p * s2 + 1.0 / 19.0;
    p = p * s2 + 1.0 / 17.0;
    p = p * s2 + 1.0 / 15.0;
    p = p * s2 + 1.0 / 13.0;
    p = p * s2 + 1.0 / 11.0;
    p = p * s2 + 1.0 / 9.0;
    p = p * s2 + 1.0 / 7.0;
    p = p * s2 + 1.0 / 5.0;
    p = p * s2 + 1.0 / 3.0;
    p = p * s2 + 1.0;
    return exponent + 2.0 * s * p / LN2;
}

/* The value of x in double (NaN for NaN). */
static INLINE double to_double(lns x) {
    double magnitude = exp2_double(log_of(x) / LNS_FRACTION);
    double value = sign_of(x) ? -magnitude : magnitude;
    return is_nan(x) ? __builtin_nan("") : is_zero(x) ? 0.0 : value;
}

/* The value whose log2 magnitude is l2 (a double), rounded to 10 fraction bits. */
static INLINE lns from_log2(int32_t sign, double l2) {
    l2 = l2 < -64.0 ? -64.0 : l2 > 64.0 ? 64.0 : l2;
    return pack(sign, round_units(l2 * LNS_FRACTION));
}

EXPORT lns FN(from_f64)(double x) {
    double magnitude = x < 0 ? -x : x;
    /* Beyond the range the log is clamped (saturation, or zero); inside, log2 of a normal double. */
    double clamped = magnitude < 0x1p-20 ? 0x1p-20 : magnitude > 0x1p20 ? 0x1p20 : magnitude;
    lns value = from_log2(x < 0, log2_double(clamped));
    return x != x ? LNS_NAN : magnitude < 0x1p-20 ? LNS_ZERO : value;
}

EXPORT lns FN(from_f32)(float x) { return FN(from_f64)((double) x); }
EXPORT float FN(to_f32)(lns x) { return (float) to_double(x); }
EXPORT lns FN(from_i32)(int32_t x) { return FN(from_f64)((double) x); }

/* Towards zero, as C casts do; NaN gives 0. Every lns16 value fits in an int32_t. */
EXPORT int32_t FN(to_i32)(lns x) { return is_nan(x) ? 0 : (int32_t) to_double(x); }

/* The most negative value: where max-pooling starts. */
EXPORT lns FN(lowest)(void) { return (lns) 0xFFFF; }

/* ---- arithmetic */

EXPORT lns FN(neg)(lns x) { return is_nan(x) || is_zero(x) ? x : (lns) (x ^ 0x8000); }
EXPORT lns FN(abs)(lns x) { return is_nan(x) ? x : (lns) (x & 0x7FFF); }

EXPORT lns FN(mul)(lns a, lns b) {
    lns product = pack(sign_of(a) ^ sign_of(b), log_of(a) + log_of(b));
    return is_nan(a) || is_nan(b) ? LNS_NAN : is_zero(a) || is_zero(b) ? LNS_ZERO : product;
}

/* Without infinities, x/0 is NaN. */
EXPORT lns FN(div)(lns a, lns b) {
    lns quotient = pack(sign_of(a) ^ sign_of(b), log_of(a) - log_of(b));
    return is_nan(a) || is_nan(b) || is_zero(b) ? LNS_NAN : is_zero(a) ? LNS_ZERO : quotient;
}

/* The larger magnitude keeps its sign; the smaller one scales it by 1 + 2^-d (same signs) or 1 - 2^-d. */
EXPORT lns FN(add)(lns a, lns b) {
    int a_larger = field_of(a) >= field_of(b);
    lns large = a_larger ? a : b, small = a_larger ? b : a;
    int32_t d = field_of(large) - field_of(small);
    double ratio = exp2_double(-d / LNS_FRACTION);
    double factor = sign_of(a) == sign_of(b) ? 1.0 + ratio : 1.0 - ratio;
    /* Equal magnitudes of opposite signs cancel exactly: no log2(0). */
    double gaussian = log2_double(factor == 0.0 ? 1.0 : factor);
    lns sum = pack(sign_of(large), log_of(large) + round_units(gaussian * LNS_FRACTION));
    lns cancelled = factor == 0.0 ? LNS_ZERO : sum;
    return is_nan(a) || is_nan(b) ? LNS_NAN : is_zero(a) ? b : is_zero(b) ? a : cancelled;
}

EXPORT lns FN(sub)(lns a, lns b) { return FN(add)(a, FN(neg)(b)); }

/* Order: the magnitude's field with the sign applied, so that -x < 0 < x. NaN is unordered. */
static INLINE int32_t order_key(lns x) { return sign_of(x) ? -field_of(x) : field_of(x); }
static INLINE int unordered(lns a, lns b) { return is_nan(a) || is_nan(b); }

EXPORT int32_t FN(lt)(lns a, lns b) { return !unordered(a, b) && order_key(a) < order_key(b); }
EXPORT int32_t FN(le)(lns a, lns b) { return !unordered(a, b) && order_key(a) <= order_key(b); }
EXPORT int32_t FN(gt)(lns a, lns b) { return !unordered(a, b) && order_key(a) > order_key(b); }
EXPORT int32_t FN(ge)(lns a, lns b) { return !unordered(a, b) && order_key(a) >= order_key(b); }
EXPORT int32_t FN(eq)(lns a, lns b) { return !unordered(a, b) && a == b; }
EXPORT int32_t FN(ne)(lns a, lns b) { return unordered(a, b) || a != b; }

/* ONNX Min and Max: NaN in, NaN out. */
EXPORT lns FN(min)(lns a, lns b) { return unordered(a, b) ? LNS_NAN : order_key(a) <= order_key(b) ? a : b; }
EXPORT lns FN(max)(lns a, lns b) { return unordered(a, b) ? LNS_NAN : order_key(a) >= order_key(b) ? a : b; }

/* ---- functions: the log makes sqrt and log exact integer work; the rest goes through double */

/* Half the log, ties to even. */
EXPORT lns FN(sqrt)(lns x) {
    int32_t l = log_of(x), half = l >> 1;
    half += (l & 1) & (half & 1);
    return is_zero(x) ? LNS_ZERO : is_nan(x) || sign_of(x) ? LNS_NAN : pack(0, half);
}

/* ln|x| = log2|x| ln 2, from the stored log; log 0 saturates to the lowest value. */
EXPORT lns FN(log)(lns x) {
    double ln = log_of(x) / LNS_FRACTION * LN2;
    lns value = FN(from_f64)(ln);
    return is_nan(x) || (sign_of(x) && !is_zero(x)) ? LNS_NAN : is_zero(x) ? FN(lowest)() : value;
}

/* e^x: its log2 is x / ln 2, no exponential needed. */
EXPORT lns FN(exp)(lns x) {
    lns value = from_log2(0, to_double(x) / LN2);
    return is_nan(x) ? LNS_NAN : value;
}

EXPORT lns FN(tanh)(lns x) {
    double v = to_double(x);
    double clamped = v < -20.0 ? -20.0 : v > 20.0 ? 20.0 : v;
    double e = exp2_double(2.0 * clamped / LN2);
    return is_nan(x) ? LNS_NAN : FN(from_f64)((e - 1.0) / (e + 1.0));
}

EXPORT lns FN(sigmoid)(lns x) {
    double v = to_double(x);
    return is_nan(x) ? LNS_NAN : FN(from_f64)(1.0 / (1.0 + exp2_double(-v / LN2)));
}

/* erf by its Maclaurin series to the 60th term below |x| = 4 (error below 1e-12 there); beyond, erf is
   within 2e-8 of +-1, far less than half a step of lns16 near 1. */
EXPORT lns FN(erf)(lns x) {
    double v = to_double(x);
    double a = v < 0 ? -v : v;
    double t = a < 4.0 ? a : 0.0, t2 = t * t, term = t, sum = t;
    for (int n = 1; n < 60; n++) {
        term *= -t2 / n;
        sum += term / (2 * n + 1);
    }
    double magnitude = a < 4.0 ? sum * 1.1283791670955126 : 1.0;
    return is_nan(x) ? LNS_NAN : FN(from_f64)(v < 0 ? -magnitude : magnitude);
}

/* a^b = 2^(b log2 a) for a > 0; a negative base needs an integer exponent, whose parity gives the sign. */
EXPORT lns FN(pow)(lns a, lns b) {
    double exponent = to_double(b);
    int32_t whole = (int32_t) exponent;
    int integral = exponent == (double) whole;
    lns power = from_log2(sign_of(a) && (whole & 1), exponent * (log_of(a) / LNS_FRACTION));
    lns of_zero = exponent > 0 ? LNS_ZERO : exponent == 0 ? pack(0, 0) : (lns) LNS_FIELD_MAX;
    return is_nan(a) || is_nan(b) || (sign_of(a) && !is_zero(a) && !integral) ? LNS_NAN
        : is_zero(a) ? of_zero : power;
}

/* ---- floor, ceil, round, sin, cos: through double, rounded once. A value is 2^(k/1024), irrational unless k is
   a multiple of 1024, so the integers of the range are powers of two or lie between values. */

/* The nearest integer, ties to even: adding and removing 2^52 rounds |v| < 2^52 (every value is below 2^16). */
static INLINE double nearest_integer(double v) {
    double a = v < 0 ? -v : v;
    double r = (a + 4503599627370496.0) - 4503599627370496.0;
    return v < 0 ? -r : r;
}

EXPORT lns FN(round)(lns x) { return FN(from_f64)(nearest_integer(to_double(x))); }

EXPORT lns FN(floor)(lns x) {
    double v = to_double(x), r = nearest_integer(v);
    return FN(from_f64)(r > v ? r - 1.0 : r);
}

EXPORT lns FN(ceil)(lns x) {
    double v = to_double(x), r = nearest_integer(v);
    return FN(from_f64)(r < v ? r + 1.0 : r);
}

/* pi/2 in three 33-bit parts and a tail (fdlibm's): k times each of the first three is exact for k < 2^20. */
static const double PIO2_1 = 1.57079632673412561417e+00;
static const double PIO2_2 = 6.07710050630396597660e-11;
static const double PIO2_3 = 2.02226624871116645580e-21;
static const double PIO2_3_TAIL = 8.47842766036889956997e-32;

/* sin v (quarter_turns 0) or cos v = sin(v + pi/2) (quarter_turns 1): v = k pi/2 + r with |r| <= pi/4, then the
   Taylor series of sin r or cos r to degree 23 or 22, nested so that no step cancels. */
static INLINE double sine(double v, int32_t quarter_turns) {
    int32_t k = round_units(v * 0.63661977236758134308);
    double r = (((v - k * PIO2_1) - k * PIO2_2) - k * PIO2_3) - k * PIO2_3_TAIL;
    double r2 = r * r, s = 1.0, c = 1.0;
    for (int n = 11; n >= 1; n--) {
        s = 1.0 - r2 * s / ((2 * n) * (2 * n + 1));
        c = 1.0 - r2 * c / ((2 * n - 1) * (2 * n));
    }
    int32_t quadrant = (k + quarter_turns) & 3;
    double y = quadrant & 1 ? c : r * s;
    return quadrant & 2 ? -y : y;
}

EXPORT lns FN(sin)(lns x) { return is_nan(x) ? LNS_NAN : FN(from_f64)(sine(to_double(x), 0)); }
EXPORT lns FN(cos)(lns x) { return is_nan(x) ? LNS_NAN : FN(from_f64)(sine(to_double(x), 1)); }
