/*
 * A test datatype: float32 cut to its top 16 bits (sign, 8 exponent bits, 7 fraction bits, like bfloat16),
 * rounding to nearest even on the bit pattern (no special case for NaN: a test type). Arithmetic computes
 * in float32 and rounds. It deliberately has no
 * transcendental functions (sqrt, exp, log, tanh, sigmoid, erf, pow), so tests can see missing lowerings
 * and the float32 fallback.
 */
#include <stdint.h>

#define FN __attribute__((always_inline))

static float widen(uint16_t x) { union { uint32_t u; float f; } v = { (uint32_t) x << 16 }; return v.f; }
/*
 * Rounding, rather than cutting the bits off, also keeps LLVM from folding (uint16_t)(bits >> 16) of a float
 * into an extract from a <2 x i16> vector, a vector instruction in the scalar loop that stops the loop vectorizer.
 */
static uint16_t narrow(float x) {
    union { float f; uint32_t u; } v = { x };
    return (uint16_t) ((v.u + 0x7fff + ((v.u >> 16) & 1)) >> 16);
}
static int is_nan(uint16_t x) { return (x & 0x7fff) > 0x7f80; }

FN uint16_t t16_add(uint16_t a, uint16_t b) { return narrow(widen(a) + widen(b)); }
FN uint16_t t16_sub(uint16_t a, uint16_t b) { return narrow(widen(a) - widen(b)); }
FN uint16_t t16_mul(uint16_t a, uint16_t b) { return narrow(widen(a) * widen(b)); }
FN uint16_t t16_div(uint16_t a, uint16_t b) { return narrow(widen(a) / widen(b)); }
FN uint16_t t16_neg(uint16_t a) { return a ^ 0x8000; }
FN uint16_t t16_abs(uint16_t a) { return a & 0x7fff; }
FN uint16_t t16_min(uint16_t a, uint16_t b) { return is_nan(a) ? a : is_nan(b) ? b : widen(a) < widen(b) ? a : b; }
FN uint16_t t16_max(uint16_t a, uint16_t b) { return is_nan(a) ? a : is_nan(b) ? b : widen(a) > widen(b) ? a : b; }
FN int32_t t16_lt(uint16_t a, uint16_t b) { return widen(a) < widen(b); }
FN int32_t t16_le(uint16_t a, uint16_t b) { return widen(a) <= widen(b); }
FN int32_t t16_gt(uint16_t a, uint16_t b) { return widen(a) > widen(b); }
FN int32_t t16_ge(uint16_t a, uint16_t b) { return widen(a) >= widen(b); }
FN int32_t t16_eq(uint16_t a, uint16_t b) { return widen(a) == widen(b); }
FN int32_t t16_ne(uint16_t a, uint16_t b) { return widen(a) != widen(b); }
FN uint16_t t16_from_f32(float x) { return narrow(x); }
FN float t16_to_f32(uint16_t a) { return widen(a); }
FN uint16_t t16_from_i32(int32_t x) { return narrow((float) x); }
FN int32_t t16_to_i32(uint16_t a) { return (int32_t) widen(a); }
/* Through float: a double rounding, acceptable for a test type whose constants and weights are floats. */
FN uint16_t t16_from_f64(double x) { return narrow((float) x); }
FN uint16_t t16_lowest(void) { return 0xff80; }
