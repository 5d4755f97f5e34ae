/*
 * Double-precision elementary functions shared by byodt's built-in datatype libraries (float32, minifloat,
 * fixed, posit), without a C library: each library is compiled as one translation unit made of this file
 * followed by the family's own file, so every family computes exp, log, tanh, sigmoid, erf, pow, sin and cos
 * (and floor, ceil and round, exactly, and an integer square root) with the same code, and defines each such
 * function with one line (THROUGH_DOUBLE, at the end). Branch-light (selects, fixed trip counts) and always inlined, so that loops
 * calling them vectorize.
 *
 * Accuracy: the series below are truncated far beneath double's rounding (2^-60 relative or less), so the
 * results are within a few double ulps of the exact values; a format of at most 24 significand bits rounds
 * them once and gets the correctly rounded result unless the exact value lies that close to a boundary.
 * Special values follow C99 Annex F: NaN in gives NaN out, infinities and signed zeros as C's functions.
 */
#include <stdint.h>

#define DOUBLE_MATH static inline __attribute__((always_inline))

static const double LN2_HI = 6.93147180369123816490e-01; /* ln 2 rounded to 32 bits: k * LN2_HI is exact */
static const double LN2_LO = 1.90821492927058770002e-10; /* ln 2 - LN2_HI */
static const double LN2 = 6.93147180559945286227e-01;
static const double INV_LN2 = 1.44269504088896338700e+00;
static const double TWO_OVER_SQRT_PI = 1.12837916709551255856e+00;

DOUBLE_MATH uint64_t bits_of(double x) { union { double d; uint64_t u; } v = { x }; return v.u; }
DOUBLE_MATH double double_of(uint64_t u) { union { uint64_t u; double d; } v = { u }; return v.d; }
/* 2^k for -1022 <= k <= 1023, built from its exponent bits (k as wide as the double, for vectors of both). */
DOUBLE_MATH double pow2(int64_t k) { return double_of((uint64_t)(k + 1023) << 52); }
DOUBLE_MATH double abs_d(double x) { return double_of(bits_of(x) & 0x7fffffffffffffffULL); }
DOUBLE_MATH double clamp_d(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }
DOUBLE_MATH double nan_d(void) { return double_of(0x7ff8000000000000ULL); }
/* Nearest integer of |x| < 2^30 (ties away from zero: any nearby integer works for range reduction). */
DOUBLE_MATH int nearest_int(double x) { return (int)(x < 0 ? x - 0.5 : x + 0.5); }

/* e^r - 1 for |r| <= ln(2)/2 < 0.35, Taylor series to degree 14: truncation error below 0.35^15/15! < 2^-62. */
DOUBLE_MATH double expm1_small(double r) {
    double sum = 0, inverse_factorial[15];
    inverse_factorial[0] = 1;
    for (int n = 1; n <= 14; n++) inverse_factorial[n] = inverse_factorial[n - 1] / n;
    for (int n = 14; n >= 1; n--) sum = (sum + inverse_factorial[n]) * r;
    return sum;
}

/*
 * e^x with finite x clamped to [-700, 700] (beyond, every format's result is its smallest or largest, or 0 or
 * infinity, as it rounds a finite nonzero value); e^+inf = +inf and e^-inf = 0 exactly, which a directed rounding
 * tells apart from e^+-700; NaN stays NaN.
 */
DOUBLE_MATH double exp_d(double x) {
    double c = clamp_d(x, -700, 700);
    int k = nearest_int(c * INV_LN2);
    double r = (c - k * LN2_HI) - k * LN2_LO;
    double y = (1 + expm1_small(r)) * pow2(k);
    y = x == 1.0 / 0.0 ? x : x == -1.0 / 0.0 ? 0 : y;
    return x != x ? x : y;
}

/* e^x - 1 for 0 <= x <= 700 without cancellation near 0: x = k ln 2 + r, e^x - 1 = 2^k (e^r - 1) + (2^k - 1). */
DOUBLE_MATH double expm1_nonnegative(double x) {
    int k = nearest_int(x * INV_LN2);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    double scale = pow2(k);
    return scale * expm1_small(r) + (scale - 1);
}

