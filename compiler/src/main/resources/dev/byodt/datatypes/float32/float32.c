/*
 * The float32 datatype's math library: exp, log, tanh, sigmoid, erf, pow, sin, cos, floor, ceil and round on
 * IEEE binary32.
 *
 * Pure functions, no C library (not even libm), so the code runs on targets without one and inlines
 * into the kernels that call it. Each function computes in double and rounds once to float: the result is
 * the correctly rounded one or its neighbour (within 1 ulp of the exact value), and special values (NaN,
 * infinities, signed zeros, overflow, underflow, subnormals) follow C99 Annex F. exp, log, sigmoid,
 * pow, sin and cos use common/double_math.c (relative error 2^-45 or less before the rounding). tanh, a third of a
 * tanh network's time, uses a rational approximation good to 2^-29.9 (below): its result is within
 * 0.5 + 2^-5.9 ulp of the exact value, so again the correctly rounded one or its neighbour; erf, three quarters
 * of a ViT's time through erf_d's series, one good to 2^-36.7, within 0.5 + 2^-12.7 ulp. Both are checked on
 * every one of the 2^32 floats (Float32ApproximationsTest). Straight-line code, so that loops vectorize.
 */

/* The exported functions inline into every kernel that calls them, where the loops around them can vectorize. */
#define ALWAYS_INLINE __attribute__((always_inline))

/* float32_exp, float32_sin, ...: the double result rounded once by the cast. e^x beyond ln(FLT_MAX) overflows
   to inf and below the smallest subnormal's half underflows to 0 in the cast; floor, ceil, round are exact. */
#define EXPORT ALWAYS_INLINE
typedef float T;
#define FN(op) float32_##op
#define EXACT_DOUBLE(x) ((double)(x))
#define ROUNDED(y) ((float)(y))
THROUGH_DOUBLE(exp)
THROUGH_DOUBLE(sin)
THROUGH_DOUBLE(cos)
THROUGH_DOUBLE(log)
THROUGH_DOUBLE(sigmoid)
THROUGH_DOUBLE_BINARY(pow)
ROUNDINGS(THROUGH_DOUBLE)

/*
 * tanh x = x P(x^2) / Q(x^2) for |x| < 9.02, with P of degree 4 and Q of degree 5 in x^2: a near-minimax fit
 * of tanh(x)/x on [0, 9.02] whose relative error is below 2^-29.9, evaluated in double (whose rounding adds
 * about 2^-50). All coefficients are positive, so Horner's rule has no cancellation; P(0) = Q(0) = 1, so
 * tiny and subnormal x come back exactly, and -0 stays -0. From 9.02 on, 1 - tanh x < 2^-25: +-1 is the
 * correctly rounded result. Four times faster than tanh_d's exp series and division when vectorized.
 */
ALWAYS_INLINE float float32_tanh(float x) {
    double a = abs_d(x);
    double c = a < 9.02 ? x : 0;                              /* NaN and large |x| are answered below */
    double u = c * c;
    double p = (((5.0901322474893426e-08 * u + 3.163130211773192e-05) * u + 0.0040105233993520195) * u
                 + 0.13786963374747238) * u + 1;
    double q = ((((7.401306431436323e-10 * u + 1.6206662061943975e-06) * u + 0.0004210997036183657) * u
                 + 0.027744855750855887) * u + 0.4712029609020062) * u + 1;
    double y = a < 9.02 ? c * p / q : bits_of(x) >> 63 ? -1.0 : 1.0;
    return (float)(x != x ? x : y);
}

/*
 * erf x = x P(x^2) / Q(x^2) for |x| <= 4, with P and Q of degree 7 in x^2: a near-minimax fit of erf(x)/x on
 * [0, 4] (Lawson-weighted least squares in Chebyshev nodes, against mpmath's erf) whose relative error is below
 * 2^-36.7, evaluated in double. All coefficients are positive, so Horner's rule has no cancellation; P(0)/Q(0)
 * is 2/sqrt(pi) to 2^-36.7, so tiny and subnormal x come back as the rounded 2x/sqrt(pi), and -0 stays -0.
 * Beyond 4, 1 - erf x < 2^-25.9 and +-1 is the correctly rounded result: x is clamped to +-4, whose value
 * rounds to +-1. erf_d's series (150 terms, a division each, and an exp) took 330 ns a value; this takes a
 * division and 16 multiply-adds.
 */
ALWAYS_INLINE float float32_erf(float x) {
    double c = clamp_d(x, -4, 4);
    double u = c * c;
    double p = ((((((3.0047216393795213e-09 * u + 7.527904187262105e-07) * u + 2.1787907181144712e-05) * u
                   + 0.0005130488868994877) * u + 0.0049622690166108725) * u + 0.05811876401353091) * u
                + 0.20034597641586058) * u + 1.128379167086089;
    double q = ((((((7.329845362627455e-08 * u + 4.519203551933126e-06) * u + 0.00011151775593702375) * u
                   + 0.0017152490480755631) * u + 0.01771918362804966) * u + 0.1218015278269599) * u
                + 0.5108853316033537) * u + 1;
    return (float)(x != x ? x : c * p / q);
}
