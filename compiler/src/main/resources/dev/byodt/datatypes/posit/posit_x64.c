/*
 * Posits of up to 8 bits, 64 lanes at a time, on x86-64 with AVX-512 VBMI and VBMI2: vector variants of add,
 * sub and mul (FN(add_x64), FN(sub_x64), FN(mul_x64), and 32- and 16-lane forms for what a loop has left).
 * Compiled after posit.c, as part of its translation unit. byodt's optimizer gives them to LLVM's loop
 * vectorizer, which calls them for 64 iterations of a loop that calls FN(add), FN(sub) or FN(mul)
 * (docs/bring-your-own-datatype.md, "Vector variants"); each returns, lane by lane, what the scalar function
 * returns, and the tests compare them on every pair of operands.
 *
 * The scalar small_add and small_mul decode a posit with bit reversals and population counts, about a dozen
 * vector instructions per operand, and spend a fifth of their instructions widening bytes to 16-bit lanes and
 * back. Here a posit's magnitude (7 bits) indexes 128-byte tables with one VPERMI2B for all 64 lanes, the
 * encoding's regime indexes 32-entry tables of 16-bit words (VPERMW), and the bytes are widened in place
 * (VPUNPCK*BW, undone by VPACKUSWB, which restores the lanes' order). The tables are constant expressions of
 * the encoding, computed by the compiler: the macros below.
 */
#if SMALL_ARITHMETIC && defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__AVX512VBMI2__)
#include <immintrin.h>

typedef uint8_t lanes64 __attribute__((vector_size(64)));
typedef uint16_t words32 __attribute__((vector_size(64)));
/* Tables as vector constants: element 0 first. */
#define BYTE_TABLE(F, first) ((__m512i)(lanes64){BYTES_64(F, first)})
#define WORD_TABLE(F) ((__m512i)(words32){WORDS_32(F)})

/* ---- decoding: the scale and significand of each magnitude 1 .. 2^(N-1) - 1 ---- */

/* The bits after the sign: N - 1 of them. The leading zeros of such a field v, at most N - 1. */
#define FIELD_BITS (N - 1)
#define FIELD_LEADING_ZEROS(v) __builtin_clz(((unsigned)(v) << (32 - FIELD_BITS)) | (1u << (31 - FIELD_BITS)))
#define REGIME_OF_ONES(m) (((m) >> (FIELD_BITS - 1)) & 1)
#define RUN(m) \
    (REGIME_OF_ONES(m) ? FIELD_LEADING_ZEROS(~(unsigned)(m) & ((1u << FIELD_BITS) - 1)) : FIELD_LEADING_ZEROS(m))
#define REGIME(m) (REGIME_OF_ONES(m) ? RUN(m) - 1 : -RUN(m))
/* The bits after the regime's run and the bit that ends it (none when the run fills the field). */
#define TAIL_BITS(m) (FIELD_BITS - RUN(m) - 1 > 0 ? FIELD_BITS - RUN(m) - 1 : 0)
#define TAIL(m) ((unsigned)(m) & ((1u << TAIL_BITS(m)) - 1))
/* The exponent: the tail's first ES bits, missing ones 0. */
#define EXPONENT(m) (TAIL_BITS(m) >= ES ? TAIL(m) >> (TAIL_BITS(m) - ES) : TAIL(m) << (ES - TAIL_BITS(m)))
#define FRACTION_BITS(m) (TAIL_BITS(m) > ES ? TAIL_BITS(m) - ES : 0)
#define FRACTION(m) (TAIL(m) & ((1u << FRACTION_BITS(m)) - 1))
#define VALID_MAGNITUDE(m) ((m) > 0 && (m) < (1 << FIELD_BITS))

