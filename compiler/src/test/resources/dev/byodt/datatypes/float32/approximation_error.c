/*
 * Appended to the float32 library by Float32ApproximationsTest: measures float32_tanh and float32_erf against
 * tanh_d and erf_d, the double routines (relative error 2^-45 or less, so stand-ins for the exact values to within
 * 2^-21 ulp of a float).
 */

/* Float ulp at the double t: 2^(e - 23) for the binade 2^e of |t|, 2^-149 below the normal range. */
static inline double float_ulp(double t) {
    int e = (int)((bits_of(t) >> 52) & 0x7ff) - 1023;
    return pow2(e < -126 ? -149 : e - 23);
}

/*
 * float32_OP_worst_error(high): the largest error of float32_OP, in units of 2^-20 ulp of the exact value, over the
 * 65536 floats whose upper 16 bits are `high`; 0xffffffff when a special value is wrong (a NaN not answered by a
 * NaN, a number by a NaN, or a zero of the wrong sign).
 */
#define WORST_ERROR(op) \
uint32_t float32_##op##_worst_error(uint32_t high) { \
    uint32_t worst = 0;                 /* integers: a max clang vectorizes without fast-math */ \
    int wrong = 0; \
    for (uint32_t low = 0; low < 0x10000; low++) { \
        union { uint32_t u; float f; } x = { high << 16 | low }, y; \
        y.f = float32_##op(x.f); \
        double t = op##_d(x.f); \
        int x_nan = x.f != x.f, y_nan = y.f != y.f; \
        wrong |= x_nan != y_nan; \
        wrong |= t == 0 && y.u != x.u; \
        uint32_t error = x_nan || t == 0 ? 0 : (uint32_t)(abs_d(y.f - t) / float_ulp(t) * 1048576.0); \
        worst = error > worst ? error : worst; \
    } \
    return wrong ? 0xffffffffu : worst; \
}
WORST_ERROR(tanh)
WORST_ERROR(erf)
