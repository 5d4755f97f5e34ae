/*
 * Posits per the Posit Standard (2022), https://posithub.org/docs/posit_standard-2.pdf, for one instance
 * chosen at compile time: -DPOSIT_N=<2..32> (bits) -DPOSIT_ES=<0..3> (exponent bits) -DBYODT_PREFIX=<name>.
 *
 * Storage: the N-bit pattern sign-extended to uint8_t / uint16_t / uint32_t (the smallest that holds it), so
 * that the order of posits is the order of the storage integers read as signed numbers and NaR (1 followed
 * by zeros) stays the most negative value.
 *
 * Rounding (section 4.1): the exact result is rounded to nearest, ties to the even bit pattern, where the
 * midpoint between two neighbours is the (N+1)-bit posit between them. Because the posit encoding is
 * monotonic, that is round-to-nearest-even of the exact value's infinitely long posit bit string cut after
 * N bits, which is what encode() does; the midpoint is therefore geometric where exponent bits are cut off.
 * A nonzero value never rounds to 0 (it becomes +-minPos) and a finite one never to NaR (+-maxPos).
 *
 * Arithmetic, each exact (correctly rounded); the aim is 32-bit lanes, so that a vector holds 16 of them:
 * - N <= 16, add and sub with float32 hardware: posits and all their rounding boundaries are float32 values,
 *   so the float32 sum, with the sign of its exact error (TwoSum) as the side of a boundary it may land on,
 *   rounds exactly (proof at float_add). Decoding to and encoding from float32 bits use 32-bit integer
 *   operations only (float_bits_of_real, encode_float), also for the conversions to and from float32.
 * - N <= 16, mul with float32 hardware where every product is exact in float32 (2p <= 24 for p-bit
 *   significands and the products within float32's normal range: posit16 es 2, every N <= 8, ...).
 * - N <= 16 with hardware double, div, sqrt and the other mul: computed in double and rounded once (double
 *   rounding is innocuous when 53 >= 2p + 2, and every such result lies far inside double's range).
 * - Otherwise (N > 16, -DPOSIT_INTEGER_ARITHMETIC=1, or riscv32 without the F or D extension for the
 *   respective paths): exact integer significands with a sticky bit, in 32-bit operations wherever they fit,
 *   so that wider posits fill 32-bit lanes too: decode() and encode_fraction() work on 32-bit words, add
 *   aligns the significands in a 32-bit word (64 bits only for posit32 es 0, see integer_add), and mul takes
 *   the 64-bit product as two 32-bit halves. For posit32 this measured faster, vectorized on x86-64, than
 *   adding in double with TwoSum's error as float_add does (64-bit lanes hold half as many posits).
 * exp, log, tanh, sigmoid, erf and pow use the double-precision routines of common/double_math.c and round
 * once. No C library, no libm; straight-line code with selects so that loops calling it vectorize.
 *
 * Exact accumulation: a fixed-point quire of POSIT_ACC_BITS bits (little-endian uint64_t words) whose least
 * significant bit is minPos^2, so that every product of two posits is exact in it.
 */
#include <stdint.h>

#if !defined(POSIT_N) || !defined(POSIT_ES) || !defined(BYODT_PREFIX)
#error "define POSIT_N, POSIT_ES and BYODT_PREFIX"
#endif
#if POSIT_N < 2 || POSIT_N > 32 || POSIT_ES < 0 || POSIT_ES > 3
#error "POSIT_N must be in 2..32 and POSIT_ES in 0..3"
#endif

#define N POSIT_N
#define ES POSIT_ES

#if N <= 8
typedef uint8_t posit_storage;
typedef int8_t posit_signed;
#elif N <= 16
typedef uint16_t posit_storage;
typedef int16_t posit_signed;
#else
typedef uint32_t posit_storage;
typedef int32_t posit_signed;
#endif

/* Floating-point hardware: x86-64 has both; RISC-V has float with F (flen >= 32), double with D (flen 64). */
#if !defined(__riscv)
#define HAS_FLOAT_HARDWARE 1
#define HAS_DOUBLE_HARDWARE 1
#elif defined(__riscv_flen)
#define HAS_FLOAT_HARDWARE (__riscv_flen >= 32)
#define HAS_DOUBLE_HARDWARE (__riscv_flen >= 64)
#else
#define HAS_FLOAT_HARDWARE 0
#define HAS_DOUBLE_HARDWARE 0
#endif

/* -DPOSIT_INTEGER_ARITHMETIC=1 forces the exact integer arithmetic (the tests use it to check that path). */
#ifndef POSIT_INTEGER_ARITHMETIC
#define POSIT_INTEGER_ARITHMETIC 0
#endif
/* The significand bits (hidden bit included) of the most precise posits: N - 2 - ES, at least 1. */
#define MAX_SIGNIFICAND_BITS (N - 2 - ES > 1 ? N - 2 - ES : 1)
/* The float32 bit-level conversions (integer operations only) hold every posit of up to 16 bits. */
#define FLOAT_CONVERSIONS (N <= 16)
/* add and sub in float32 arithmetic with the exact error term (see float_add). */
#define FLOAT_ADD (FLOAT_CONVERSIONS && HAS_FLOAT_HARDWARE && !POSIT_INTEGER_ARITHMETIC)
/* mul in float32 where every product is exact: 2p <= 24 significand bits, minPos^2 >= 2^-126 (normal). */
#define FLOAT_MUL (FLOAT_ADD && 2 * MAX_SIGNIFICAND_BITS <= 24 && 2 * ((N - 2) << ES) <= 126)
/* Otherwise, for N <= 16, double arithmetic rounded once (div, sqrt and the remaining mul). */
#define DOUBLE_ARITHMETIC (N <= 16 && HAS_DOUBLE_HARDWARE && !POSIT_INTEGER_ARITHMETIC)

