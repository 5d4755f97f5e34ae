/*
 * int6: a 6-bit symmetric fixed-point number with 4 fraction bits, written for byodt as the element of a
 * block datatype in docs/bring-your-own-datatype.md ("A block datatype over your element").
 *
 * A value is stored in the low 6 bits of a uint8_t as a two's complement integer k, and is k / 16:
 *   k = -31 .. 31   the values -1.9375 .. 1.9375 in steps of 1/16 (symmetric, as OCP MX INT8 is)
 *   k = -32 (0x20)  NaN
 * Results round to the nearest value, ties to the even k, and saturate at +-1.9375 (infinities too).
 * Arithmetic goes through double, where sums and products of two values are exact, so each result is
 * rounded once.
 *
 * byodt compiles this file with -DBYODT_PREFIX=int6; every function is PREFIX_op.
 */
#include <stdint.h>

#ifndef BYODT_PREFIX
#define BYODT_PREFIX int6
#endif
#define GLUE(a, b) a##_##b
#define NAME(prefix, op) GLUE(prefix, op)
#define FN(op) NAME(BYODT_PREFIX, op)
/* Helpers are static; the operations have external linkage so byodt finds them, and inline into the model's loops. */
#define INLINE __attribute__((always_inline)) inline
#define EXPORT __attribute__((always_inline))

typedef uint8_t int6;

#define INT6_NAN ((int6) 0x20)
#define INT6_LARGEST 31
#define INT6_SCALE 16.0

static INLINE int is_nan(int6 x) { return (x & 0x3F) == INT6_NAN; }
/* k, the stored integer, sign-extended from 6 bits. */
static INLINE int32_t k_of(int6 x) { return (int32_t) ((x & 0x3F) ^ 0x20) - 0x20; }
static INLINE double value_of(int6 x) { return k_of(x) / INT6_SCALE; }
static INLINE int6 pack(int32_t k) { return (int6) (k & 0x3F); }

/*
 * The value nearest v, ties to even, saturating: v * 16 is exact, clamped to [-31, 31], then rounded to an
 * integer by adding and subtracting 2^52 (the doubles from 2^52 up are the integers), which rounds ties to even.
 */
static INLINE int6 round_to_int6(double v) {
    double t = v * INT6_SCALE;
    t = t > INT6_LARGEST ? INT6_LARGEST : t < -INT6_LARGEST ? -INT6_LARGEST : t;
    double r = t >= 0 ? (t + 0x1p52) - 0x1p52 : (t - 0x1p52) + 0x1p52;
    return v != v ? INT6_NAN : pack((int32_t) r);
}

EXPORT int6 FN(from_f64)(double x) { return round_to_int6(x); }
EXPORT int6 FN(from_f32)(float x) { return round_to_int6(x); }
EXPORT float FN(to_f32)(int6 x) { return is_nan(x) ? __builtin_nanf("") : (float) value_of(x); }
EXPORT int6 FN(from_i32)(int32_t x) { return round_to_int6((double) x); }
/* Toward zero, as C converts; NaN gives 0. */
EXPORT int32_t FN(to_i32)(int6 x) { return is_nan(x) ? 0 : (int32_t) value_of(x); }
EXPORT int6 FN(lowest)(void) { return pack(-INT6_LARGEST); }

EXPORT int6 FN(add)(int6 a, int6 b) { return is_nan(a) | is_nan(b) ? INT6_NAN : round_to_int6(value_of(a) + value_of(b)); }
EXPORT int6 FN(sub)(int6 a, int6 b) { return is_nan(a) | is_nan(b) ? INT6_NAN : round_to_int6(value_of(a) - value_of(b)); }
EXPORT int6 FN(mul)(int6 a, int6 b) { return is_nan(a) | is_nan(b) ? INT6_NAN : round_to_int6(value_of(a) * value_of(b)); }
/* The double quotient is within 2^-50 of the exact one, far nearer than any quotient of two values comes to a tie. */
EXPORT int6 FN(div)(int6 a, int6 b) {
    return is_nan(a) | is_nan(b) | (k_of(b) == 0 && k_of(a) == 0) ? INT6_NAN : round_to_int6(value_of(a) / value_of(b));
}
EXPORT int6 FN(neg)(int6 a) { return is_nan(a) ? INT6_NAN : pack(-k_of(a)); }
EXPORT int6 FN(abs)(int6 a) { return is_nan(a) ? INT6_NAN : pack(k_of(a) < 0 ? -k_of(a) : k_of(a)); }
EXPORT int6 FN(min)(int6 a, int6 b) { return is_nan(a) | is_nan(b) ? INT6_NAN : k_of(a) < k_of(b) ? a : b; }
EXPORT int6 FN(max)(int6 a, int6 b) { return is_nan(a) | is_nan(b) ? INT6_NAN : k_of(a) > k_of(b) ? a : b; }

EXPORT int32_t FN(lt)(int6 a, int6 b) { return !(is_nan(a) | is_nan(b)) && k_of(a) < k_of(b); }
EXPORT int32_t FN(le)(int6 a, int6 b) { return !(is_nan(a) | is_nan(b)) && k_of(a) <= k_of(b); }
EXPORT int32_t FN(gt)(int6 a, int6 b) { return !(is_nan(a) | is_nan(b)) && k_of(a) > k_of(b); }
EXPORT int32_t FN(ge)(int6 a, int6 b) { return !(is_nan(a) | is_nan(b)) && k_of(a) >= k_of(b); }
EXPORT int32_t FN(eq)(int6 a, int6 b) { return !(is_nan(a) | is_nan(b)) && k_of(a) == k_of(b); }
EXPORT int32_t FN(ne)(int6 a, int6 b) { return is_nan(a) | is_nan(b) || k_of(a) != k_of(b); }
