/*
 * Double-precision elementary functions shared by byodt's built-in datatype libraries (float32, minifloat,
 * fixed, posit), without a C library: each library is compiled as one translation unit made of this file
 * followed by the family's own file, so every family computes exp, log, tanh, sigmoid, erf and pow with the
 * same code. Branch-light (selects, fixed trip counts) and always inlined, so that loops calling them vectorize.
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
/* 2^k for -1022 <= k <= 1023, built from its exponent bits. */
DOUBLE_MATH double pow2(int k) { return double_of((uint64_t)(k + 1023) << 52); }
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

/* e^x with x clamped to [-700, 700] (beyond, every format's result is 0 or overflows anyway); NaN stays NaN. */
DOUBLE_MATH double exp_d(double x) {
    double c = clamp_d(x, -700, 700);
    int k = nearest_int(c * INV_LN2);
    double r = (c - k * LN2_HI) - k * LN2_LO;
    double y = (1 + expm1_small(r)) * pow2(k);
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
