/*
 * The float32 datatype's math library: exp, log, tanh, sigmoid, erf, pow, sin, cos, floor, ceil and round on
 * IEEE binary32.
 *
 * Pure functions, no C library (not even libm), so the code runs on targets without one and inlines
 * into the kernels that call it. Each function computes in double and rounds once to float: the result is
 * the correctly rounded one or its neighbour (within 1 ulp of the exact value), and special values (NaN,
 * infinities, signed zeros, overflow, underflow, subnormals) follow C99 Annex F. log, pow, sin and cos use
 * common/double_math.c (relative error 2^-45 or less before the rounding); exp and sigmoid use exp_of_float
 * (below), which returns exp_d's float on every float input, faster. tanh, a third of a
 * tanh network's time, uses a rational approximation good to 2^-29.9 (below): its result is within
 * 0.5 + 2^-5.9 ulp of the exact value, so again the correctly rounded one or its neighbour; erf, three quarters
 * of a ViT's time through erf_d's series, one good to 2^-36.7, within 0.5 + 2^-12.7 ulp. Both are checked on
 * every one of the 2^32 floats (Float32ApproximationsTest). Straight-line code, so that loops vectorize.
 */

/* The exported functions inline into every kernel that calls them, where the loops around them can vectorize. */
#define ALWAYS_INLINE __attribute__((always_inline))

/* float32_sin, float32_log, ...: the double result rounded once by the cast. e^x beyond ln(FLT_MAX) overflows
   to inf and below the smallest subnormal's half underflows to 0 in the cast; floor, ceil, round are exact. */
#define EXPORT ALWAYS_INLINE
typedef float T;
#define FN(op) float32_##op
#define EXACT_DOUBLE(x) ((double)(x))
#define ROUNDED(y) ((float)(y))
THROUGH_DOUBLE(sin)
THROUGH_DOUBLE(cos)
THROUGH_DOUBLE(log)
THROUGH_DOUBLE_BINARY(pow)
ROUNDINGS(THROUGH_DOUBLE)

/* 2^(j/64) for j = 0 .. 63, each the double nearest to it. */
static const double TWO_TO_SIXTY_FOURTHS[64] = {
    0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
    0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
    0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
    0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
    0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
    0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
    0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
    0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
    0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
    0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
    0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
    0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
    0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
    0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
    0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0};
static const double SIXTY_FOUR_OVER_LN2 = 0x1.71547652b82fep+6;
static const double LN2_OVER_64_HI = 0x1.62e42fefa0000p-7;   /* 36 bits: k * LN2_OVER_64_HI is exact for |k| < 2^17 */
static const double LN2_OVER_64_LO = 0x1.cf79abc9e3b3ap-46;  /* ln(2)/64 - LN2_OVER_64_HI */
/* 1.5 * 2^52: adding it to a double of magnitude below 2^51 rounds it to an integer, held in the sum's low bits. */
static const double ROUNDING_SHIFT = 0x1.8p52;

/*
 * e^x in double for a float x, for exp and sigmoid, as e^x = 2^(k/64) e^r with k the nearest integer to
 * 64 x / ln 2 (ties to even, by adding ROUNDING_SHIFT: k's bits are then the sum's, where a conversion to int and
 * back took six vector instructions of the loop's forty; efficientnet_b0's SiLUs spend most of their time here),
 * so |r| <= ln(2)/128 < 0.0055: 2^(k/64) is 2^(k >> 6) times a table entry, and e^r - 1 its Taylor
 * series to degree 5 (truncation below 0.0055^6/720 < 2^-54.7 relative). The table entry's rounding and the last
 * addition add an ulp at most, as exp_d's degree-14 series over |r| <= ln(2)/2 does, and no float's e^x lies so
 * close to a float's rounding boundary that the two doubles round to different floats: float32_exp and
 * float32_sigmoid return exactly what THROUGH_DOUBLE(exp) and (sigmoid) did on all 2^32 floats
 * (Float32SameBitsTest, scripts/float32-same-bits), in two thirds of the time (a table load instead of nine
 * terms). Its multiply-adds may be fused where the target has the instruction (FP_CONTRACT below, against the
 * library's -ffp-contract=off): the doubles then differ in their last bits, the floats on none of the 2^32 inputs,
 * fused or not (both checked), and a vectorized sigmoid takes 1.27 ns a value, not 1.99 (AVX-512). x is clamped
 * to +-104: e^104 overflows float and sigmoid(-104) = 1/(1 + e^104) underflows to 0, as they do from there on;
 * NaN stays NaN.
 */
DOUBLE_MATH double exp_of_float(float x) {
#pragma STDC FP_CONTRACT ON
    double c = clamp_d(x, -104, 104);
    double shifted = c * SIXTY_FOUR_OVER_LN2 + ROUNDING_SHIFT;
    int64_t k = (int64_t)(bits_of(shifted) - bits_of(ROUNDING_SHIFT));
    double kd = shifted - ROUNDING_SHIFT;
    double r = (c - kd * LN2_OVER_64_HI) - kd * LN2_OVER_64_LO;
    double expm1_r = ((((r * (1.0 / 120) + 1.0 / 24) * r + 1.0 / 6) * r + 0.5) * r + 1) * r;
    double table = TWO_TO_SIXTY_FOURTHS[k & 63];
    double y = (table + table * expm1_r) * pow2(k >> 6);
    return x != x ? x : y;
}

ALWAYS_INLINE float float32_exp(float x) { return (float)exp_of_float(x); }

ALWAYS_INLINE float float32_sigmoid(float x) { return (float)(1 / (1 + exp_of_float(-x))); }

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
