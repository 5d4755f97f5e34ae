/*
 * rounded_f32_with_fraction and rounded_f32 for posits of 9 to 16 bits, 16 float32 lanes at a time on x86-64 with
 * AVX-512 BW and VBMI (FN(rounded_f32_with_fraction_x16), FN(rounded_f32_x16)). --accumulate dtype's sums call them
 * twice per multiply-add, the first where a dot product's check proves its values zero or of a scale with a fraction
 * bit (RegimeSums), the second where it does not. Compiled after posit.c, as part of its translation unit; byodt's
 * optimizer gives them to LLVM's loop vectorizer as the scalar functions' vector forms
 * (docs/bring-your-own-datatype.md, "Vector variants").
 *
 * Both round as rounded_f32_with_fraction does, x + c - c, where c's float32 exponent field is a function of x's
 * alone: x's biased exponent plus the regime's run plus 26 - N + ES, with the significand 1.5 (posit.c gives the
 * proof). Its scales with a fraction bit, LOWEST_SCALE .. HIGHEST_SCALE, are at most 128 consecutive biased
 * exponents, so that their low 7 bits tell them apart: x + x holds the exponent in each lane's top byte, one
 * VPERMI2B looks c's exponent up in a 128-byte table by those 7 bits (a byte per byte of the lane: the others look
 * up garbage, shifted and masked away), and c is that byte moved to the exponent field with the significand's
 * bit set. That is 4 integer instructions where posit.c's scalar code, widened, takes 9.
 *
 * rounded_f32_with_fraction_x16 is rounded_f32_with_fraction wherever that is defined (zero, or a scale with a
 * fraction bit: DatatypeOp.ROUNDED_F32_WITH_FRACTION); zero looks up some entry, and 0 + c - c is +0 for any c.
 * rounded_f32_x16 takes that rounding where every lane is zero or of such a scale, where it is rounded_f32, and
 * otherwise the whole vector takes rounded_f32's code: a dot product whose check fails over the whole tensors,
 * because of a few tiny operands, still has its vectors almost all of those scales.
 */
#if N > 8 && N <= 16 && FLOAT_CONVERSIONS && BYODT_ROUNDING == BYODT_ROUNDING_NEAREST_EVEN \
    && 2 * ((N - 3 - ES) << ES) <= 128 && defined(__AVX512BW__) && defined(__AVX512VBMI__)
#include <immintrin.h>

typedef uint8_t fraction_bytes64 __attribute__((vector_size(64)));

/* The scales with f >= 1 fraction bits (PositScales.lowestScale, highestScale) and their biased exponents. */
#define FRACTION_TOP ((N - 3 - ES) << ES)
#define LOWEST_FRACTION_BIASED (127 - FRACTION_TOP)
/* Entry i is for the biased exponent e of those scales with e mod 128 = i (the others are never read but by
   zero): e = i from LOWEST_FRACTION_BIASED up, i + 128 below. Its regime k = floor((e - 127) / 2^ES), its run
   k or -k - 1, and c's biased exponent e + run + 26 - N + ES, as rounded_f32_with_fraction computes it. */
#define FRACTION_E(i) ((i) >= LOWEST_FRACTION_BIASED ? (i) : (i) + 128)
#define FRACTION_K(i) ((FRACTION_E(i) - 127) >= 0 ? (FRACTION_E(i) - 127) >> ES \
    : -((127 - FRACTION_E(i) + (1 << ES) - 1) >> ES))
#define FRACTION_RUN(i) (FRACTION_K(i) >= 0 ? FRACTION_K(i) : -FRACTION_K(i) - 1)
#define FRACTION_C(i) ((uint8_t)(FRACTION_E(i) + FRACTION_RUN(i) + 26 - N + ES))
#define FRACTION_C_8(i) FRACTION_C(i), FRACTION_C(i + 1), FRACTION_C(i + 2), FRACTION_C(i + 3), FRACTION_C(i + 4), \
    FRACTION_C(i + 5), FRACTION_C(i + 6), FRACTION_C(i + 7)
#define FRACTION_C_64(i) FRACTION_C_8(i), FRACTION_C_8(i + 8), FRACTION_C_8(i + 16), FRACTION_C_8(i + 24), \
    FRACTION_C_8(i + 32), FRACTION_C_8(i + 40), FRACTION_C_8(i + 48), FRACTION_C_8(i + 56)

/* x + c - c with c looked up by x + x's top byte, its biased exponent. */
INLINE floats16 fraction_rounded_x16(floats16 x, __m512i doubled) {
    __m512i looked = _mm512_permutex2var_epi8((__m512i)(fraction_bytes64){FRACTION_C_64(0)}, doubled,
        (__m512i)(fraction_bytes64){FRACTION_C_64(64)});
    /* (looked >> 1) & the exponent field | the significand's 0.5: 0xea is A & B | C. */
    floats16 c = (floats16)_mm512_ternarylogic_epi32(_mm512_srli_epi32(looked, 1),
        _mm512_set1_epi32(0x7f800000), _mm512_set1_epi32(0x400000), 0xea);
    return (x + c) - c;
}

API floats16 FN(rounded_f32_with_fraction_x16)(floats16 x) {
    return fraction_rounded_x16(x, _mm512_add_epi32((__m512i)x, (__m512i)x));
}

API floats16 FN(rounded_f32_x16)(floats16 x) {
    __m512i doubled = _mm512_add_epi32((__m512i)x, (__m512i)x);
    __mmask16 within = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(doubled, _mm512_set1_epi32(LOWEST_FRACTION_BIASED << 24)),
        _mm512_set1_epi32((2 * FRACTION_TOP) << 24));
    __mmask16 zero = _mm512_testn_epi32_mask(doubled, doubled);
    if (__builtin_expect((__mmask16)(within | zero) == (__mmask16)0xffff, 1)) return fraction_rounded_x16(x, doubled);
    return rounded_f32_each_lane(x);
}
#endif