#define PASTE(a, b) a##_##b
#define NAME(prefix, op) PASTE(prefix, op)
#define FN(op) NAME(BYODT_PREFIX, op)
#define API __attribute__((always_inline))
/* Helpers inline too: a call left in a loop body stops it from vectorizing. */
#define INLINE static inline __attribute__((always_inline))

/* The largest scale (power of two) of a posit: maxPos = 2^MAX_SCALE, minPos = 2^-MAX_SCALE. */
#define MAX_SCALE ((N - 2) << ES)
#define NAR_PATTERN ((int32_t)(0u - (1u << (N - 1)))) /* sign-extended: the most negative value */
#define MAXPOS_PATTERN ((int32_t)((1u << (N - 1)) - 1))

/* Quire width: at least 16N bits (the standard's), and at least 4 MAX_SCALE + 32 bits, so that the range
   minPos^2..maxPos^2 plus a sign bit and about 30 carry bits fit (es = 3 needs the latter). */
#define QUIRE_NEED ((4 * MAX_SCALE + 32) > 16 * N ? (4 * MAX_SCALE + 32) : 16 * N)
#if QUIRE_NEED <= 128
#define POSIT_ACC_BITS 128
#elif QUIRE_NEED <= 256
#define POSIT_ACC_BITS 256
#elif QUIRE_NEED <= 512
#define POSIT_ACC_BITS 512
#else
#define POSIT_ACC_BITS 1024
#endif
#define ACC_WORDS (POSIT_ACC_BITS / 64)
#define ACC_LSB_SCALE (-2 * MAX_SCALE) /* the quire's least significant bit is 2^ACC_LSB_SCALE = minPos^2 */

typedef uint64_t u64;
typedef int64_t i64;

/* ---- bit helpers ---- */

/* The storage integer as the sign-extended pattern. */
INLINE int32_t pattern_of(posit_storage p) { return (int32_t)(posit_signed)p; }

/* Cuts an int32 to N bits and sign-extends it again (two's complement wrap-around in N bits). */
INLINE int32_t wrap_to_n(uint32_t v) { return (int32_t)(v << (32 - N)) >> (32 - N); }

/* The pattern of -x (two's complement in N bits; -NaR = NaR). */
INLINE int32_t negate(int32_t p) { return wrap_to_n(0u - (uint32_t)p); }

INLINE int clz32(uint32_t x) { return __builtin_clz(x | 1); }
INLINE int clz64(u64 x) { return x == 0 ? 64 : __builtin_clzll(x); }

/* ---- decoding ---- */

/* A nonzero, non-NaR posit is (-1)^negative * significand * 2^(scale - 31) with significand in [2^31, 2^32).
   For 0 and NaR the fields are meaningless; callers select those cases separately. */
typedef struct {
    uint32_t negative;
    int32_t scale;
    uint32_t significand;
} unpacked;

INLINE unpacked decode(int32_t p) {
    uint32_t negative = (uint32_t)p >> 31;
    uint32_t magnitude = negative ? 0u - (uint32_t)p : (uint32_t)p;
    /* The magnitude's bits after the sign, left-aligned in 32 bits (the pattern is zero-padded below N bits). */
    uint32_t body = magnitude << (33 - N);
    /* The regime's run of equal bits is one longer than the run of zeros where body and body << 1 agree; 32-bit
       operations only, so that a vector holds as many lanes as it holds posits. */
    int32_t run_less_one = clz32(body ^ (body << 1));
    int32_t regime = body >> 31 ? run_less_one : ~run_less_one; /* ones: run - 1; zeros: -run */
    uint32_t rest = (body << run_less_one) << 2; /* exponent bits, then the fraction, left-aligned */
    unpacked u;
    u.negative = negative;
#if ES > 0
    u.scale = regime * (1 << ES) + (int32_t)(rest >> (32 - ES));
#else
    u.scale = regime;
#endif
    /* At most N - 3 - ES fraction bits: shifting them below the hidden bit loses none. */
    u.significand = 0x80000000u | ((rest << ES) >> 1);
    return u;
}

/* ---- encoding: the rounding of section 4.1 ---- */

/*
 * The posit nearest to (-1)^negative * (1 + fraction 2^-32) * 2^scale plus, when sticky is 1, a positive amount
 * below the fraction's last bit. Returns the sign-extended pattern. 32-bit operations only, so that a vector
 * holds as many lanes as it holds posits.
 */
