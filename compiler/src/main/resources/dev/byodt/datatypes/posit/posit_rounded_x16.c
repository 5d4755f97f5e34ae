/*
 * rounded_f32 for posits of up to 8 bits, 16 float32 lanes at a time on x86-64 with AVX-512 (FN(rounded_f32_x16):
 * byodt passes -mavx512bw, and with it AVX-512F, where the CPU has BW), which --accumulate dtype's sums call twice
 * per multiply-add (RoundedFloat32Accumulator). Compiled after posit.c, as part of its translation unit; byodt's
 * optimizer gives it to LLVM's loop vectorizer as rounded_f32's vector form (docs/bring-your-own-datatype.md,
 * "Vector variants").
 *
 * At a scale s where the posit keeps f >= 0 fraction bits (f = N - 3 - ES - r, r the regime's run as in
 * rounded_f32: -G <= s < G with G = (N - 2 - ES) 2^ES; posit8 es 2: 2^-16 <= |x| < 2^16), its values of scale s are
 * the multiples of the unit u = 2^(s - f) in [2^s, 2^(s+1)], and the boundaries between them the odd multiples of
 * u / 2 (the (N+1)-bit posits there keep f + 1 bits). So rounding x there is rounding it to a multiple of u, the
 * tie to the multiple whose pattern ends in 0: x + c - c with c = (2^23 + 2^22 + t) u rounds x to the multiple of u
 * nearest to it, ties to the one of the parity of c / u (x + c stays in c's binade, whose unit is u, as |x| < 2u
 * 2^f <= c / 2^22; x + c - c is then exact). With f >= 1 the last bit kept is a fraction bit, the even multiple
 * has it 0, and t = 0 (rounded_f32_with_fraction's c); with f = 0 the multiples are 2^s (u) and 2^(s+1) (2u), and
 * the last bit kept is the exponent's lowest, s's parity (with ES = 0, none: the regime's terminating bit, 1 below
 * 1), so where 2^s's pattern ends in 0 t = 1, ties then going to u. Zero comes back as
 * +0, as from rounded_f32. The 2G <= 32 scales' c are a table that one VPERMT2PS reads by the float32 exponent.
 * Where every lane is zero or of those scales, that is the rounding; otherwise the whole vector takes rounded_f32's
 * code. A posit8 es 2 dot product's values are mostly at those scales, and the branch on the vector's mask keeps
 * the cost of the others to the vectors holding them (under a per-tensor check, RegimeSums, no posit8 sum of
 * more than 7 terms qualifies).
 */
#if N <= 8 && FLOAT_CONVERSIONS && BYODT_ROUNDING == BYODT_ROUNDING_NEAREST_EVEN && N - 2 - ES >= 1 \
    && 2 * ((N - 2 - ES) << ES) <= 32 && defined(__AVX512F__)
#include <immintrin.h>

typedef uint32_t words16 __attribute__((vector_size(64)));

/* The scales with f >= 0 are -GRID_TOP .. GRID_TOP - 1, float32 biased exponents from LOWEST_BIASED. */
#define GRID_TOP ((N - 2 - ES) << ES)
#define LOWEST_BIASED (127 - GRID_TOP)
/* The table's entry i is c for the biased exponent LOWEST_BIASED + i: scale s = i - GRID_TOP, regime
   k = floor(s / 2^ES), its run k or -k - 1, f fraction bits; c's exponent is s + 23 - f and its significand
   1.5, plus one unit where f = 0 and 2^s's pattern ends in 0. Entries beyond the 2 GRID_TOP scales are never read. */
#define SCALE_AT(i) ((i) - GRID_TOP)
#define REGIME_AT(i) (SCALE_AT(i) >= 0 ? SCALE_AT(i) >> ES : -((-SCALE_AT(i) + (1 << ES) - 1) >> ES))
#define FRACTION_AT(i) (N - 3 - ES - (REGIME_AT(i) >= 0 ? REGIME_AT(i) : -REGIME_AT(i) - 1))
#define LAST_BIT_AT(i) (ES > 0 ? SCALE_AT(i) & 1 : SCALE_AT(i) < 0)
#define C_BITS(i) ((i) < 2 * GRID_TOP \
    ? (unsigned)(127 + SCALE_AT(i) + 23 - FRACTION_AT(i)) << 23 | 0x400000u | (FRACTION_AT(i) == 0 && !LAST_BIT_AT(i)) \
    : 0u)
#define C_8(i) C_BITS(i), C_BITS(i + 1), C_BITS(i + 2), C_BITS(i + 3), C_BITS(i + 4), C_BITS(i + 5), C_BITS(i + 6), \
    C_BITS(i + 7)
#define C_TABLE(first) ((__m512)(words16){C_8(first), C_8(first + 8)})

API floats16 FN(rounded_f32_x16)(floats16 x) {
    __m512i magnitude = _mm512_slli_epi32((__m512i)x, 1); /* the sign shifted out: 2 |x|'s bits */
    __m512i from_lowest = _mm512_sub_epi32(magnitude, _mm512_set1_epi32(LOWEST_BIASED << 24));
    /* VPERMT2PS reads the index's low 5 bits: the scale's place in the table. */
    __m512 c = _mm512_permutex2var_ps(C_TABLE(0), _mm512_srli_epi32(from_lowest, 24), C_TABLE(16));
    __mmask16 within = _mm512_cmplt_epu32_mask(from_lowest, _mm512_set1_epi32((2 * GRID_TOP) << 24));
    __mmask16 zero = _mm512_testn_epi32_mask(magnitude, magnitude);
    if (__builtin_expect((__mmask16)(within | zero) == (__mmask16)0xffff, 1)) return (x + (floats16)c) - (floats16)c;
    return rounded_f32_each_lane(x);
}
#endif
