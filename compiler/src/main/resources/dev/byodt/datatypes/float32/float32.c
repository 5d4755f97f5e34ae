/*
 * The float32 datatype's math library: exp, log, tanh, sigmoid, erf and pow on IEEE binary32.
 *
 * Pure functions, no C library (not even libm), so the code runs on targets without one and inlines
 * into the kernels that call it. Each function computes in double, with a relative error far below
 * float's precision (2^-45 or less), and rounds once to float: the result is the correctly rounded one or its neighbour
 * (within 1 ulp), and special values (NaN, infinities, signed zeros, overflow, underflow, subnormals)
 * follow C99 Annex F.
 */

/* The exported functions inline into every kernel that calls them, where the loops around them can vectorize. */
#define ALWAYS_INLINE __attribute__((always_inline))

typedef unsigned long long u64;
typedef long long i64;

static const double LN2_HI = 6.93147180369123816490e-01; /* ln 2, high 32 bits: k * LN2_HI is exact */
static const double LN2_LO = 1.90821492927058770002e-10; /* ln 2 - LN2_HI */
static const double INV_LN2 = 1.44269504088896338700e+00;
static const double LN2 = 6.93147180559945286227e-01;
static const double TWO_OVER_SQRT_PI = 1.12837916709551255856e+00;
static const double INV_SQRT_PI = 5.64189583547756279280e-01;

static u64 bits_of(double x) { union { double d; u64 u; } v = { x }; return v.u; }
static double double_of(u64 u) { union { u64 u; double d; } v = { u }; return v.d; }
static unsigned float_bits(float x) { union { float f; unsigned u; } v = { x }; return v.u; }

static int is_nan(float x) { return x != x; }
static double fabs_d(double x) { return double_of(bits_of(x) & 0x7fffffffffffffffULL); }
static float copysign_f(float magnitude, float sign) {
    union { float f; unsigned u; } m = { magnitude }, s = { sign };
    m.u = (m.u & 0x7fffffffu) | (s.u & 0x80000000u);
    return m.f;
}

/* 2^k for -1022 <= k <= 1023, built from its exponent bits. */
static double pow2(int k) { return double_of((u64)(k + 1023) << 52); }

/* Rounds to the nearest integer, for |x| < 2^31. */
static int round_to_int(double x) { return (int)(x < 0 ? x - 0.5 : x + 0.5); }

/*
 * e^r - 1 for |r| <= ln(2)/2 by its Taylor series, summed from the small end: 11 terms leave an error
 * below 0.35^11/12! (< 2^-45 relative to r). That is far below float's 2^-24, so the rounded result stays
 * within 1 ulp, and every term fewer is one multiply-add fewer on the critical path of tanh, exp and sigmoid.
 */
static double expm1_reduced(double r) {
    double sum = 0;
    double term_denominator = 1;
    double coefficients[12];
    for (int n = 1; n <= 11; n++) {
        term_denominator *= n;
        coefficients[n] = 1 / term_denominator;
    }
    for (int n = 11; n >= 1; n--) sum = (sum + coefficients[n]) * r;
    return sum;
}

/* e^x in double for |x| < 700: x = k ln2 + r with |r| <= ln2/2, e^x = 2^k e^r. */
static double exp_d(double x) {
    int k = round_to_int(x * INV_LN2);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    return (1 + expm1_reduced(r)) * pow2(k);
}

/*
 * e^x - 1 in double for 0 <= x < 700, without branches (so loops calling it vectorize) and without
 * cancellation near 0: with x = k ln2 + r, e^x - 1 = 2^k (e^r - 1) + (2^k - 1), where k = 0 leaves e^r - 1
 * itself and k >= 1 adds two numbers of which the second dominates.
 */
static double expm1_nonnegative(double x) {
    int k = round_to_int(x * INV_LN2);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    double scale = pow2(k);
    return scale * expm1_reduced(r) + (scale - 1);
}