INLINE int32_t encode_fraction(uint32_t negative, int32_t scale, uint32_t fraction, uint32_t sticky) {
    int32_t regime = scale >> ES; /* floor division */
    /* The magnitude's bit string from its top bit: regime r >= 0 is "10" shifted right arithmetically by r
       (r + 1 ones, a zero), r < 0 is "01" shifted right by -r - 1 (-r zeros, a one); the exponent and the
       fraction follow and shift along. Beyond maxPos (r >= N - 1) the string starts with N ones and rounds up
       to 2^(N-1), below minPos (r <= 1 - N) to 0 or 1: limiting the magnitude to 1..maxPos afterwards is the
       standard's saturation, and shifting by 31 instead of more keeps that. */
    uint32_t head = regime >= 0 ? 0x80000000u : 0x40000000u;
    /* The scale's low ES bits are the exponent; its bits above them fall off under the head. */
    uint32_t word = head | ((((uint32_t)scale << (30 - ES)) | (fraction >> (2 + ES))) & 0x3fffffffu);
    uint32_t shift = (uint32_t)(regime ^ (regime >> 31));
    shift = shift > 31 ? 31 : shift;
    uint32_t string = (uint32_t)((int32_t)word >> shift);
    /* The N - 1 magnitude bits, the first cut bit, and whether anything after it is nonzero: in the string,
       in the bits the shift dropped, or in those of the fraction that did not fit. */
    const int cut = 33 - N;
    uint32_t magnitude = string >> cut;
    uint32_t guard = (string >> (cut - 1)) & 1;
    uint32_t dropped = (string << shift) != word;
    uint32_t rest = ((string & ((1u << (cut - 1)) - 1)) != 0) | dropped | ((fraction << (30 - ES)) != 0) | sticky;
    magnitude += guard & (rest ? 1u : magnitude); /* to nearest, ties to even; at most 2^(N-1): no overflow */
    magnitude = magnitude < 1 ? 1 : magnitude > (uint32_t)MAXPOS_PATTERN ? (uint32_t)MAXPOS_PATTERN : magnitude;
    return negative ? -(int32_t)magnitude : (int32_t)magnitude;
}

/*
 * The posit nearest to (-1)^negative * significand * 2^(scale - 63) (significand in [2^63, 2^64)) plus,
 * when sticky is 1, a positive amount below the significand's last bit.
 */
INLINE int32_t encode(uint32_t negative, int32_t scale, u64 significand, u64 sticky) {
    /* Posits have at most 30 significand bits: 32 fraction bits round them, the rest only has to be nonzero. */
    uint32_t rest = ((significand << 33) != 0) | (uint32_t)sticky;
    return encode_fraction(negative, scale, (uint32_t)(significand >> 31), rest);
}

/* The posit nearest to a double; +-0 -> 0, +-inf and NaN -> NaR. */
INLINE int32_t from_double(double x) {
    u64 b = bits_of(x);
    int32_t biased = (int32_t)((b >> 52) & 0x7ff);
    /* A subnormal double is below every posit's minPos, so its scale only has to be below -MAX_SCALE. */
    int32_t p = encode((uint32_t)(b >> 63), biased - 1023, ((u64)1 << 63) | ((b << 12) >> 1), 0);
    p = biased == 0x7ff ? NAR_PATTERN : p;
    return (b << 1) == 0 ? 0 : p;
}

/* The exact value of a posit as a double (every posit of up to 32 bits is one); NaR -> NaN. */
INLINE double to_double(int32_t p) {
    unpacked u = decode(p);
    u64 bits = ((u64)u.negative << 63) | ((u64)(u.scale + 1023) << 52) | ((u64)(u.significand & 0x7fffffffu) << 21);
    bits = p == NAR_PATTERN ? 0x7ff8000000000000ull : bits;
    return p == 0 ? 0.0 : double_of(bits);
}

INLINE int32_t is_nar(int32_t p) { return p == NAR_PATTERN; }

/* ---- float32 bit-level conversions and arithmetic (N <= 16) ---- */

#if FLOAT_CONVERSIONS
INLINE uint32_t bits_of_float(float x) { union { float f; uint32_t u; } v = { x }; return v.u; }
INLINE float float_of_bits(uint32_t u) { union { uint32_t u; float f; } v = { u }; return v.f; }

/*
 * The float32 bits of a posit's exact value, with 32-bit integer operations only; NaR gives 0 (callers that
 * meet NaR select it themselves). Every posit of up to 16 bits is a float32: at most 14 significand bits,
 * scales within +-112.
 */
INLINE uint32_t float_bits_of_real(int32_t p) {
    uint32_t magnitude = p < 0 ? 0u - (uint32_t)p : (uint32_t)p;
    uint32_t body = magnitude << (33 - N); /* 0 for 0 and NaR, which are selected at the end */
    /* The regime's run of equal bits is one longer than the run of zeros where body and body << 1 agree. */
    int32_t run_less_one = clz32(body ^ (body << 1));
    uint32_t ones = (uint32_t)((int32_t)body >> 31);
    int32_t regime = run_less_one ^ (int32_t)~ones; /* ones: run - 1; zeros: -run = ~(run - 1) */
    uint32_t rest = (body << run_less_one) << 2; /* exponent bits, then the fraction, left-aligned */
    /* Shifted to end at float32's last fraction bit, the ES exponent bits land on the low bits of the exponent
       field, so adding them to the regime's part of the biased exponent is the scale's. */
    uint32_t bits = ((uint32_t)(regime * (1 << ES) + 127) << 23) + (rest >> (9 - ES));
    bits |= (uint32_t)p & 0x80000000u;
    return body == 0 ? 0 : bits;
}

INLINE float float_of_real(int32_t p) { return float_of_bits(float_bits_of_real(p)); }