/* Scales as bytes, biased by 64 (|scale| <= 48). */
#define SCALE_BIAS 64
#define SCALE_ENTRY(m) (VALID_MAGNITUDE(m) ? (uint8_t)(REGIME(m) * (1 << ES) + (int)EXPONENT(m) + SCALE_BIAS) : 0)
/* Significands as bytes, the hidden bit at bit SIGNIFICAND_TOP (at most 5 fraction bits below it), 0 for 0:
   in the high byte of a 16-bit lane its hidden bit is at 14 - ES, which leaves the sum of two a carry bit and
   9 bits below the lowest fraction bit (see add_x64). */
#define SIGNIFICAND_TOP (6 - ES)
#define SIGNIFICAND(m) (((1u << FRACTION_BITS(m)) | FRACTION(m)) << (SIGNIFICAND_TOP - FRACTION_BITS(m)))
#define SIGNIFICAND_ENTRY(m) (VALID_MAGNITUDE(m) ? (uint8_t)SIGNIFICAND(m) : 0)

/* The leading zeros plus one of a sum (at least 2^8, below 2^16), indexed by its bits from 9 up. */
#define SUM_LEADING_ENTRY(i) ((i) == 0 ? 8 : __builtin_clz(i) - 24)

#define BYTES_8(F, m) F(m), F(m + 1), F(m + 2), F(m + 3), F(m + 4), F(m + 5), F(m + 6), F(m + 7)
#define BYTES_64(F, m) BYTES_8(F, m), BYTES_8(F, m + 8), BYTES_8(F, m + 16), BYTES_8(F, m + 24), \
    BYTES_8(F, m + 32), BYTES_8(F, m + 40), BYTES_8(F, m + 48), BYTES_8(F, m + 56)

/* ---- encoding: for each regime, its bit string's prefix and the bits left after it ---- */

/* Encoding tables are indexed by (scale + 128) >> ES modulo 32: scales of sums and products (|scale| <= 97)
   have regimes within -16..15, each its own entry. */
#define ENCODE_BIAS 128
#define REGIME_AT(i) (((((i) - (ENCODE_BIAS >> ES)) & 31) ^ 16) - 16)
/* The regime's bits: r + 1 ones and a 0, or -r zeros and a 1; beyond the field, maxPos or 0. */
#define REGIME_LENGTH(r) ((r) >= 0 ? (r) + 2 : 1 - (r))
#define REGIME_FITS(r) (REGIME_LENGTH(r) <= FIELD_BITS)
#define AVAILABLE(r) (REGIME_FITS(r) ? FIELD_BITS - REGIME_LENGTH(r) : 0)
#define PREFIX(r) \
    (!REGIME_FITS(r) ? ((r) >= 0 ? (1 << FIELD_BITS) - 1 : 0) \
     : (r) >= 0 ? ((1 << ((r) + 1)) - 1) << (FIELD_BITS - (r) - 1) : 1 << AVAILABLE(r))
/* What follows the regime, its exponent bits then its fraction, is 15 bits in a lane (see encode_x32); the
   magnitude keeps AVAILABLE(r) of them. */
#define ROUNDING_SHIFT(r) (15 - AVAILABLE(r))
#define BELOW_HALF(r) ((1 << (14 - AVAILABLE(r))) - 1)

#define WORDS_8(F, i) F(i), F(i + 1), F(i + 2), F(i + 3), F(i + 4), F(i + 5), F(i + 6), F(i + 7)
#define WORDS_32(F) WORDS_8(F, 0), WORDS_8(F, 8), WORDS_8(F, 16), WORDS_8(F, 24)
#define PREFIX_AT(i) (short)PREFIX(REGIME_AT(i))
#define SHIFT_AT(i) (short)ROUNDING_SHIFT(REGIME_AT(i))
#define BELOW_HALF_AT(i) (short)BELOW_HALF(REGIME_AT(i))

/* The 16-bit lanes of the low (lo) or high (hi) 8 bytes of each 128-bit block; VPACKUSWB of the two halves
   puts every lane back where it came from. */
