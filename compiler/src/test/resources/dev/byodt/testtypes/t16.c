/*
 * A test datatype: float32 truncated to its top 16 bits (sign, 8 exponent bits, 7 fraction bits, like
 * bfloat16, but rounding toward zero). Arithmetic computes in float32 and truncates. It deliberately has no
 * transcendental functions (sqrt, exp, log, tanh, sigmoid, erf, pow), so tests can see missing lowerings
 * and the float32 fallback.
 */
#include <stdint.h>

#define FN __attribute__((always_inline))

static float widen(uint16_t x) { union { uint32_t u; float f; } v = { (uint32_t) x << 16 }; return v.f; }
static uint16_t narrow(float x) { union { float f; uint32_t u; } v = { x }; return (uint16_t) (v.u >> 16); }
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
/* Truncating the double's bits directly: no intermediate rounding to float. */
FN uint16_t t16_from_f64(double x) {
    union { double d; uint64_t u; } v = { x };
    uint64_t sign = v.u >> 63, exponent = (v.u >> 52) & 0x7ff, fraction = v.u & 0xfffffffffffffULL;
    if (exponent == 0x7ff) return (uint16_t) (sign << 15 | 0x7f80 | (fraction ? 0x40 : 0));
    int e = (int) exponent - 1023 + 127;
    if (e >= 255) return (uint16_t) (sign << 15 | 0x7f7f);
    if (e <= 0) return (uint16_t) (sign << 15);
    return (uint16_t) (sign << 15 | (uint64_t) e << 7 | fraction >> 45);
}
FN uint16_t t16_lowest(void) { return 0xff80; }