/*
 * The posit nearest to (-1)^negative * v, where extended is v's float32 magnitude bits shifted left once with
 * one more fraction bit below: extended = 2 |bits| + 1 stands for a value strictly between |v| and the next
 * float32, 2 |bits| - 1 for one strictly between the previous float32 and |v|. A float32 exponent field of 255
 * (infinity, NaN) gives NaR, 0 gives 0; float32 subnormals lie below every minPos here. The same rounding as
 * encode(), in 32-bit operations.
 */
/* What encode_float's argument can be: the sum or the product of two posits, or any float32. */
enum float_range { SUM_RANGE, PRODUCT_RANGE, ANY_RANGE };

INLINE int32_t encode_float(uint32_t negative, uint32_t extended, enum float_range range) {
    /* With the exponent bias raised from 127 to 128, a multiple of 2^ES, the biased exponent's low ES bits are
       the posit's exponent, the others the regime plus 128 >> ES, and its top bit says whether the regime is
       >= 0. (Exponent field 255 wraps around; callers select NaR for it.) */
    uint32_t rebiased = extended + (1u << 24);
    int32_t regime = (int32_t)(rebiased >> (24 + ES)) - (128 >> ES);
    /* The magnitude's bit string: regime r >= 0 is "10" shifted right arithmetically by r (r + 1 ones, a zero),
       r < 0 is "01" shifted right by -r - 1 (-r zeros, a one); exponent and fraction follow and shift along. */
    uint32_t head = ((uint32_t)((int32_t)rebiased >> 1) ^ 0x40000000u) & 0xc0000000u;
    uint32_t word = head | ((rebiased << (6 - ES)) & 0x3fffffffu);
    /* Within maxPos..minPos the shifts below drop up to N - 1 bits: fold every bit below bit N - 1 into it, which
       stays below the rounding bit after any shift and so counts only as "something nonzero after it". */
    uint32_t low = (1u << (N - 1)) - 1;
    word |= (word & low) != 0 ? low + 1 : 0;
    int32_t shift = regime ^ (regime >> 31);
    /* Sums and products of posits have |regime| <= 2N, so only an arbitrary float needs the limit. */
    shift = range == ANY_RANGE && shift > 31 ? 31 : shift;
    /* Beyond maxPos's regime N - 2 the string can start with N ones, so rounding needs a zero bit on top not to
       carry out of 32 bits, and the result, 2^(N-1), a limit. Not so for sums when ES >= 1: they stay below
       2 maxPos < 2^((N-1) 2^ES). */
    const int beyond = !(range == SUM_RANGE && ES >= 1);
    uint32_t string = (uint32_t)((int32_t)word >> shift) >> beyond;
    /* Round to nearest even after the N - 1 magnitude bits. */
    const int cut = 33 - N - beyond;
    uint32_t magnitude = (string + ((1u << (cut - 1)) - 1) + ((string >> cut) & 1)) >> cut;
    magnitude = beyond && magnitude > (uint32_t)MAXPOS_PATTERN ? (uint32_t)MAXPOS_PATTERN : magnitude;
    /* Below minPos the string rounds to 0 or 1. Posits are multiples of minPos, so nonzero sums never are. */
    magnitude = range != SUM_RANGE && magnitude < 1 ? 1 : magnitude;
    int32_t p = negative ? -(int32_t)magnitude : (int32_t)magnitude;
    return extended == 0 ? 0 : p;
}

INLINE int32_t from_float_bits(uint32_t bits) {
    int32_t p = encode_float(bits >> 31, bits << 1, ANY_RANGE);
    return (bits << 1) >> 24 == 255 ? NAR_PATTERN : p;
}
#endif

#if FLOAT_ADD
/*
 * x + y rounded once, exactly, from float32 arithmetic. Posits x and y are float32 values, and so are all
 * rounding boundaries: the midpoints between neighbouring posits are the (N+1)-bit posits (at most 15
 * significand bits, scales within +-120), powers of two where the midpoint is geometric included. Rounding to
 * a posit is monotonic and constant between boundaries. s = fl(x + y) is monotonic in the exact sum x + y and
 * keeps every float32, so when x + y lies between two boundaries b1 <= x + y <= b2, then b1 <= s <= b2 too: s
 * never crosses a boundary and only can land on one. TwoSum gives the exact error e = (x + y) - s (it is exact
 * for every pair of float32 operands whose sum does not overflow; here |x + y| <= 2^113, and since posits are
 * multiples of minPos, so are s and e: no subnormals arise, even with flush-to-zero).
 * So x + y lies strictly between s and its float32 neighbour on the side of e's sign, where no boundary lies,
 * unless e = 0; encode_float's extra bit says which side. A tie (x + y exactly on a boundary, e = 0) rounds to
 * even, and s = 0 only when x + y = 0.
 * For N <= 8 the error term is left out: there float32 has more than 2p + 2 bits for the p-bit significands
 * (p <= 6), the double rounding is innocuous, and the tests check every pair of every such instance.
 */