#define LOW_BYTE(op, x) _mm512_unpack##op##_epi8(x, zero)
#define HIGH_BYTE(op, x) _mm512_unpack##op##_epi8(zero, x)

/*
 * The magnitude of the posit nearest to 2^(scale - 128) (1 + fraction 2^-16), as in small_encode, in 32 lanes:
 * biased_scale = scale + 128 (32 .. 225) and fraction left-aligned with its bits from ES + 1 up. The bit string
 * after the regime, ES exponent bits then the fraction, is rounded to the regime's AVAILABLE bits, to nearest
 * with ties to an even pattern, and added to the regime's prefix: a carry out of those bits makes the next
 * regime's prefix, as posits are ordered like their patterns. Beyond maxPos's regime the sum is at most maxPos + 1
 * (the caller clamps it); below minPos's it is 0 or 1.
 */
INLINE __m512i encode_x32(__m512i biased_scale, __m512i fraction) {
    const __m512i prefixes = WORD_TABLE(PREFIX_AT), shifts = WORD_TABLE(SHIFT_AT);
    const __m512i below_half = WORD_TABLE(BELOW_HALF_AT), one = _mm512_set1_epi16(1);
    __m512i regime = _mm512_srli_epi16(biased_scale, ES);
    __m512i prefix = _mm512_permutexvar_epi16(regime, prefixes);
    __m512i shift = _mm512_permutexvar_epi16(regime, shifts);
    /* The exponent (the biased scale's low ES bits, the bias being a multiple of 2^ES), then the fraction, in
       bits 14..0: the fraction's bits below ES + 1 are 0, so nothing is lost. */
#if ES > 0
    __m512i string = _mm512_srli_epi16(_mm512_shldi_epi16(biased_scale, fraction, 16 - ES), 1);
#else
    __m512i string = _mm512_srli_epi16(fraction, 1);
#endif
    /* The last kept bit is the prefix's own when no bits are available, so the tie goes by the pattern's. */
    __m512i last = _mm512_ternarylogic_epi32(_mm512_srlv_epi16(string, shift), prefix, one, 0x28); /* (a^b) & c */
    __m512i bias = _mm512_add_epi16(_mm512_permutexvar_epi16(regime, below_half), last);
    __m512i rounded = _mm512_add_epi16(string, bias);
    return _mm512_add_epi16(prefix, _mm512_srlv_epi16(rounded, shift));
}

/* The scale (biased by 64) and the significand of each lane's magnitude: 0 for 0 and for NaR (2^(N-1), whose
   index is 0 for N = 8, as VPERMI2B reads 7 bits). */
INLINE __m512i scale_x64(__m512i magnitude) {
    return _mm512_permutex2var_epi8(BYTE_TABLE(SCALE_ENTRY, 0), magnitude, BYTE_TABLE(SCALE_ENTRY, 64));
}

INLINE __m512i significand_x64(__m512i magnitude) {
    return _mm512_permutex2var_epi8(BYTE_TABLE(SIGNIFICAND_ENTRY, 0), magnitude, BYTE_TABLE(SIGNIFICAND_ENTRY, 64));
}

/* The posits of the magnitudes (16-bit lanes, in the halves the widening made), negated where negative, NaR
   where nar. */
INLINE lanes64 posits_x64(__m512i low, __m512i high, __mmask64 negative, __mmask64 nar) {
    __m512i magnitude = _mm512_packus_epi16(low, high);
    __m512i p = _mm512_mask_sub_epi8(magnitude, negative, _mm512_setzero_si512(), magnitude);
    return (lanes64)_mm512_mask_mov_epi8(p, nar, _mm512_set1_epi8((char)NAR_PATTERN));
}

/* NaR has the largest magnitude, 2^(N-1), and it is the only one with that bit. */
INLINE __mmask64 nar_x64(__m512i largest_magnitude) {
    return _mm512_cmpeq_epi8_mask(largest_magnitude, _mm512_set1_epi8((char)(1u << (N - 1))));
}

