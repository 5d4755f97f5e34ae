/*
 * Appended to the float32 library by Float32SameBitsTest and scripts/float32-same-bits: counts the floats on which
 * float32_exp and float32_sigmoid (exp_of_float's table and short series) return other bits than exp_d and
 * sigmoid_d rounded to float, what THROUGH_DOUBLE(exp) and THROUGH_DOUBLE(sigmoid) returned before them. A NaN
 * matches any NaN: C leaves a NaN's sign to the compiler (gcc's sigmoid_d(NaN) keeps the argument's sign where
 * clang's, byodt's, flips it, as clang's float32_sigmoid does).
 */

/* float32_OP_mismatches(high): how many of the 65536 floats whose upper 16 bits are `high` get other bits. */
#define MISMATCHES(op) \
uint32_t float32_##op##_mismatches(uint32_t high) { \
    uint32_t mismatches = 0; \
    for (uint32_t low = 0; low < 0x10000; low++) { \
        union { uint32_t u; float f; } x = { high << 16 | low }, fast, through_double; \
        fast.f = float32_##op(x.f); \
        through_double.f = (float)op##_d(x.f); \
        int both_nan = fast.f != fast.f && through_double.f != through_double.f; \
        mismatches += !both_nan && fast.u != through_double.u; \
    } \
    return mismatches; \
}
MISMATCHES(exp)
MISMATCHES(sigmoid)