INLINE int32_t float_add(int32_t a, int32_t b) {
    float x = float_of_real(a), y = float_of_real(b);
    float sum = x + y;
    uint32_t s = bits_of_float(sum);
#if N <= 8
    int32_t side = 0;
#else
    float y_part = sum - x;
    float x_part = sum - y_part;
    float error = (x - x_part) + (y - y_part);
    uint32_t e = bits_of_float(error);
    /* e is +0 when the sum is exact (differences of equal floats are +0 in round-to-nearest). */
    int32_t side = e == 0 ? 0 : (s ^ e) >> 31 ? -1 : 1;
#endif
    int32_t p = encode_float(s >> 31, (s << 1) + (uint32_t)side, SUM_RANGE);
    return (is_nar(a) | is_nar(b)) ? NAR_PATTERN : p;
}
#endif

#if FLOAT_MUL
/* x * y is exact in float32 here (see FLOAT_MUL), so rounding the product once is the correct rounding. */
INLINE int32_t float_mul(int32_t a, int32_t b) {
    uint32_t product = bits_of_float(float_of_real(a) * float_of_real(b));
    int32_t p = encode_float(product >> 31, product << 1, PRODUCT_RANGE);
    return (is_nar(a) | is_nar(b)) ? NAR_PATTERN : p;
}
#endif

/* ---- exact integer arithmetic (N > 16, or where double is not available) ---- */

INLINE int32_t integer_mul(int32_t a, int32_t b) {
    unpacked x = decode(a), y = decode(b);
    /* The product's halves, in [2^62, 2^64) together, so that the rest is 32-bit work (a vector holds as many
       lanes as it holds posits); the low half is a plain 32-bit multiply. */
    uint32_t high = (uint32_t)(((u64)x.significand * y.significand) >> 32), low = x.significand * y.significand;
    uint32_t drop = (uint32_t)clz32(high) + 1; /* 1 or 2: shifting high left by this drops the leading bit */
    uint32_t carry = 2 - drop;
    uint32_t fraction = (high << drop) | (low >> (32 - drop));
    uint32_t sticky = (low << drop) != 0;
    int32_t p = encode_fraction(x.negative ^ y.negative, x.scale + y.scale + (int32_t)carry, fraction, sticky);
    p = ((a == 0) | (b == 0)) ? 0 : p;
    return (is_nar(a) | is_nar(b)) ? NAR_PATTERN : p;
}

/*
 * The adder's word: the larger significand with its hidden bit at bit ADDER_BITS - 2 (a carry bit above it),
 * the smaller one aligned to it. 32 bits hold significands of up to 29 bits, every posit's but those of
 * posit32 es 0 (see integer_add), so that a vector holds as many lanes as it holds posits.
 */
#if MAX_SIGNIFICAND_BITS <= 29
typedef uint32_t adder_word;
#define ADDER_BITS 32
#else
typedef u64 adder_word;
#define ADDER_BITS 64
#endif

/*
 * x + y rounded once, exactly. When the scales differ by at most 1, aligning the smaller significand drops
 * none of its bits (ADDER_BITS - 1 - MAX_SIGNIFICAND_BITS >= 2 bits are free below the larger one), so the sum
 * is exact however much it cancels. Otherwise the smaller one is below a quarter of the larger one and the
 * sum at least 2^(ADDER_BITS - 3): it keeps ADDER_BITS - 2 >= MAX_SIGNIFICAND_BITS + 1 exact bits, a posit's
 * significand and its rounding bit, and a sticky bit stands for the dropped ones.
 */
INLINE int32_t integer_add(int32_t a, int32_t b) {
    /* Posit magnitudes order like the magnitudes of their patterns: make x the larger one. */
    uint32_t abs_a = a < 0 ? 0u - (uint32_t)a : (uint32_t)a, abs_b = b < 0 ? 0u - (uint32_t)b : (uint32_t)b;
    int32_t swap = abs_b > abs_a;
    int32_t big = swap ? b : a, small = swap ? a : b;
    unpacked x = decode(big), y = decode(small);
    y.significand = small == 0 ? 0 : y.significand;
#if ADDER_BITS == 32
    adder_word larger = x.significand >> 1, smaller = y.significand >> 1; /* no bit lost: at most 29 of them */
#else
    adder_word larger = (u64)x.significand << 31, smaller = (u64)y.significand << 31;
#endif
    int32_t shift = x.scale - y.scale;
    shift = shift > ADDER_BITS - 1 ? ADDER_BITS - 1 : shift < 0 ? 0 : shift;
    adder_word aligned = smaller >> shift;
    uint32_t sticky = (aligned << shift) != smaller;
    /* Subtracting a value with a nonzero tail: take one more unit and report the positive remainder as sticky. */
    uint32_t subtract = x.negative ^ y.negative;
    adder_word sum = subtract ? larger - aligned - sticky : larger + aligned;
#if ADDER_BITS == 32
    int lead = clz32(sum);
    uint32_t fraction = (sum << lead) << 1; /* the hidden bit dropped */
#else
    int lead = clz64(sum) & 63;
    u64 normalized = (sum << lead) << 1;
    uint32_t fraction = (uint32_t)(normalized >> 32);
    sticky |= (uint32_t)normalized != 0;
#endif
    int32_t p = encode_fraction(x.negative, x.scale + 1 - lead, fraction, sticky);
    p = sum == 0 ? 0 : p;
    p = big == 0 ? 0 : p;
    /* NaR's magnitude pattern is the largest: if either is NaR, big is. */
    return is_nar(big) ? NAR_PATTERN : p;
}