API lanes64 FN(add_x64)(lanes64 a_lanes, lanes64 b_lanes) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i a = (__m512i)a_lanes, b = (__m512i)b_lanes;
    __m512i abs_a = _mm512_abs_epi8(a), abs_b = _mm512_abs_epi8(b);
    __m512i abs_big = _mm512_max_epu8(abs_a, abs_b), abs_small = _mm512_min_epu8(abs_a, abs_b);
    /* The sum has the sign of the operand of larger magnitude (with equal ones it is 0 or either's sign). */
    __mmask64 negative = _mm512_movepi8_mask(_mm512_mask_blend_epi8(_mm512_cmpgt_epu8_mask(abs_b, abs_a), a, b));
    __mmask64 opposite = _mm512_movepi8_mask(_mm512_xor_si512(a, b));
    __m512i scale_big = scale_x64(abs_big), scale_small = scale_x64(abs_small);
    __m512i larger = significand_x64(abs_big), smaller = significand_x64(abs_small);
    /* Subtracted as a negative addend: shifted arithmetically, it rounds towards minus infinity. */
    smaller = _mm512_mask_sub_epi8(smaller, opposite, zero, smaller);
    /*
     * Aligned to the larger: exact for shifts up to 9. Beyond, the sum's rounding bit lies at bit 7 or above
     * (its leading bit at 13 - ES or above, at most 6 - ES significant bits kept) and every shifted amount,
     * added or subtracted, is below 2^6 and leaves the bits from 6 up as the exact sum does, and something
     * nonzero below: a shift capped at 14 - ES keeps it nonzero, the larger's bits are all at 9 or above, and
     * an amount rounded down to -2^5 or more keeps the difference's low bits nonzero. A zero smaller operand
     * has significand 0 (and scale 0: the cap applies).
     */
    __m512i shift = _mm512_min_epu8(_mm512_sub_epi8(scale_big, scale_small), _mm512_set1_epi8(14 - ES));
    /* The leading zeros plus one of each sum (nonzero sums are at least 2^8), by its bits from 9 up. */
    const __m512i leading_low = BYTE_TABLE(SUM_LEADING_ENTRY, 0), leading_high = BYTE_TABLE(SUM_LEADING_ENTRY, 64);
    const __mmask64 low_bytes = 0x5555555555555555ull;
    __m512i halves[2];
    for (int half = 0; half < 2; half++) {
        __m512i larger16 = half ? HIGH_BYTE(hi, larger) : HIGH_BYTE(lo, larger);
        __m512i smaller16 = half ? HIGH_BYTE(hi, smaller) : HIGH_BYTE(lo, smaller);
        __m512i shift16 = half ? LOW_BYTE(hi, shift) : LOW_BYTE(lo, shift);
        __m512i scale16 = half ? LOW_BYTE(hi, scale_big) : LOW_BYTE(lo, scale_big);
        __m512i sum = _mm512_add_epi16(larger16, _mm512_srav_epi16(smaller16, shift16));
        __m512i normalize = _mm512_maskz_permutex2var_epi8(low_bytes, leading_low, _mm512_srli_epi16(sum, 9), leading_high);
        /* The leading 1 of the sum at 16 - normalize, the larger's hidden bit at 14 - ES. */
        __m512i to_sum = _mm512_set1_epi16(ENCODE_BIAS - SCALE_BIAS + 2 + ES);
        __m512i biased_scale = _mm512_sub_epi16(_mm512_add_epi16(scale16, to_sum), normalize);
        __m512i magnitude = encode_x32(biased_scale, _mm512_sllv_epi16(sum, normalize));
        magnitude = _mm512_maskz_mov_epi16(_mm512_test_epi16_mask(sum, sum), magnitude);
        halves[half] = _mm512_min_epu16(magnitude, _mm512_set1_epi16(MAXPOS_PATTERN));
    }
    return posits_x64(halves[0], halves[1], negative, nar_x64(abs_big));
}

