/*
 * The float32 datatype's math library: exp, log, tanh, sigmoid, erf and pow on IEEE binary32.
 *
 * Pure functions, no C library (not even libm), so the code runs on targets without one and inlines
 * into the kernels that call it. Each function computes in double with common/double_math.c (relative error
 * far below float's precision, 2^-45 or less) and rounds once to float: the result is the correctly rounded
 * one or its neighbour (within 1 ulp), and special values (NaN, infinities, signed zeros, overflow, underflow,
 * subnormals) follow C99 Annex F, as the double routines do. Straight-line code, so that loops vectorize.
 */

/* The exported functions inline into every kernel that calls them, where the loops around them can vectorize. */
#define ALWAYS_INLINE __attribute__((always_inline))

/* e^x beyond ln(FLT_MAX) overflows to inf and below the smallest subnormal's half underflows to 0 in the cast. */
ALWAYS_INLINE float float32_exp(float x) { return (float)exp_d(x); }
ALWAYS_INLINE float float32_log(float x) { return (float)log_d(x); }
ALWAYS_INLINE float float32_tanh(float x) { return (float)tanh_d(x); }
ALWAYS_INLINE float float32_sigmoid(float x) { return (float)sigmoid_d(x); }
ALWAYS_INLINE float float32_erf(float x) { return (float)erf_d(x); }
ALWAYS_INLINE float float32_pow(float x, float y) { return (float)pow_d(x, y); }