/* ln x for finite x > 0 with a normal double: x = 2^e m, m in [0.707, 1.414], ln m = 2 atanh((m-1)/(m+1)). */
DOUBLE_MATH double log_positive(double x) {
    uint64_t b = bits_of(x);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    double m = double_of((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    int high = m > 1.4142135623730951;
    m = high ? m * 0.5 : m;
    e += high;
    double s = (m - 1) / (m + 1), s2 = s * s, sum = 0;      /* |s| <= 0.172: 16 terms reach 2^-80 */
    for (int n = 16; n >= 1; n--) sum = (sum + 1.0 / (2 * n + 1)) * s2;
    return e * LN2_HI + (e * LN2_LO + (2 * s + 2 * s * sum));
}

/* ln x: ln 0 = -inf, ln inf = inf, negative and NaN give NaN. */
DOUBLE_MATH double log_d(double x) {
    double y = log_positive(x > 0 && x < 1.0 / 0.0 ? x : 1);
    y = x == 0 ? -1.0 / 0.0 : y;
    y = x == 1.0 / 0.0 ? x : y;
    return x < 0 || x != x ? nan_d() : y;
}

/* tanh a = (e^2a - 1)/(e^2a + 1) through expm1, so small arguments keep their digits; odd, tanh(-0) = -0. */
DOUBLE_MATH double tanh_d(double x) {
    double a = clamp_d(abs_d(x), 0, 20);                     /* 1 - tanh(20) < 2^-57: the double is 1 */
    a = x != x ? 0 : a;
    double t = expm1_nonnegative(2 * a);
    double y = t / (t + 2);
    return x != x ? x : bits_of(x) >> 63 ? -y : y;
}

DOUBLE_MATH double sigmoid_d(double x) { return 1 / (1 + exp_d(-x)); }

/*
 * erf x = 2/sqrt(pi) e^(-x^2) sum_{n>=0} 2^n x^(2n+1) / (1*3*...*(2n+1)): every term positive, so no
 * cancellation; 150 terms reach 2^-60 relative for |x| < 6. Beyond 6, erf rounds to +-1 in double.
 */
DOUBLE_MATH double erf_d(double x) {
    double a = clamp_d(abs_d(x), 0, 6);
    a = x != x ? 0 : a;
    double a2 = a * a, term = a, sum = a;
    for (int n = 0; n < 150; n++) {
        term *= 2 * a2 / (2 * n + 3);
        sum += term;
    }
    double y = TWO_OVER_SQRT_PI * exp_d(-a2) * sum;
    y = abs_d(x) >= 6 ? 1 : y;
    return x != x ? x : bits_of(x) >> 63 ? -y : y;
}

DOUBLE_MATH int is_integer_d(double y) {
    double a = abs_d(y);
    double t = (a + 4503599627370496.0) - 4503599627370496.0; /* rounds |y| < 2^52 to an integer */
    return a >= 4503599627370496.0 || t == a;
}

DOUBLE_MATH int is_odd_integer_d(double y) {
    double a = abs_d(y);
    return a < 9007199254740992.0 && is_integer_d(y) && !is_integer_d(a * 0.5);
}

/* x^y with C99 Annex F's special cases; the general case is e^(y ln|x|). */
DOUBLE_MATH double pow_d(double x, double y) {
    double ax = abs_d(x);
    double inf = 1.0 / 0.0;
    int odd = is_odd_integer_d(y);
    double magnitude = exp_d(clamp_d(y * log_d(ax > 0 && ax < inf ? ax : 1), -1e4, 1e4));
    magnitude = ax == 0 ? (y < 0 ? inf : 0) : magnitude;
    magnitude = ax == inf ? (y < 0 ? 0 : inf) : magnitude;
    magnitude = y == inf ? (ax < 1 ? 0 : inf) : magnitude;
    magnitude = y == -inf ? (ax < 1 ? inf : 0) : magnitude;
    magnitude = ax == 1 && (y == inf || y == -inf) ? 1 : magnitude;
    double result = x < 0 && odd ? -magnitude : magnitude;
    result = x == 0 && odd ? (bits_of(x) >> 63 ? -magnitude : magnitude) : result;
    result = x < 0 && x != -inf && !is_integer_d(y) && abs_d(y) != inf ? nan_d() : result;
    result = x != x || y != y ? nan_d() : result;
    return y == 0 || x == 1 ? 1 : result;
}

/* ---- rounding to integers: exact, signs of zero kept (floor(-0.5) = -1, ceil(-0.5) = -0, round(-0.4) = -0) */

DOUBLE_MATH double with_sign_of(double sign, double magnitude) {
    return double_of((bits_of(magnitude) & 0x7fffffffffffffffULL) | (bits_of(sign) & 0x8000000000000000ULL));
}

/* The nearest integer, ties to even: adding and removing 2^52 rounds |x| < 2^52 in the default rounding mode;
   from 2^52 on every double is an integer (and infinities and NaN stay what they are). */
DOUBLE_MATH double round_d(double x) {
    double a = abs_d(x);
    double r = a < 4503599627370496.0 ? (a + 4503599627370496.0) - 4503599627370496.0 : a;
    return with_sign_of(x, r);
}

DOUBLE_MATH double floor_d(double x) {
    double r = round_d(x);
    return with_sign_of(x, r > x ? r - 1 : r);
}

DOUBLE_MATH double ceil_d(double x) {
    double r = round_d(x);
    return with_sign_of(x, r < x ? r + 1 : r);
}

/* ---- integer square root, for the families whose sqrt is exact on integers (fixed point, minifloat) */

/* floor(sqrt(v)) for v < 2^62, digit by digit. */
DOUBLE_MATH uint64_t isqrt(uint64_t v) {
    uint64_t root = 0, remainder = v;
    for (int bit = 30; bit >= 0; bit--) {
        uint64_t trial = (root << (bit + 1)) + ((uint64_t)1 << (2 * bit));
        int fits = remainder >= trial;
        remainder -= fits ? trial : 0;
        root += fits ? (uint64_t)1 << bit : 0;
    }
    return root;
}

/* ---- sin and cos */

/* The bits of 2/pi after the binary point, 32 to a word: word i holds bits 32i + 1 .. 32i + 32. Enough for the
   largest double (see reduce_half_pi). */
static const uint32_t TWO_OVER_PI[37] = {
    0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB, 0xDEBBC561,
    0xB7246E3A, 0x424DD2E0, 0x06492EEA, 0x09D1921C, 0xFE1DEB1C, 0xB129A73E, 0xE88235F5, 0x2EBB4484,
    0xE99C7026, 0xB45F7E41, 0x3991D639, 0x835339F4, 0x9C845F8B, 0xBDF9283B, 0x1FF897FF, 0xDE05980F,
    0xEF2F118B, 0x5A0A6D1F, 0x6D367ECF, 0x27CB09B7, 0x4F463F66, 0x9E5FEA2D, 0x7527BAC7, 0xEBE5F17B,
    0x3D0739F7, 0x8A5292EA, 0x6BFB5FB1, 0x1F8D5D08, 0x56033046};
static const double HALF_PI = 1.57079632679489661923;

/* Bits lowest .. lowest + 63 of the little-endian 32-bit words p (the two words above lowest's must exist). */
DOUBLE_MATH uint64_t bits_from(const uint32_t *p, int lowest) {
    int word = lowest >> 5, shift = lowest & 31;
    uint64_t low = p[word] | (uint64_t)p[word + 1] << 32;
    uint64_t high = p[word + 2];
    return (low >> shift) | (shift ? high << (64 - shift) : 0);
}

/*
 * |x| = (4n + quadrant + f) pi/2 for a finite double: the quadrant, and r = f pi/2 with |f| <= 1/2 returned
 * (Payne and Hanek's reduction). |x| = m 2^e with an integer m < 2^53; the bits of 2/pi down to 2^-(e-2) make
 * |x| 2/pi grow by multiples of 4, which change neither sin nor cos, so the product m W of m and the next 224
 * bits W of 2/pi (from word k on) gives |x| 2/pi mod 4 with 2 integer and 126 fraction bits, wrong by less than
 * m 2^-224 relative to W's last bit: below the 2^-126 kept. The closest double to a multiple of pi/2 leaves
 * |f| > 2^-62, so the 126 bits keep at least 64 significant ones, more than the double result needs.
 */
DOUBLE_MATH double reduce_half_pi(double x, int *quadrant) {
    uint64_t b = bits_of(x);
    int biased = (int)((b >> 52) & 0x7ff);
    uint64_t m = (b & 0x000fffffffffffffULL) | (biased ? (uint64_t)1 << 52 : 0);
    int e = (biased ? biased : 1) - 1075;
    int k = e >= 2 ? (e - 2) >> 5 : 0;                      /* at most (2046 - 1075 - 2) / 32 = 30 */
    uint32_t p[9];
    uint64_t m_low = m & 0xffffffffu, m_high = m >> 32, carry = 0;
    for (int i = 0; i < 7; i++) {
        uint64_t v = (uint64_t)TWO_OVER_PI[k + 6 - i] * m_low + carry;
        p[i] = (uint32_t)v;
        carry = v >> 32;
    }
    p[7] = (uint32_t)carry;
    carry = 0;
    for (int i = 0; i < 7; i++) {
        uint64_t v = (uint64_t)TWO_OVER_PI[k + 6 - i] * m_high + p[i + 1] + carry;
        p[i + 1] = (uint32_t)v;
        carry = v >> 32;
    }
    p[8] = (uint32_t)carry;
    int point = 32 * (k + 7) - e;                           /* bit of p worth 1: 191 .. 222, or up to 277 */
    uint64_t top = bits_from(p, point - 62);                /* 2 integer bits, 62 fraction bits */
    uint64_t next = bits_from(p, point - 126);              /* the next 64 fraction bits */
    /* The fraction in [-1/2, 1/2) as a signed 128-bit number: from 1/2 on it is f - 1 of the next quadrant. */
    int64_t high = (int64_t)((top << 2) | (next >> 62));
    uint64_t low = next << 2;
    *quadrant = (int)((top >> 62) + ((uint64_t)high >> 63)) & 3;
    double f = (double)high * 0x1p-64 + (double)(int64_t)(low >> 11) * 0x1p-117;
    return f * HALF_PI;
}

/* sin r and cos r for |r| <= pi/4 by their Taylor series to degree 23 and 22 (truncation below 2^-80),
   nested so that every step is 1 - (something below 0.31): no cancellation. */
DOUBLE_MATH double sin_small(double r) {
    double r2 = r * r, s = 1;
    for (int n = 11; n >= 1; n--) s = 1 - r2 * s / ((2 * n) * (2 * n + 1));
    return r * s;
}

DOUBLE_MATH double cos_small(double r) {
    double r2 = r * r, c = 1;
    for (int n = 11; n >= 1; n--) c = 1 - r2 * c / ((2 * n - 1) * (2 * n));
    return c;
}

/* sin or cos (phase 0 or 1 quarter turn) of x: reduced to |r| <= pi/4 from pi/4 on, x itself below. */
DOUBLE_MATH double sin_quarter_turns(double x, int phase) {
    double a = abs_d(x);
    int finite_large = a >= 0.78539816339744830962 && a < 1.0 / 0.0;
    int quadrant;
    double reduced = reduce_half_pi(finite_large ? a : 1.0, &quadrant);
    double r = finite_large ? reduced : a;
    quadrant = finite_large ? quadrant : 0;
    int turn = (quadrant + phase) & 3;
    double y = turn & 1 ? cos_small(r) : sin_small(r);
    y = turn & 2 ? -y : y;
    return a == 1.0 / 0.0 || x != x ? nan_d() : y;
}

/* sin is odd: computed on |x|, then given x's sign (sin(-0) = -0). */
DOUBLE_MATH double sin_d(double x) {
    double y = sin_quarter_turns(x, 0);
    return bits_of(x) >> 63 ? -y : y;
}

/* cos x = sin(|x| + pi/2). */
DOUBLE_MATH double cos_d(double x) { return sin_quarter_turns(x, 1); }

/*
 * One line per operation in each library. THROUGH_DOUBLE(op) defines the library function FN(op) as op_d of
 * the argument's exact value, rounded once to the format; THROUGH_DOUBLE_BINARY(op) likewise for two operands.
 * A library names its storage type T, its functions' attributes EXPORT and its functions FN(op), and defines
 * EXACT_DOUBLE(a) (the value of a as a double) and ROUNDED(y) (y rounded to the format) before using them;
 * a stochastic library's functions take the counter of common/rounding.c (SR_PARAM), which ROUNDED passes on.
 */
#define THROUGH_DOUBLE(op) EXPORT T FN(op)(T a SR_PARAM) { return ROUNDED(op##_d(EXACT_DOUBLE(a))); }
#define THROUGH_DOUBLE_BINARY(op) EXPORT T FN(op)(T a, T b SR_PARAM) { return ROUNDED(op##_d(EXACT_DOUBLE(a), EXACT_DOUBLE(b))); }
/* What the built-in libraries compute with the lines above: EVERY_LIBRARY_THROUGH_DOUBLE(THROUGH_DOUBLE), except
   float32's, which lists them less exp and erf, computed by its own code. */
#define EVERY_LIBRARY_THROUGH_DOUBLE(X) X(exp) X(erf) X(sin) X(cos)
/* Exact through double wherever the format holds the integers next to its values (floats and posits do). */
#define ROUNDINGS(X) X(floor) X(ceil) X(round)