API lanes64 FN(sub_x64)(lanes64 a, lanes64 b) {
    /* a - b = a + (-b); negating NaR's pattern gives 2^(N-1), which add_x64 takes for NaR by its magnitude. */
    return FN(add_x64)(a, (lanes64){0} - b);
}

API lanes64 FN(mul_x64)(lanes64 a_lanes, lanes64 b_lanes) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i a = (__m512i)a_lanes, b = (__m512i)b_lanes;
    __m512i abs_a = _mm512_abs_epi8(a), abs_b = _mm512_abs_epi8(b);
    __m512i significand_a = significand_x64(abs_a), significand_b = significand_x64(abs_b);
    __m512i scales = _mm512_add_epi8(scale_x64(abs_a), scale_x64(abs_b)); /* biased by 2 * 64: 32 .. 224 */
    __m512i halves[2];
    for (int half = 0; half < 2; half++) {
        /* Hidden bits at 6 - ES: a product of 2^(12 - 2 ES) up to below 2^(14 - 2 ES), exact in 16 bits. */
        __m512i product = half ? _mm512_mullo_epi16(LOW_BYTE(hi, significand_a), LOW_BYTE(hi, significand_b))
                               : _mm512_mullo_epi16(LOW_BYTE(lo, significand_a), LOW_BYTE(lo, significand_b));
        __m512i carry = _mm512_srli_epi16(product, 13 - 2 * ES);
        __m512i normalize = _mm512_sub_epi16(_mm512_set1_epi16(4 + 2 * ES), carry);
        __m512i biased_scale = _mm512_add_epi16(half ? LOW_BYTE(hi, scales) : LOW_BYTE(lo, scales), carry);
        __m512i magnitude = encode_x32(biased_scale, _mm512_sllv_epi16(product, normalize));
        /* Products round to neither 0 nor beyond maxPos; a zero operand (significand 0) makes the product 0. */
        magnitude = _mm512_min_epu16(magnitude, _mm512_set1_epi16(MAXPOS_PATTERN));
        halves[half] = _mm512_maskz_max_epu16(_mm512_test_epi16_mask(product, product), magnitude, _mm512_set1_epi16(1));
    }
    __mmask64 negative = _mm512_movepi8_mask(_mm512_xor_si512(a, b));
    return posits_x64(halves[0], halves[1], negative, nar_x64(_mm512_max_epu8(abs_a, abs_b)));
}

/* 32 and 16 lanes, for the iterations a loop has left after its 64-lane ones: the 64-lane code, the lanes above
   filled with zeros. */
typedef uint8_t lanes32 __attribute__((vector_size(32)));
typedef uint8_t lanes16 __attribute__((vector_size(16)));
#define LANES_16(i) i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i + 8, i + 9, i + 10, i + 11, i + 12, i + 13, \
    i + 14, i + 15
#define WIDEN_32(v) __builtin_shufflevector(v, (lanes32){0}, LANES_16(0), LANES_16(16), LANES_16(32), LANES_16(48))
#define WIDEN_16(v) __builtin_shufflevector(v, (lanes16){0}, LANES_16(0), LANES_16(16), LANES_16(16), LANES_16(16))
#define NARROWER(op)                                                                                               \
    API lanes32 FN(op##_x32)(lanes32 a, lanes32 b) {                                                              \
        lanes64 r = FN(op##_x64)(WIDEN_32(a), WIDEN_32(b));                                                        \
        return __builtin_shufflevector(r, r, LANES_16(0), LANES_16(16));                                           \
    }                                                                                                              \
    API lanes16 FN(op##_x16)(lanes16 a, lanes16 b) {                                                              \
        lanes64 r = FN(op##_x64)(WIDEN_16(a), WIDEN_16(b));                                                        \
        return __builtin_shufflevector(r, r, LANES_16(0));                                                         \
    }
NARROWER(add)
NARROWER(sub)
NARROWER(mul)
#endif