/* floor(numerator * 2^32 / divisor) and whether a remainder is left, by restoring division (no library
   call for 64-bit division on 32-bit targets); numerator < 2^32 <= 2 divisor. */
INLINE u64 divide_shifted(uint32_t numerator, uint32_t divisor, u64 *inexact) {
    u64 remainder = numerator, quotient = 0;
    for (int i = 0; i < 33; i++) {
        u64 fits = remainder >= divisor;
        remainder -= fits ? divisor : 0;
        quotient = (quotient << 1) | fits;
        remainder <<= 1;
    }
    *inexact = remainder != 0;
    return quotient;
}

INLINE int32_t integer_div(int32_t a, int32_t b) {
    unpacked x = decode(a), y = decode(b);
    u64 inexact;
    u64 quotient = divide_shifted(x.significand, y.significand, &inexact); /* in (2^31, 2^33) */
    int lead = clz64(quotient);
    int32_t p = encode(x.negative ^ y.negative, x.scale - y.scale + 31 - lead, quotient << lead, inexact);
    p = a == 0 ? 0 : p;
    return (is_nar(a) | is_nar(b) | (b == 0)) ? NAR_PATTERN : p;
}

INLINE int32_t integer_sqrt(int32_t a) {
    unpacked x = decode(a);
    /* sqrt(s 2^(e-31)) = sqrt(s 2^(31 + (e & 1))) 2^(floor(e/2) - 31): a 32-bit integer root. */
    u64 radicand = (u64)x.significand << (31 + (x.scale & 1));
    u64 root = 0, remainder = 0;
    for (int i = 0; i < 32; i++) {
        remainder = (remainder << 2) | (radicand >> 62);
        radicand <<= 2;
        u64 trial = (root << 2) | 1;
        u64 fits = remainder >= trial;
        remainder -= fits ? trial : 0;
        root = (root << 1) | fits;
    }
    int32_t p = encode(0, x.scale >> 1, root << 32, remainder != 0);
    p = a == 0 ? 0 : p;
    return a < 0 ? NAR_PATTERN : p; /* negative arguments and NaR */
}

/* ---- the exported functions ---- */

API posit_storage FN(from_f64)(double x) { return (posit_storage)from_double(x); }
#if FLOAT_CONVERSIONS
API posit_storage FN(from_f32)(float x) { return (posit_storage)from_float_bits(bits_of_float(x)); }
API float FN(to_f32)(posit_storage storage) {
    int32_t p = pattern_of(storage);
    return is_nar(p) ? float_of_bits(0x7fc00000u) : float_of_real(p);
}
#else
API posit_storage FN(from_f32)(float x) { return (posit_storage)from_double((double)x); }
API float FN(to_f32)(posit_storage p) { return (float)to_double(pattern_of(p)); }
#endif
API double FN(to_f64)(posit_storage p) { return to_double(pattern_of(p)); }

API posit_storage FN(from_i32)(int32_t i) {
    uint32_t negative = (uint32_t)i >> 31;
    u64 magnitude = negative ? (u64)(-(i64)i) : (u64)i;
    int lead = clz64(magnitude);
    int32_t p = encode(negative, 63 - lead, magnitude << (lead & 63), 0);
    return (posit_storage)(i == 0 ? 0 : p);
}

/* Round to nearest, ties to even; saturating; NaR -> INT32_MIN. */
API int32_t FN(to_i32)(posit_storage storage) {
    int32_t p = pattern_of(storage);
    unpacked u = decode(p);
    /* value = significand 2^(scale - 31); for scale in [-1, 30] the integer part is below 2^31. */
    int32_t scale = u.scale < -1 ? -1 : u.scale > 30 ? 30 : u.scale;
    u64 v = (u64)u.significand << 32;
    int32_t shift = 63 - scale; /* 33..64 */
    u64 half_and_more = v >> (shift - 1);
    u64 integer = half_and_more >> 1;
    u64 half = half_and_more & 1;
    u64 tail = (v << (65 - shift)) != 0;
    integer += half & (tail | (integer & 1));
    integer = u.scale < -1 ? 0 : integer;
    int64_t signed_value = u.negative ? -(int64_t)integer : (int64_t)integer;
    signed_value = u.scale > 30 ? (u.negative ? INT32_MIN : INT32_MAX) : signed_value;
    signed_value = signed_value > INT32_MAX ? INT32_MAX : signed_value;
    signed_value = p == 0 ? 0 : signed_value;
    return p == NAR_PATTERN ? INT32_MIN : (int32_t)signed_value;
}

API posit_storage FN(neg)(posit_storage a) { return (posit_storage)negate(pattern_of(a)); }
API posit_storage FN(abs)(posit_storage a) {
    int32_t p = pattern_of(a);
    return (posit_storage)(p < 0 ? negate(p) : p);
}

API posit_storage FN(add)(posit_storage a, posit_storage b) {
#if FLOAT_ADD
    return (posit_storage)float_add(pattern_of(a), pattern_of(b));
#else
    return (posit_storage)integer_add(pattern_of(a), pattern_of(b));
#endif
}

API posit_storage FN(sub)(posit_storage a, posit_storage b) {
    /* a - b = a + (-b) exactly, and -NaR = NaR. */
    return FN(add)(a, FN(neg)(b));
}

