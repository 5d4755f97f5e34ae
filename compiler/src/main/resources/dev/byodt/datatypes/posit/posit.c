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
 * -DBYODT_ROUNDING=BYODT_ROUNDING_<mode> (common/rounding.c) rounds that bit string in another way instead: ties
 * away from zero, toward zero, up, down or to odd (the last bit of the pattern set when inexact), keeping the
 * standard's two rules at the ends (no 0, no NaR) in every mode; those modes use the exact integer arithmetic
 * for every operation and from_double for conversions from float32. Stochastic rounding (posits of up to 16
 * bits) adds random bits to the first cut bits of that string, and its functions take a counter (SR_PARAM).
 *
 * Arithmetic, each exact (correctly rounded); the aim is narrow vector lanes (16-bit ones for N <= 8, else 32-bit):
 * - N <= 8 (not on RISC-V with float hardware), add, sub and mul in 16-bit integer operations only (small_add,
 *   small_mul): decoded to a scale and a left-aligned fraction, an exact 16-bit sum or product, and encoded in
 *   16 bits, with the regime's run and the sum's leading zeros counted on reversed bits.
 * - Other N <= 16, add and sub with float32 hardware: posits and all their rounding boundaries are float32 values,
 *   and the float32 sum lands on a boundary only when the exact sum is on it, so rounding the float32 sum is
 *   exact (proof at float_add). Decoding to and encoding from float32 bits use 32-bit integer operations only
 *   (float_bits_of_real, encode_float), also for the conversions to and from float32.
 * - Other N <= 16, mul with float32 hardware where every product is exact in float32 (2p <= 24 for p-bit
 *   significands and the products within float32's normal range: posit16 es 2, ...).
 * - N <= 16 with hardware double, div, sqrt and the other mul: computed in double and rounded once (double
 *   rounding is innocuous when 53 >= 2p + 2, and every such result lies far inside double's range).
 * - Otherwise (N > 16, -DPOSIT_INTEGER_ARITHMETIC=1, or riscv32 without the F or D extension for the
 *   respective paths): exact integer significands with a sticky bit, in 32-bit operations wherever they fit,
 *   so that wider posits fill 32-bit lanes too: decode() and encode_fraction() work on 32-bit words, add
 *   aligns the significands in a 32-bit word (64 bits only for posit32 es 0, see integer_add), and mul takes
 *   the 64-bit product as two 32-bit halves. For posit32 this measured faster, vectorized on x86-64, than
 *   adding in double with TwoSum's error term (64-bit lanes hold half as many posits).
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

/* -DPOSIT_INTEGER_ARITHMETIC=1 forces the exact integer arithmetic (the tests use it to check that path). The
   rounding modes other than the standard's (BYODT_ROUNDING, common/rounding.c) take it too: the float32, double
   and 16-bit shortcuts below round to nearest even and only their results are known to be exact. */
#ifndef POSIT_INTEGER_ARITHMETIC
#define POSIT_INTEGER_ARITHMETIC (BYODT_ROUNDING != BYODT_ROUNDING_NEAREST_EVEN)
#endif
#if !POSIT_INTEGER_ARITHMETIC && BYODT_ROUNDING != BYODT_ROUNDING_NEAREST_EVEN
#error "posit.c rounds other than to nearest even only with its integer arithmetic"
#endif
/* Stochastic rounding reads the first BYODT_SR_BITS (<= 16) cut bits of encode_fraction's 32-bit string, which
   holds 33 - N of them, every one exact for N <= 16 (the adder keeps 16 exact bits below posit16's significand). */
#if defined(BYODT_ROUNDING_STOCHASTIC) && BYODT_ROUNDING == BYODT_ROUNDING_STOCHASTIC && N > 16
#error "posit.c rounds stochastically only posits of up to 16 bits"
#endif
/* The significand bits (hidden bit included) of the most precise posits: N - 2 - ES, at least 1. */
#define MAX_SIGNIFICAND_BITS (N - 2 - ES > 1 ? N - 2 - ES : 1)
/* The float32 bit-level conversions (integer operations only) hold every posit of up to 16 bits. */
#define FLOAT_CONVERSIONS (N <= 16)
/* add and sub in float32 arithmetic, the float32 sum rounded once (see float_add). */
#define FLOAT_ADD (FLOAT_CONVERSIONS && HAS_FLOAT_HARDWARE && !POSIT_INTEGER_ARITHMETIC)
/* mul in float32 where every product is exact: 2p <= 24 significand bits, minPos^2 >= 2^-126 (normal). */
#define FLOAT_MUL (FLOAT_ADD && 2 * MAX_SIGNIFICAND_BITS <= 24 && 2 * ((N - 2) << ES) <= 126)
/* Otherwise, for N <= 16, double arithmetic rounded once (div, sqrt and the remaining mul). */
#define DOUBLE_ARITHMETIC (N <= 16 && HAS_DOUBLE_HARDWARE && !POSIT_INTEGER_ARITHMETIC)
/* N <= 8: add, sub and mul in 16-bit integer operations (see small_add), made for vector units. A scalar
   RISC-V core with float hardware runs the float32 path in fewer instructions: without Zbb it has no bit
   reversal or population count, which small_add uses where x86 has them in vector form. */
#if N <= 8 && !POSIT_INTEGER_ARITHMETIC && !(defined(__riscv) && HAS_FLOAT_HARDWARE)
#define SMALL_ARITHMETIC 1
#else
#define SMALL_ARITHMETIC 0
#endif

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
 * below the fraction's last bit (or that value rounded in the BYODT_ROUNDING mode). Returns the sign-extended pattern. 32-bit operations only, so that a vector
 * holds as many lanes as it holds posits.
 */
INLINE int32_t encode_fraction(uint32_t negative, int32_t scale, uint32_t fraction, uint32_t sticky SR_PARAM) {
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
    /* At most 2^(N-1): no overflow. */
    /* Stochastic rounding's first cut bits are the string's (posits of up to 16 bits: 17 of them or more). */
    magnitude += rounding_increment(magnitude & 1, guard, rest != 0, negative, first_cut_bits(string, cut), SR_RANDOM);
    magnitude = magnitude < 1 ? 1 : magnitude > (uint32_t)MAXPOS_PATTERN ? (uint32_t)MAXPOS_PATTERN : magnitude;
    return negative ? -(int32_t)magnitude : (int32_t)magnitude;
}

/*
 * The posit nearest to (-1)^negative * significand * 2^(scale - 63) (significand in [2^63, 2^64)) plus,
 * when sticky is 1, a positive amount below the significand's last bit.
 */
INLINE int32_t encode(uint32_t negative, int32_t scale, u64 significand, u64 sticky SR_PARAM) {
    /* Posits have at most 30 significand bits: 32 fraction bits round them, the rest only has to be nonzero. */
    uint32_t rest = ((significand << 33) != 0) | (uint32_t)sticky;
    return encode_fraction(negative, scale, (uint32_t)(significand >> 31), rest SR_ARG);
}

/* The posit nearest to a double; +-0 -> 0, +-inf and NaN -> NaR. */
INLINE int32_t from_double(double x SR_PARAM) {
    u64 b = bits_of(x);
    int32_t biased = (int32_t)((b >> 52) & 0x7ff);
    /* A subnormal double is below every posit's minPos, so its scale only has to be below -MAX_SCALE. */
    int32_t p = encode((uint32_t)(b >> 63), biased - 1023, ((u64)1 << 63) | ((b << 12) >> 1), 0 SR_ARG);
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

/* What encode_float's argument can be: the sum or the product of two posits, or any float32. */
enum float_range { SUM_RANGE, PRODUCT_RANGE, ANY_RANGE };

/*
 * The posit nearest to (-1)^negative * v, where shifted is v's float32 bits shifted left once (the sign bit
 * dropped). A float32 exponent field of 255 (infinity, NaN) gives NaR, 0 gives 0; float32 subnormals lie below
 * every minPos here. The same rounding as encode(), in 32-bit operations.
 */
INLINE int32_t encode_float(uint32_t negative, uint32_t shifted, enum float_range range) {
    /* With the exponent bias raised from 127 to 128, a multiple of 2^ES, the biased exponent's low ES bits are
       the posit's exponent, the others the regime plus 128 >> ES, and its top bit says whether the regime is
       >= 0. (Exponent field 255 wraps around; callers select NaR for it.) */
    uint32_t rebiased = shifted + (1u << 24);
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
    return shifted == 0 ? 0 : p;
}

INLINE int32_t from_float_bits(uint32_t bits) {
    int32_t p = encode_float(bits >> 31, bits << 1, ANY_RANGE);
    return (bits << 1) >> 24 == 255 ? NAR_PATTERN : p;
}
#endif

#if FLOAT_ADD
/*
 * x + y rounded once, exactly, by rounding s = fl(x + y), the float32 sum, alone.
 *
 * Posits x and y are float32 values, and so are all rounding boundaries: the midpoints between neighbouring
 * posits are the (N+1)-bit posits between them (at most 15 significand bits, scales within +-120), powers of
 * two where the midpoint is geometric included. Rounding to a posit is monotonic and constant between
 * boundaries; fl is monotonic and keeps every float32, so s lies between the same two boundaries as x + y and
 * rounds like it, unless s lands on a boundary that x + y is not on. That never happens: if s = x + y there is
 * nothing to show (a tie, x + y on a boundary, rounds to even), and if s != x + y, then x + y and s both lie
 * strictly between the two boundaries around the larger operand, as follows. (Sums are 0 or multiples of
 * minPos >= 2^-112 up to 2 maxPos <= 2^113: s is a normal float32 or 0, even with flush-to-zero.)
 *
 * Let 0 < |y| <= |x| (y = 0 and x = -y give exact sums) and, by symmetry, x > 0. A posit of scale e lies in
 * [2^e, 2^(e+1)); D = e_x - e_y >= 0; M = 2^ES. N-bit posits of scale e have f(e) = N - 1 - ES - (regime
 * length) fraction bits (negative: exponent bits cut off), with the regime k = floor(e / M):
 *     f(e) = N - 3 - ES - floor(e / M)     for e >= 0 (k + 2 regime bits)
 *     f(e) = N - 2 - ES - ceil(-e / M)     for e < 0  (1 - k regime bits),
 * at most N - 3 - ES <= 13, and f(e - 1) <= f(e) + 1. Adding the cases, for e_y <= e_x,
 *     f(e_x) + f(e_y) <= 2N - 5 - 2 ES - floor(D / M),                                                  (T)
 * so F(e_x) + F(e_y), with F = max(f, 0), is at most the larger of 13 and (T)'s bound. A posit of scale e is
 * a multiple of 2^(e - F(e)), which never decreases as e grows, so x, y and x + y are multiples of
 * u = 2^(e_y - F(e_y)), and x + y is a float32 if |x + y| < 2^24 u. Also |y| < 2^(e_y + 1).
 *
 * 1. If s != x + y, then |x + y| >= 2^24 u, and 2^(e_x + 2) > |x + y| gives D >= 23 - F(e_y) >= 10 + ES (at
 *    N = 16; smaller N only makes every bound below hold with more room). The sum does not carry to
 *    2^(e_x + 1): x <= 2^(e_x + 1) - 2^(e_x - F(e_x)) would need y >= 2^(e_x - F(e_x)), D <= F(e_x), so
 *    F(e_x) + F(e_y) >= 23, beyond (T) (es 0..3: 17, 20, 20, 20). Hence 2^(e_x + 1) > |x + y| >= 2^24 u:
 *    D >= 24 - F(e_y) >= 11 + ES, and F(e_x) + F(e_y) <= 16, 19, 20, 20 by (T). And if x + y < 2^e_x:
 *    D >= 25 - F(e_y) >= 12 + ES, and F(e_x) + F(e_y) <= 15, 19, 20, 20.
 * 2. The boundaries around x, b- < x < b+, are x's neighbours among the (N+1)-bit posits, which have one
 *    fraction bit more at each scale than the N-bit ones. (x = maxPos has no boundary above: everything above
 *    rounds to it.) If f(e_x) >= 0, b+ - x = 2^(e_x - f(e_x) - 1); otherwise the bit after x's pattern is an
 *    exponent bit and b+ >= 2x. If x is not a power of two, x - b- = 2^(e_x - f(e_x) - 1) with
 *    b- > 2^e_x. If x = 2^e_x, b- is an (N+1)-bit posit of scale e_x - 1, which has at most f(e_x) + 2
 *    fraction bits, so x - b- >= 2^(e_x - F(e_x) - 3) (or b- <= 2^(e_x - 1)).
 * 3. fl can round x + y to a boundary b only from within half a float32 spacing h of b: h <= 2^(e_x - 24) for
 *    b in (2^e_x, 2^(e_x + 1)), h <= 2^(e_x - 25) for b < 2^e_x, h <= b 2^-24 for b >= 2x.
 *    - y > 0, or x not a power of two: by 1, D >= 24 - F(e_y) >= F(e_x) + 3, so |y| + h < 2^(e_x - F(e_x) - 2)
 *      + 2^(e_x - 24) <= 2^(e_x - F(e_x) - 1), the distance to b+ or b- (and x + y < 1.5 x < b+ - h if b+ >= 2x).
 *    - y < 0 and x = 2^e_x: x + y < 2^e_x, so by 1, D >= 25 - F(e_y) >= F(e_x) + 5, and |y| + h <
 *      2^(e_x - F(e_x) - 4) + 2^(e_x - 25) <= 2^(e_x - F(e_x) - 3) <= x - b-.
 *    Either way x + y and s stay strictly between b- and b+. (At es 2 and 3, N = 16, scales with F(e_x) +
 *    F(e_y) = 20 and D = 25 - F(e_y) exist: the second case has no room to spare in these bounds.) The
 *    exhaustive tests also check every pair of every instance with 9 <= N <= 16 against an exact checker.
 */
INLINE int32_t float_add(int32_t a, int32_t b) {
    uint32_t s = bits_of_float(float_of_real(a) + float_of_real(b));
    int32_t p = encode_float(s >> 31, s << 1, SUM_RANGE);
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

#if SMALL_ARITHMETIC
/*
 * N <= 8 in 16-bit integer operations only, so that a vector holds twice as many lanes as with 32-bit ones
 * (and no float32 round trip widens them). A posit of up to 8 bits has a significand of at most 6 bits and a
 * scale within +-48, so the product of two significands is exact in 16 bits, and so is their sum wherever the
 * rounding can tell (see small_add). The types are C23 bit-precise integers because those are not promoted to
 * int: with uint16_t the optimizer widens much of the arithmetic back to 32 bits before it vectorizes.
 * x86 with AVX-512 reverses the bits of bytes (GFNI) and counts bits of bytes and 16-bit lanes (BITALG) at one
 * instruction each, but counts leading zeros of 32-bit lanes only; so the leading runs are counted as trailing
 * zeros of the reversed bits.
 */
typedef unsigned _BitInt(8) u8;
typedef unsigned _BitInt(16) u16;
typedef signed _BitInt(16) i16;
#define U16(c) ((u16)(c))

/* A nonzero, non-NaR posit: 2^scale (1 + fraction 2^-16), the fraction left-aligned in 16 bits. */
typedef struct {
    i16 scale;
    u16 fraction;
} small_unpacked;

/* decode() in 16 bits, of a posit's magnitude (not 0, not NaR). */
INLINE small_unpacked small_decode(u8 magnitude) {
    u8 top = magnitude << (9 - N); /* the bits after the sign, left-aligned in a byte */
    /* The regime's run of equal bits (at most N - 1) is one longer than the run of bits equal to their lower
       neighbour, counted as the trailing zeros of the bit-reversed transitions; the bit added caps the count
       at N - 2 (for 0 and NaR), so that the shift below stays under 16. */
    u8 reversed = __builtin_bitreverse8(top);
    u8 run_less_one = (u8)__builtin_ctzg((u8)((reversed ^ (reversed >> 1)) | (u8)(1u << (N - 2))));
    u8 zeros = (u8)((signed _BitInt(8))top >> 7) ^ (u8)0xff;
    signed _BitInt(8) regime = (signed _BitInt(8))(run_less_one ^ zeros); /* ones: run - 1; zeros: -run */
    /* The exponent bits, then the fraction, left-aligned: the magnitude without its regime and the bit that
       ends it. */
    u16 rest = ((u16)magnitude << (run_less_one + (u8)(17 - N))) << 2;
    small_unpacked u;
    u.scale = (i16)regime * (i16)(1 << ES) + (i16)((rest >> (15 - ES)) >> 1);
    u.fraction = rest << ES;
    return u;
}

/*
 * encode() in 16 bits: the magnitude of the posit nearest to 2^scale (1 + fraction 2^-16), for sums and
 * products of posits (|scale| <= 2 MAX_SCALE + 1). The magnitude's bit string is built as in encode_float: the
 * regime shifts "10" or "01" right by up to N - 2 bits within maxPos..minPos (beyond that the result
 * saturates at maxPos or minPos whatever the low bits are), and every bit below bit 15 - N folds into it:
 * that bit stays below the rounding bit (bit 16 - N or above) after any such shift and, since
 * 15 - N >= (N - 2) + 1 for N <= 8, is not shifted out.
 */
INLINE posit_signed small_encode(i16 scale, u16 fraction, enum float_range range) {
    i16 regime = scale >> ES; /* floor division */
    u16 below_one = (u16)(regime >> 15);
    u16 head = (below_one ^ U16(0x8000)) & U16(0xc000); /* "10" for regimes >= 0, "01" below */
    u16 word = head | (((u16)scale << (14 - ES)) & U16(0x3fff)) | (fraction >> (2 + ES));
    /* The word's bits below 15 - N come from the fraction's below 17 - N + ES, and it holds none below 2 + ES. */
    word |= (fraction & U16((1u << (17 - N + ES)) - 1)) != U16(0) ? U16(1u << (15 - N)) : U16(0);
    /* At most 12 (the regime of maxPos^2 plus one), so the mask changes nothing; a shift must stay below 16. */
    u16 shift = ((u16)regime ^ below_one) & U16(15);
    /* Beyond maxPos's regime the string can start with N ones: a zero bit on top keeps the rounding from
       carrying out of 16 bits. Sums stay below 2 maxPos < 2^((N-1) 2^ES) when ES >= 1 and need none. */
    const int beyond = !(range == SUM_RANGE && ES >= 1);
    u16 string = (u16)((i16)word >> shift) >> beyond;
    /* Round to nearest even after the N - 1 magnitude bits. */
    const int cut = 17 - N - beyond;
    u16 magnitude = (string + U16((1u << (cut - 1)) - 1) + ((string >> cut) & U16(1))) >> cut;
    magnitude = beyond && magnitude > U16(MAXPOS_PATTERN) ? U16(MAXPOS_PATTERN) : magnitude;
    /* Below minPos the string rounds to 0 or 1. Posits are multiples of minPos, so nonzero sums never are. */
    magnitude = range != SUM_RANGE && magnitude < U16(1) ? U16(1) : magnitude;
    return (posit_signed)magnitude;
}

/* |p| of a sign-extended pattern; NaR gives 2^(N-1). */
INLINE u8 small_magnitude(posit_signed p) {
    /* Negated as unsigned: the signed negation of NaR's -2^7 (N = 8) would overflow, which C leaves undefined. */
    u8 pattern = (u8)p;
    return (signed _BitInt(8))pattern < 0 ? (u8)0 - pattern : pattern;
}

INLINE posit_signed small_mul(posit_signed a, posit_signed b) {
    u8 abs_a = small_magnitude(a), abs_b = small_magnitude(b);
    small_unpacked x = small_decode(abs_a), y = small_decode(abs_b);
    /* Significands of F + 1 bits: a product of 2F + 1 or 2F + 2 bits, at most 12. */
    const int F = MAX_SIGNIFICAND_BITS - 1;
    u16 product = ((U16(1) << F) | ((x.fraction >> (15 - F)) >> 1)) * ((U16(1) << F) | ((y.fraction >> (15 - F)) >> 1));
    u16 carry = product >> (2 * F + 1);
    /* Left-aligned with the hidden bit shifted out. */
    u16 fraction = carry != U16(0) ? product << (15 - 2 * F) : (product << (15 - 2 * F)) << 1;
    posit_signed magnitude = small_encode(x.scale + y.scale + (i16)carry, fraction, PRODUCT_RANGE);
    posit_signed p = (posit_signed)(a ^ b) < 0 ? (posit_signed)-magnitude : magnitude;
    p = (abs_a < abs_b ? abs_a : abs_b) == 0 ? 0 : p;
    /* NaR's magnitude, 2^(N-1), is the only one with that bit set. */
    return ((abs_a | abs_b) >> (N - 1)) != 0 ? (posit_signed)NAR_PATTERN : p;
}

INLINE posit_signed small_add(posit_signed a, posit_signed b) {
    /* Posit magnitudes order like the magnitudes of their patterns: make x the larger one. */
    u8 abs_a = small_magnitude(a), abs_b = small_magnitude(b);
    int swap = abs_b > abs_a;
    u8 abs_big = swap ? abs_b : abs_a, abs_small = swap ? abs_a : abs_b;
    posit_signed big = swap ? b : a;
    small_unpacked x = small_decode(abs_big), y = small_decode(abs_small);
    /* The hidden bit at bit 14 (the fraction has at most 5 bits): the sum of two such significands fits, and
       there are 9 bits below for the aligned smaller one, which is exact where the scales differ by up to 9.
       (A zero operand is selected at the end.) */
    u16 larger = U16(0x4000) | (x.fraction >> 2);
    u16 smaller = U16(0x4000) | (y.fraction >> 2);
    /* Where the scales differ by more, the aligned smaller significand only has to be nonzero and below 2^6:
       the rounding bit of the sum lies at bit 7 or above (its leading bit at 13 or above, at most 6 significant
       bits kept), so every such amount, the exact one included, leaves the same bits from 6 up and something
       nonzero below, whether added or subtracted. Shifts of 10 to 14 keep 1 <= smaller >> shift < 2^6. */
    u16 shift = (u16)(x.scale - y.scale);
    u16 aligned = smaller >> (shift > U16(14) ? U16(14) : shift);
    int opposite = (posit_signed)(a ^ b) < 0;
    u16 sum = opposite ? larger - aligned : larger + aligned;
    /* The leading zeros plus one, as the bits up to the lowest 1 of the reversed sum. Nonzero sums are at
       least 2^8 (scales that differ by 1, significands 1 and 2 - 2^-5); the 2^8 added keeps the count below 16
       for 0. */
    u16 reversed = __builtin_bitreverse16(sum | U16(0x100));
    u16 normalize = (u16)__builtin_popcountg((u16)(reversed ^ (reversed - U16(1))));
    posit_signed magnitude = small_encode(x.scale + (i16)2 - (i16)normalize, sum << normalize, SUM_RANGE);
    posit_signed p = big < 0 ? (posit_signed)-magnitude : magnitude;
    p = sum == U16(0) ? 0 : p;
    p = abs_small == 0 ? big : p;
    /* NaR has the largest magnitude, 2^(N-1): one of the operands is NaR exactly when the larger one is. */
    return abs_big == (u8)(1u << (N - 1)) ? (posit_signed)NAR_PATTERN : p;
}
#endif

/* ---- exact integer arithmetic (N > 16, or where double is not available) ---- */

INLINE int32_t integer_mul(int32_t a, int32_t b SR_PARAM) {
    unpacked x = decode(a), y = decode(b);
    /* The product's halves, in [2^62, 2^64) together, so that the rest is 32-bit work (a vector holds as many
       lanes as it holds posits); the low half is a plain 32-bit multiply. */
    uint32_t high = (uint32_t)(((u64)x.significand * y.significand) >> 32), low = x.significand * y.significand;
    uint32_t drop = (uint32_t)clz32(high) + 1; /* 1 or 2: shifting high left by this drops the leading bit */
    uint32_t carry = 2 - drop;
    uint32_t fraction = (high << drop) | (low >> (32 - drop));
    uint32_t sticky = (low << drop) != 0;
    int32_t p = encode_fraction(x.negative ^ y.negative, x.scale + y.scale + (int32_t)carry, fraction, sticky SR_ARG);
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
INLINE int32_t integer_add(int32_t a, int32_t b SR_PARAM) {
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
    int32_t p = encode_fraction(x.negative, x.scale + 1 - lead, fraction, sticky SR_ARG);
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

INLINE int32_t integer_div(int32_t a, int32_t b SR_PARAM) {
    unpacked x = decode(a), y = decode(b);
    u64 inexact;
    u64 quotient = divide_shifted(x.significand, y.significand, &inexact); /* in (2^31, 2^33) */
    int lead = clz64(quotient);
    int32_t p = encode(x.negative ^ y.negative, x.scale - y.scale + 31 - lead, quotient << lead, inexact SR_ARG);
    p = a == 0 ? 0 : p;
    return (is_nar(a) | is_nar(b) | (b == 0)) ? NAR_PATTERN : p;
}

INLINE int32_t integer_sqrt(int32_t a SR_PARAM) {
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
    int32_t p = encode(0, x.scale >> 1, root << 32, remainder != 0 SR_ARG);
    p = a == 0 ? 0 : p;
    return a < 0 ? NAR_PATTERN : p; /* negative arguments and NaR */
}

/* ---- the exported functions ---- */

API posit_storage FN(from_f64)(double x SR_PARAM) { return (posit_storage)from_double(x SR_ARG); }
#if FLOAT_CONVERSIONS
#if BYODT_ROUNDING != BYODT_ROUNDING_NEAREST_EVEN
API posit_storage FN(from_f32)(float x SR_PARAM) { return (posit_storage)from_double((double)x SR_ARG); }
#else
API posit_storage FN(from_f32)(float x) { return (posit_storage)from_float_bits(bits_of_float(x)); }
#endif
API float FN(to_f32)(posit_storage storage) {
    int32_t p = pattern_of(storage);
    return is_nar(p) ? float_of_bits(0x7fc00000u) : float_of_real(p);
}

/*
 * to_f32(from_f32(x)) on float32 bits, without the posit's pattern: --accumulate dtype rounds twice per
 * multiply-add with it where add and mul are float32's rounded once (RoundedFloat32Accumulator). |x| is first held
 * within minPos..maxPos, where every nonzero value beyond them rounds (the standard's saturation). With the
 * exponent bias raised from 127 to 128, a multiple of 2^ES, the biased exponent's low ES bits are the posit's
 * exponent and the others its regime k plus 128 >> ES, as in encode_float; then the float32 bits from bit 23 up,
 * read as the posit's exponent above its fraction, are the bits that follow the regime in the posit's bit string.
 * A posit of regime k keeps f = N - 3 - ES - r fraction bits, r = k for k >= 0 and -k - 1 below (a regime of
 * r + 2 bits), negative where exponent bits are cut off too; so the bit string cut after N bits is these bits cut
 * at bit 23 - f, and rounding them there to nearest, ties to the even kept bit string, with a carry running from
 * the exponent into the regime (the next posit up is the next regime's first), is section 4.1's rounding. The
 * kept string's last bit is bit 23 - f, but where no exponent bit is kept (f = -ES: the regime fills the pattern,
 * k = N - 3 or k = 2 - N) it is the regime's terminating bit, 0 for k >= 0 and 1 below. A NaN or an infinity
 * gives a NaN (NaR), not always to_f32's (DatatypeOp.ROUNDED_F32 allows any).
 */
#if BYODT_ROUNDING == BYODT_ROUNDING_NEAREST_EVEN
API float FN(rounded_f32)(float x) {
    uint32_t u = bits_of_float(x);
    uint32_t magnitude = u & 0x7fffffffu;
    uint32_t held = magnitude > ((127u + MAX_SCALE) << 23) ? (127u + MAX_SCALE) << 23 : magnitude;
    held = held < ((127u - MAX_SCALE) << 23) ? (127u - MAX_SCALE) << 23 : held;
    uint32_t rebiased = held + (1u << 23);
    int32_t regime = (int32_t)(rebiased >> (23 + ES)) - (128 >> ES);
    int32_t run = regime ^ (regime >> 31);
    /* maxPos's regime, N - 2, has no terminating bit; held to N - 3, it keeps maxPos's string whole. */
    run = run > N - 3 ? N - 3 : run;
    uint32_t cut = (uint32_t)(run + 26 - N + ES); /* 23 - f, at most 23 + ES */
    uint32_t unit = 1u << cut;
    uint32_t last = cut == 23 + ES ? (uint32_t)regime >> 31 : (rebiased >> cut) & 1;
    uint32_t rounded = ((rebiased + (unit >> 1) - 1 + last) & (0u - unit)) - (1u << 23);
    /* Zero has no sign. */
    float r = float_of_bits(magnitude == 0 ? 0 : rounded | (u & 0x80000000u));
    return magnitude >= 0x7f800000u ? x - x : r;
}

/*
 * rounded_f32 for x zero or a normal float32 of a scale s at which the posit keeps at least one fraction bit
 * (f = N - 3 - ES - r >= 1, r the run of regime k = floor(s / 2^ES) as above: |s| < (N - 3 - ES) 2^ES, the range
 * PositScales in the compiler proves a dot product's values stay in), in about half rounded_f32's instructions:
 * no holding within minPos..maxPos, no regime filling the pattern, no zero or NaN to tell apart. There the posits of
 * scale s are the multiples of 2^(s - f) in [2^s, 2^(s+1)], and rounding at bit 23 - f, ties to the even kept bit
 * (the last fraction bit), is rounding x to the nearest multiple of 2^(s - f), ties to the even multiple: what
 * x + c - c does with c = 1.5 2^(23 + s - f) (|x| < 2^(s+1) < c / 2 as f <= 21, so x + c lies in c's binade, whose unit is
 * 2^(s - f), and c is an even multiple of it). Its float32 exponent field is the biased exponent of x plus the
 * library's cut, 23 - f. Zero gets a c of tiny scale and comes back as +0, as rounded_f32 gives it.
 */
API float FN(rounded_f32_with_fraction)(float x) {
    uint32_t exponent = (bits_of_float(x) >> 23) & 0xffu;
    int32_t regime = ((int32_t)exponent - 127) >> ES;
    int32_t run = regime ^ (regime >> 31);
    float c = float_of_bits(((uint32_t)((int32_t)exponent + run) << 23) + ((uint32_t)(26 - N + ES) << 23 | 0x400000u));
    return (x + c) - c;
}

#if defined(__AVX512F__)
typedef float floats16 __attribute__((vector_size(64)));

/*
 * rounded_f32 in each of 16 lanes: the vector variants of rounded_f32 (posit_rounded_x16.c, posit_fraction_x16.c)
 * take it for a vector holding values outside the scales they round faster. Through arrays, so that the loop
 * vectorizer widens rounded_f32 (selects only) to 16 lanes: built lane by lane in a vector value the loop stayed 16
 * scalar calls, 48 times the first way's cost.
 */
INLINE floats16 rounded_f32_each_lane(floats16 x) {
    float in[16], out[16];
    __builtin_memcpy(in, &x, sizeof in);
    for (int i = 0; i < 16; i++) out[i] = FN(rounded_f32)(in[i]);
    floats16 r;
    __builtin_memcpy(&r, out, sizeof r);
    return r;
}
#endif
#endif
#else
API posit_storage FN(from_f32)(float x SR_PARAM) { return (posit_storage)from_double((double)x SR_ARG); }
API float FN(to_f32)(posit_storage p) { return (float)to_double(pattern_of(p)); }
#endif
API double FN(to_f64)(posit_storage p) { return to_double(pattern_of(p)); }

API posit_storage FN(from_i32)(int32_t i SR_PARAM) {
    uint32_t negative = (uint32_t)i >> 31;
    u64 magnitude = negative ? (u64)(-(i64)i) : (u64)i;
    int lead = clz64(magnitude);
    int32_t p = encode(negative, 63 - lead, magnitude << (lead & 63), 0 SR_ARG);
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

API posit_storage FN(add)(posit_storage a, posit_storage b SR_PARAM) {
#if SMALL_ARITHMETIC
    return (posit_storage)small_add((posit_signed)a, (posit_signed)b);
#elif FLOAT_ADD
    return (posit_storage)float_add(pattern_of(a), pattern_of(b));
#else
    return (posit_storage)integer_add(pattern_of(a), pattern_of(b) SR_ARG);
#endif
}

API posit_storage FN(sub)(posit_storage a, posit_storage b SR_PARAM) {
    /* a - b = a + (-b) exactly, and -NaR = NaR. */
    return FN(add)(a, FN(neg)(b) SR_ARG);
}

API posit_storage FN(mul)(posit_storage a, posit_storage b SR_PARAM) {
#if SMALL_ARITHMETIC
    return (posit_storage)small_mul((posit_signed)a, (posit_signed)b);
#elif FLOAT_MUL
    return (posit_storage)float_mul(pattern_of(a), pattern_of(b));
#elif DOUBLE_ARITHMETIC
    return (posit_storage)from_double(to_double(pattern_of(a)) * to_double(pattern_of(b)));
#else
    return (posit_storage)integer_mul(pattern_of(a), pattern_of(b) SR_ARG);
#endif
}

API posit_storage FN(div)(posit_storage a, posit_storage b SR_PARAM) {
#if DOUBLE_ARITHMETIC
    /* x/0 is +-inf or NaN in double, both NaR. */
    return (posit_storage)from_double(to_double(pattern_of(a)) / to_double(pattern_of(b)));
#else
    return (posit_storage)integer_div(pattern_of(a), pattern_of(b) SR_ARG);
#endif
}

API posit_storage FN(sqrt)(posit_storage a SR_PARAM) {
#if DOUBLE_ARITHMETIC
    return (posit_storage)from_double(__builtin_elementwise_sqrt(to_double(pattern_of(a))));
#else
    return (posit_storage)integer_sqrt(pattern_of(a) SR_ARG);
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

/* The functions computed in double and rounded once (common/double_math.c): NaR is NaN in double and back, a
   nonzero result never rounds to 0; exp_d clamps to e^+-700, beyond every posit's maxPos / minPos, yet finite
   and nonzero in double. floor, ceil and round are exact: an integer next to a posit with a fraction is one. */
#define EXPORT API
typedef posit_storage T;
#define EXACT_DOUBLE(a) to_double(pattern_of(a))
#define ROUNDED(y) ((posit_storage)from_double(y SR_ARG))
EVERY_LIBRARY_THROUGH_DOUBLE(THROUGH_DOUBLE)
THROUGH_DOUBLE(tanh)
THROUGH_DOUBLE(sigmoid)
ROUNDINGS(THROUGH_DOUBLE)

API posit_storage FN(log)(posit_storage a SR_PARAM) {
    int32_t p = pattern_of(a);
    double result = log_d(p > 0 ? to_double(p) : 1.0);
    return (posit_storage)(p > 0 ? from_double(result SR_ARG) : NAR_PATTERN); /* log 0 = -inf, log of x < 0 or NaR */
}

/*
 * x^y as C99 pow on the real numbers: NaR in gives NaR; x^0 = 1 and 1^y = 1; 0^y = 0 for y > 0 and NaR
 * (infinity) for y < 0; a negative x needs an integer y (NaR otherwise). The standard's pow, which gives NaR
 * for every negative x, is stricter; ONNX's Pow follows C.
 * Results that can be exact stay exact, because an exact result can be a rounding midpoint where only the exact
 * value rounds right: an integer y up to 1024 multiplies by repeated squaring (exact whenever the result fits
 * in a double), and otherwise x = 2^e m gives x^y = 2^(y e + y log2 m), exact for powers of two.
 */
API posit_storage FN(pow)(posit_storage a, posit_storage b SR_PARAM) {
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
    int32_t result = from_double(((odd & (x < 0)) ? -magnitude : magnitude) SR_ARG);
    result = x < 0 && !is_integer ? NAR_PATTERN : result;
    result = pa == 0 ? (pb < 0 ? NAR_PATTERN : 0) : result;
    result = pb == 0 || x == 1.0 ? from_double(1.0 SR_ARG) : result;
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
API posit_storage FN(acc_round)(const uint64_t *acc SR_PARAM) {
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
    int32_t p = encode(negative, scale, significand, sticky SR_ARG);
    p = top < 0 ? 0 : p;
    return (posit_storage)(negative != next ? NAR_PATTERN : p);
}
