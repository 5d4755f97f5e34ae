/*
 * A fused dot-product unit, --accumulate fused:F=..,G=..: what byodt links when a reduction accumulates that way,
 * whatever the datatype (the datatype's library converts each value to float32 first, exactly).
 *
 * The unit holds a float32 accumulator c and takes products in groups of G. A group's terms are c and its G
 * exact products (a value added to a running sum, such as a bias, takes a product's place; a sum that starts
 * from a value holds it as c). E is the largest exponent (floor(log2 |t|)) of the
 * group's nonzero terms, and the window keeps F fraction bits below it: each term is aligned to the unit
 * 2^(E-F) on its own, the bits below truncated (rz) or rounded to nearest, ties to even (rne); the aligned terms
 * are added exactly; the sum is rounded to float32 to nearest, ties to even, and becomes c. So c takes part in
 * the alignment, as in the units Fasi et al. measured (D = C + A x B in one operation). An exact zero is +0.
 * Infinite and NaN terms bypass the window: the group's result is their IEEE sum. The output's value is the
 * result of the pending, possibly incomplete, group.
 *
 * Every term is a double: products of two float32 values are exact in double (48 significand bits, exponents
 * -298..256), and so are the aligned terms and their sum (below (G+1) * 2^(F+1) units, within 2^53 for
 * F <= 40, G <= 63; AccumulationMode.Fused checks the limits).
 *
 * The state is an array of 64-bit words: word 0 holds c's bits (low half) and the number of pending products
 * (high half), words 1..G the pending products' bits. All zeros is an empty accumulator holding +0.
 */
#include <stdint.h>

#define FUSED static inline __attribute__((always_inline))

FUSED uint64_t fused_bits_of(double x) { union { double d; uint64_t u; } v = { x }; return v.u; }
FUSED double fused_double_of(uint64_t u) { union { uint64_t u; double d; } v = { u }; return v.d; }
FUSED uint32_t fused_float_bits(float x) { union { float f; uint32_t u; } v = { x }; return v.u; }
FUSED float fused_float_of(uint32_t u) { union { uint32_t u; float f; } v = { u }; return v.f; }
/* 2^k for -1022 <= k <= 1023. */
FUSED double fused_pow2(int k) { return fused_double_of((uint64_t)(k + 1023) << 52); }
/* floor(log2 |x|) of a normal double. */
FUSED int fused_exponent(double x) { return (int)((fused_bits_of(x) >> 52) & 0x7ff) - 1023; }
FUSED int fused_finite(double x) { return ((fused_bits_of(x) >> 52) & 0x7ff) != 0x7ff; }

/* x (|x| < 2^52) rounded to an integer toward zero (rne = 0) or to nearest, ties to even (rne = 1). */
FUSED double fused_integer(double x, int rne) {
    const double shift = 4503599627370496.0;   /* 2^52: adding it rounds to an integer in the current (nearest) mode */
    if (!rne) return (double)(int64_t)x;
    return x >= 0 ? (x + shift) - shift : (x - shift) + shift;
}

/* c plus the n terms, as one group of the unit. */
FUSED float fused_group(float c, const uint64_t *terms, int n, int fraction_bits, int rne) {
    double special = 0;
    int any_special = 0, any_nonzero = 0, top = 0;
    for (int i = -1; i < n; i++) {
        double t = i < 0 ? (double)c : fused_double_of(terms[i]);
        if (!fused_finite(t)) { special += t; any_special = 1; }
        else if (t != 0) {
            int e = fused_exponent(t);
            top = any_nonzero && top > e ? top : e;
            any_nonzero = 1;
        }
    }
    if (any_special) return (float)special;
    if (!any_nonzero) return 0.0f;
    double to_units = fused_pow2(fraction_bits - top), sum = 0;
    for (int i = -1; i < n; i++) {
        double t = i < 0 ? (double)c : fused_double_of(terms[i]);
        sum += fused_integer(t * to_units, rne);
    }
    return (float)(sum * fused_pow2(top - fraction_bits));
}

FUSED void fused_take(uint64_t *state, double term, int fraction_bits, int group, int rne) {
    int pending = (int)(state[0] >> 32);
    state[1 + pending] = fused_bits_of(term);
    pending++;
    if (pending < group) {
        state[0] = (state[0] & 0xffffffffULL) | ((uint64_t)pending << 32);
        return;
    }
    float c = fused_group(fused_float_of((uint32_t)state[0]), state + 1, pending, fraction_bits, rne);
    state[0] = fused_float_bits(c);
}

/* An accumulator holding value, as a unit's C operand: c = value, no pending products. */
void byodt_fused_start(uint64_t *state, float value) {
    state[0] = fused_float_bits(value);
}

/* acc + a * b. */
void byodt_fused_mac(uint64_t *state, float a, float b, int32_t fraction_bits, int32_t group, int32_t rne) {
    fused_take(state, (double)a * (double)b, fraction_bits, group, rne);
}

/* acc + value: a value added on its own (a bias, a pooling sum) is a term of the group like a product. */
void byodt_fused_add(uint64_t *state, float value, int32_t fraction_bits, int32_t group, int32_t rne) {
    fused_take(state, (double)value, fraction_bits, group, rne);
}

/* The accumulator's value: the pending group's result. */
float byodt_fused_result(const uint64_t *state, int32_t fraction_bits, int32_t rne) {
    int pending = (int)(state[0] >> 32);
    float c = fused_float_of((uint32_t)state[0]);
    return pending == 0 ? c : fused_group(c, state + 1, pending, fraction_bits, rne);
}