API posit_storage FN(mul)(posit_storage a, posit_storage b) {
#if FLOAT_MUL
    return (posit_storage)float_mul(pattern_of(a), pattern_of(b));
#elif DOUBLE_ARITHMETIC
    return (posit_storage)from_double(to_double(pattern_of(a)) * to_double(pattern_of(b)));
#else
    return (posit_storage)integer_mul(pattern_of(a), pattern_of(b));
#endif
}

API posit_storage FN(div)(posit_storage a, posit_storage b) {
#if DOUBLE_ARITHMETIC
    /* x/0 is +-inf or NaN in double, both NaR. */
    return (posit_storage)from_double(to_double(pattern_of(a)) / to_double(pattern_of(b)));
#else
    return (posit_storage)integer_div(pattern_of(a), pattern_of(b));
#endif
}

API posit_storage FN(sqrt)(posit_storage a) {
#if DOUBLE_ARITHMETIC
    return (posit_storage)from_double(__builtin_elementwise_sqrt(to_double(pattern_of(a))));
#else
    return (posit_storage)integer_sqrt(pattern_of(a));
#endif
}

API int32_t FN(lt)(posit_storage a, posit_storage b) { return pattern_of(a) < pattern_of(b); }
API int32_t FN(le)(posit_storage a, posit_storage b) { return pattern_of(a) <= pattern_of(b); }
API int32_t FN(gt)(posit_storage a, posit_storage b) { return pattern_of(a) > pattern_of(b); }
API int32_t FN(ge)(posit_storage a, posit_storage b) { return pattern_of(a) >= pattern_of(b); }
API int32_t FN(eq)(posit_storage a, posit_storage b) { return pattern_of(a) == pattern_of(b); }
API int32_t FN(ne)(posit_storage a, posit_storage b) { return pattern_of(a) != pattern_of(b); }

/* NaR is the most negative pattern, so min propagates it by itself; max has to be told. */
API posit_storage FN(min)(posit_storage a, posit_storage b) {
    return pattern_of(a) < pattern_of(b) ? a : b;
}
API posit_storage FN(max)(posit_storage a, posit_storage b) {
    int32_t x = pattern_of(a), y = pattern_of(b);
    int32_t m = x > y ? x : y;
    return (posit_storage)((is_nar(x) | is_nar(y)) ? NAR_PATTERN : m);
}

/* -maxPos: the starting value of a max-pooling window (NaR would win every max). */
API posit_storage FN(lowest)(void) { return (posit_storage)(-MAXPOS_PATTERN); }

/* A transcendental result (a nonzero real unless exactly 0) rounded once; x is the argument's double. */
INLINE posit_storage round_result(double result, int32_t argument) {
    return (posit_storage)(is_nar(argument) ? NAR_PATTERN : from_double(result));
}

API posit_storage FN(exp)(posit_storage a) {
    int32_t p = pattern_of(a);
    /* exp_d clamps to e^+-700, beyond every posit's maxPos / minPos, yet finite and nonzero in double. */
    return round_result(exp_d(to_double(p)), p);
}

API posit_storage FN(log)(posit_storage a) {
    int32_t p = pattern_of(a);
    double result = log_d(p > 0 ? to_double(p) : 1.0);
    return (posit_storage)(p > 0 ? from_double(result) : NAR_PATTERN); /* log 0 = -inf, log of x < 0 or NaR */
}

API posit_storage FN(tanh)(posit_storage a) {
    int32_t p = pattern_of(a);
    return round_result(tanh_d(to_double(p)), p);
}

API posit_storage FN(sigmoid)(posit_storage a) {
    int32_t p = pattern_of(a);
    return round_result(sigmoid_d(to_double(p)), p);
}

API posit_storage FN(erf)(posit_storage a) {
    int32_t p = pattern_of(a);
    return round_result(erf_d(to_double(p)), p);
}

/*
 * x^y as C99 pow on the real numbers: NaR in gives NaR; x^0 = 1 and 1^y = 1; 0^y = 0 for y > 0 and NaR
 * (infinity) for y < 0; a negative x needs an integer y (NaR otherwise). The standard's pow, which gives NaR
 * for every negative x, is stricter; ONNX's Pow follows C.
 * Results that can be exact stay exact, because an exact result can be a rounding midpoint where only the exact
 * value rounds right: an integer y up to 1024 multiplies by repeated squaring (exact whenever the result fits
 * in a double), and otherwise x = 2^e m gives x^y = 2^(y e + y log2 m), exact for powers of two.
 */