/* ln x in double for finite x > 0 (float arguments, so the double is normal). */
static double log_d(double x) {
    u64 b = bits_of(x);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    double m = double_of((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL); /* in [1, 2) */
    if (m > 1.4142135623730951) { m *= 0.5; e += 1; }                          /* in [0.707, 1.414] */
    /* ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.1716: s^2 <= 0.0295, 14 terms give < 2^-60. */
    double s = (m - 1) / (m + 1);
    double s2 = s * s;
    double sum = 0;
    for (int n = 14; n >= 1; n--) sum = (sum + 1.0 / (2 * n + 1)) * s2;
    double ln_m = 2 * s + 2 * s * sum;
    return e * LN2_HI + (e * LN2_LO + ln_m);
}

ALWAYS_INLINE float float32_exp(float x) {
    if (is_nan(x)) return x;
    if (x > 89.0f) return 1.0f / 0.0f;                                         /* beyond ln(FLT_MAX): +inf */
    if (x < -104.0f) return 0.0f;                                             /* below half of the smallest subnormal */
    return (float)exp_d(x);
}

ALWAYS_INLINE float float32_log(float x) {
    if (is_nan(x)) return x;
    if (x < 0) return 0.0f / 0.0f;
    if (x == 0) return -1.0f / 0.0f;
    if (x == 1.0f / 0.0f) return x;
    return (float)log_d(x);
}

ALWAYS_INLINE float float32_tanh(float x) {
    /* Straight-line code with selects, so that a loop of tanh vectorizes. Beyond 10, tanh rounds to +-1
       (1 - tanh(10) < 2^-25); NaN is replaced by 0 inside and returned at the end. */
    double a = fabs_d(x);
    a = a < 10 ? a : 10;
    a = is_nan(x) ? 0 : a;
    /* tanh a = (e^2a - 1)/(e^2a + 1), with expm1 so that small arguments keep their digits. */
    double t = expm1_nonnegative(2 * a);
    float result = copysign_f((float)(t / (t + 2)), x);       /* odd: keeps the sign of zero */
    return is_nan(x) ? x : result;
}

ALWAYS_INLINE float float32_sigmoid(float x) {
    if (is_nan(x)) return x;
    if (x > 20) return 1.0f;                          /* 1 - sigmoid(20) < 2^-25 */
    if (x < -110) return 0.0f;                        /* e^-110 is below float's smallest subnormal */
    return (float)(1 / (1 + exp_d(-(double)x)));
}

ALWAYS_INLINE float float32_erf(float x) {
    if (is_nan(x)) return x;
    double a = fabs_d(x);
    double result;
    if (a < 2.5) {
        /* Maclaurin series: erf a = 2/sqrt(pi) sum (-1)^n a^(2n+1) / (n! (2n+1)); 60 terms reach 2^-60 at a = 2.5. */
        double a2 = a * a, term = a, sum = a;
        for (int n = 1; n < 60; n++) {
            term *= -a2 / n;
            sum += term / (2 * n + 1);
        }
        result = sum * TWO_OVER_SQRT_PI;
    } else if (a < 4.5) {
        /* erfc a = e^(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))), a Laplace continued fraction. */
        double f = 0;
        for (int n = 80; n >= 1; n--) f = (n * 0.5) / (a + f);
        result = 1 - exp_d(-a * a) * INV_SQRT_PI / (a + f);
    } else {
        result = 1;                                    /* erfc(4.5) < 2^-30 */
    }
    return copysign_f((float)result, x);
}

/* 0 when y is not an integer, 1 when it is an odd integer, 2 when it is an even integer. */
static int integer_kind(float y) {
    float a = y < 0 ? -y : y;
    if (a >= 16777216.0f) return 2;                   /* 2^24 and beyond: every float is an even integer */
    if (a >= 8388608.0f) return (float_bits(a) & 1) ? 1 : 2; /* [2^23, 2^24): integers, the last bit is the parity */
    i64 n = (i64)a;
    if ((float)n != a) return 0;
    return (n & 1) ? 1 : 2;
}

ALWAYS_INLINE float float32_pow(float x, float y) {
    const float inf = 1.0f / 0.0f;
    if (y == 0) return 1.0f;                          /* even for NaN x */
    if (x == 1.0f) return 1.0f;                       /* even for NaN y */
    if (is_nan(x) || is_nan(y)) return x + y;
    int kind = integer_kind(y);
    float ax = x < 0 ? -x : x;
    if (y == inf || y == -inf) {
        if (ax == 1.0f) return 1.0f;                  /* pow(-1, +-inf) */
        return (ax < 1) == (y > 0) ? 0.0f : inf;
    }
    if (x == 0) {
        int negative = (kind == 1) && (float_bits(x) >> 31);
        float magnitude = y < 0 ? inf : 0.0f;
        return negative ? -magnitude : magnitude;
    }
    if (x == inf || x == -inf) {
        int negative = x < 0 && kind == 1;
        float magnitude = y < 0 ? 0.0f : inf;
        return negative ? -magnitude : magnitude;
    }
    if (x < 0 && kind == 0) return 0.0f / 0.0f;      /* a negative number to a non-integer power */
    double z = (double)y * log_d(ax);
    float magnitude;
    if (z > 89) magnitude = inf;
    else if (z < -104) magnitude = 0.0f;
    else magnitude = (float)exp_d(z);
    return (x < 0 && kind == 1) ? -magnitude : magnitude;
}