API posit_storage FN(pow)(posit_storage a, posit_storage b) {
    int32_t pa = pattern_of(a), pb = pattern_of(b);
    double x = to_double(pa), y = to_double(pb);
    double ax = abs_d(x), ay = abs_d(y);
    /* Every posit of 2^30 or more is an even integer; below, y is an integer when truncation keeps it. */
    double clipped = ay < 1073741824.0 ? ay : 0;
    int32_t truncated = (int32_t)clipped;
    int32_t is_integer = (ay >= 1073741824.0) | ((double)truncated == clipped);
    int32_t odd = (ay < 1073741824.0) & (truncated & 1);

    double power = 1, base = ax;
    for (int i = 0; i <= 10; i++) {
        power *= (truncated >> i) & 1 ? base : 1.0;
        base *= base;
    }
    power = y < 0 ? 1 / power : power;

    double safe = pa != 0 && !is_nar(pa) ? ax : 1.0;
    u64 bits = bits_of(safe);
    int32_t e = (int32_t)((bits >> 52) & 0x7ff) - 1023;
    double m = double_of((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    double t = y * e + y * (log_d(m) * INV_LN2);
    t = t > 1000 ? 1000 : t < -1000 ? -1000 : t;
    int32_t k = nearest_int(t);
    double general = (1 + expm1_small((t - k) * LN2)) * pow2(k);

    double magnitude = is_integer & (ay <= 1024) ? power : general;
    /* x^y of a nonzero x is a finite nonzero real: double's overflow means maxPos, its underflow minPos. */
    magnitude = magnitude == 0 ? 0x1p-1022 : magnitude > 0x1p1000 ? 0x1p1000 : magnitude;
    int32_t result = from_double((odd & (x < 0)) ? -magnitude : magnitude);
    result = x < 0 && !is_integer ? NAR_PATTERN : result;
    result = pa == 0 ? (pb < 0 ? NAR_PATTERN : 0) : result;
    result = pb == 0 || x == 1.0 ? from_double(1.0) : result;
    return (posit_storage)((is_nar(pa) | is_nar(pb)) ? NAR_PATTERN : result);
}

/* ---- the quire ---- */

API int32_t FN(acc_bits)(void) { return POSIT_ACC_BITS; }

/*
 * acc += (-1)^negative * magnitude * 2^(scale) exactly, magnitude < 2^64 placed with its bit 0 at
 * weight 2^scale (scale >= ACC_LSB_SCALE - 64, and bits below the quire's LSB are zero); NaR makes the quire NaR.
 */
INLINE void quire_add(uint64_t *acc, uint32_t negative, u64 magnitude, int32_t scale, int32_t nar) {
    /* Bit offset in a frame with one extra zero word below the quire. */
    int32_t offset = scale - ACC_LSB_SCALE + 64;
    int32_t word = offset >> 6, bit = offset & 63;
    u64 low = magnitude << bit;
    u64 high = bit == 0 ? 0 : magnitude >> (64 - bit);
    u64 flip = negative ? ~(u64)0 : 0; /* subtract as add of the complement plus one */
    u64 carry = negative;
    for (int i = 0; i < ACC_WORDS; i++) {
        u64 addend = ((i + 1 == word) ? low : 0) | ((i == word) ? high : 0);
        addend ^= flip;
        u64 partial = acc[i] + addend;
        u64 carry_out = partial < addend;
        u64 total = partial + carry;
        carry_out |= total < partial;
        acc[i] = nar ? (i == ACC_WORDS - 1 ? (u64)1 << 63 : 0) : total;
        carry = carry_out;
    }
}

API void FN(acc_mac)(uint64_t *acc, posit_storage a, posit_storage b) {
    int32_t pa = pattern_of(a), pb = pattern_of(b);
    unpacked x = decode(pa), y = decode(pb);
    u64 product = (u64)x.significand * y.significand; /* weight of bit 0: 2^(scale_x + scale_y - 62) */
    product = ((pa == 0) | (pb == 0)) ? 0 : product;
    int32_t scale = x.scale + y.scale - 62;
    scale = product == 0 ? 0 : scale;
    quire_add(acc, x.negative ^ y.negative, product, scale, is_nar(pa) | is_nar(pb));
}

API void FN(acc_add)(uint64_t *acc, posit_storage a) {
    int32_t pa = pattern_of(a);
    unpacked x = decode(pa);
    u64 magnitude = pa == 0 ? 0 : x.significand;
    quire_add(acc, x.negative, magnitude, pa == 0 ? 0 : x.scale - 31, is_nar(pa));
}

/* The quire rounded once. Its two top bits differ only for NaR (or after an overflow of the carry bits). */
API posit_storage FN(acc_round)(const uint64_t *acc) {
    uint32_t negative = (uint32_t)(acc[ACC_WORDS - 1] >> 63);
    uint32_t next = (uint32_t)(acc[ACC_WORDS - 1] >> 62) & 1;
    u64 flip = negative ? ~(u64)0 : 0;
    u64 magnitude[ACC_WORDS];
    u64 carry = negative;
    for (int i = 0; i < ACC_WORDS; i++) {
        u64 w = acc[i] ^ flip;
        u64 total = w + carry;
        carry = total < w;
        magnitude[i] = total;
    }
    /* The most significant nonzero word, its leading bit, and the 64 bits from there down. */
    int32_t top = -1;
    for (int i = 0; i < ACC_WORDS; i++) top = magnitude[i] != 0 ? i : top;
    int32_t safe_top = top < 0 ? 0 : top;
    u64 head = magnitude[safe_top];
    u64 below = safe_top > 0 ? magnitude[safe_top - 1] : 0;
    int lead = clz64(head) & 63;
    u64 significand = (head << lead) | (lead == 0 ? 0 : below >> (64 - lead));
    u64 sticky = lead == 0 ? below != 0 : (below << lead) != 0;
    for (int i = 0; i < ACC_WORDS; i++) sticky |= (i < safe_top - 1) & (magnitude[i] != 0);
    int32_t scale = safe_top * 64 + 63 - lead + ACC_LSB_SCALE;
    int32_t p = encode(negative, scale, significand, sticky);
    p = top < 0 ? 0 : p;
    return (posit_storage)(negative != next ? NAR_PATTERN : p);
}
