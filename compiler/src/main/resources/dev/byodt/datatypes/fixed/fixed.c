/*
 * Fixed point fxpN_P: an N-bit two's-complement integer s standing for s / 2^P (N in 8, 16, 32; 0 <= P < N).
 *
 * Overflow saturates to the largest or smallest value, or with -DFXP_WRAP=1 wraps around modulo 2^N (add, sub,
 * mul, div, div_i32, neg, abs, from_i32, acc_round). Conversions from float always saturate (an out-of-range float has no
 * meaningful wrapped value); NaN converts to 0.
 * Rounding: to nearest with ties to even, or with -DFXP_TRUNCATE=1 the fixed-point TVM fork's behaviour:
 * conversions from float keep the integer part of x * 2^P (toward zero, as C's cast does), a product's
 * rescaling shifts right arithmetically (toward minus infinity, as (a * b) >> P and the P extension's
 * SRAI16 / KHM16 do), division truncates toward zero (C's /). Or, with -DBYODT_ROUNDING=BYODT_ROUNDING_<mode>
 * (common/rounding.c), every result in one of the other modes: ties away from zero, toward zero, up (toward
 * plus infinity), down (toward minus infinity: the floor, an arithmetic shift), to odd, or stochastically
 * (the cut fraction's first BYODT_SR_BITS bits plus as many random bits, carried into the floor). A product is formed exactly in 2N bits, shifted
 * right by P with that rounding, then saturated; a quotient is exact then rounded; square root is exact then
 * rounded; exp, log, erf and pow are computed in double and rounded once like a conversion, tanh and sigmoid
 * too for N = 32 and in fixed point for N <= 16 (fixed_tanh.c), with the same results.
 * Division by zero gives the largest value for a > 0, the smallest for a < 0, and 0 for 0.
 *
 * Parameters: -DFXP_N -DFXP_P [-DFXP_WRAP=1] [-DFXP_TRUNCATE=1 | -DBYODT_ROUNDING=...] -DBYODT_PREFIX=<prefix>.
 */
#include <stdint.h>

#if !defined(FXP_N) || !defined(FXP_P) || !defined(BYODT_PREFIX)
#error "fixed.c needs -DFXP_N, -DFXP_P and -DBYODT_PREFIX"
#endif
#if (FXP_N != 8 && FXP_N != 16 && FXP_N != 32) || FXP_P < 0 || FXP_P >= FXP_N
#error "fixed.c supports FXP_N in 8, 16, 32 and 0 <= FXP_P < FXP_N"
#endif
#ifndef FXP_WRAP
#define FXP_WRAP 0
#endif
#ifndef FXP_TRUNCATE
#define FXP_TRUNCATE 0
#endif
/* A mode of common/rounding.c other than nearest even: every rounding below goes through floor_increment. */
#define FXP_DIRECTED (BYODT_ROUNDING != BYODT_ROUNDING_NEAREST_EVEN)
#if FXP_DIRECTED && FXP_TRUNCATE
#error "fixed.c takes FXP_TRUNCATE or BYODT_ROUNDING, not both"
#endif

#define N FXP_N
#define P FXP_P
#if N == 8
typedef uint8_t T;
typedef int8_t S;
#elif N == 16
typedef uint16_t T;
typedef int16_t S;
#else
typedef uint32_t T;
typedef int32_t S;
#endif
/* Holds any product of two values exactly: 32 bits for N <= 16, so that vectorized loops
   work in 32-bit lanes, twice as many to a register as 64-bit ones. */
#if N <= 16
typedef int32_t W;
#else
typedef int64_t W;
#endif
#define MAX_VALUE ((int64_t)((1ULL << (N - 1)) - 1))
#define MIN_VALUE (-MAX_VALUE - 1)

#define GLUE2(p, op) p##_##op
#define GLUE(p, op) GLUE2(p, op)
#define FN(op) GLUE(BYODT_PREFIX, op)
#define EXPORT __attribute__((always_inline))

static int64_t value_of(T a) { return (S)a; }

/* An exact result brought into range: saturated, or wrapped modulo 2^N. */
static T fit(int64_t v) {
#if FXP_WRAP
    return (T)(uint64_t)v;
#else
    v = v > MAX_VALUE ? MAX_VALUE : v;
    v = v < MIN_VALUE ? MIN_VALUE : v;
    return (T)(uint64_t)v;
#endif
}

/* v / 2^k (1 <= k <= 62) in a BYODT_ROUNDING mode: the floor (an arithmetic shift) and floor_increment of the
   k cut bits. */
static int64_t shift_rounded(int64_t v, int k SR_PARAM) {
    uint64_t rest = (uint64_t)v & (((uint64_t)1 << k) - 1);
    uint64_t half = (uint64_t)1 << (k - 1);
    int64_t kept = v >> k;
    return kept + floor_increment((uint32_t)kept & 1, rest >= half, (rest & (half - 1)) != 0, kept < 0,
                                  first_cut_bits(rest, k), SR_RANDOM);
}

/* A product p / 2^P with the rounding of products: nearest-even, or toward minus infinity (an arithmetic shift),
   or the BYODT_ROUNDING mode's.
   |p| <= 2^(2N-2), so adding less than 2^P cannot overflow W. Nearest-even adds half - 1, plus 1 when the kept
   part is odd: that carries into the kept part exactly when the rest is above half, or is half and the kept
   part odd. */
static W rescale(W p SR_PARAM) {
#if P == 0
    return p;
#elif FXP_TRUNCATE
    return p >> P;
#elif FXP_DIRECTED
    return (W)shift_rounded(p, P SR_ARG);
#else
    return (p + (((W)1 << (P - 1)) - 1) + ((p >> P) & 1)) >> P;
#endif
}

/* x * 2^P rounded to an integer (nearest-even, toward zero, or the BYODT_ROUNDING mode's), saturated; NaN gives 0. */
static T from_double(double x SR_PARAM) {
    double y = x * pow2(P);                                 /* exact unless it overflows, which saturates anyway */
    y = y > (double)MAX_VALUE ? (double)MAX_VALUE : y;
    y = y < (double)MIN_VALUE ? (double)MIN_VALUE : y;
    y = y != y ? 0 : y;
#if FXP_DIRECTED
    /* The floor and the fraction below it, both exact; the fraction's first 62 bits and whether any are left. */
    double truncated = (double)(int64_t)y;
    double floor = truncated > y ? truncated - 1 : truncated;
    double scaled = (y - floor) * pow2(62);
    uint64_t cut = (uint64_t)(int64_t)scaled;
    uint32_t beyond = (double)(int64_t)scaled != scaled;
    uint64_t half = (uint64_t)1 << 61;
    y = floor + floor_increment((uint32_t)(int64_t)floor & 1, cut >= half, ((cut & (half - 1)) != 0) | beyond, floor < 0,
                                first_cut_bits(cut, 62), SR_RANDOM);
#elif !FXP_TRUNCATE
    /* |y| <= 2^31: adding and removing 2^52 rounds to an integer in the default nearest-even mode. */
    double magic = 4503599627370496.0;
    y = y < 0 ? -((-y + magic) - magic) : (y + magic) - magic;
#endif
    return (T)(uint64_t)(int64_t)y;                          /* the conversion truncates toward zero */
}

static double to_double(T a) { return (double)value_of(a) * pow2(-P); }

/* x^y for fixed-point operands (common/double_math.c's pow_d, below): negative x with a non-integer y gives NaN,
   so 0; 0^negative is infinity, so saturates. */

/* ---- the library ---- */

/* Sums and differences in N bits, wrapped, or saturated by the overflow flag: the pattern LLVM turns into
   sadd.sat/ssub.sat, which vector units have for 8 and 16 bits and expand in 32-bit lanes for 32, where the
   exact sum would need 64-bit lanes. On overflow the exact result has a's sign. Nothing is rounded: a stochastic
   library's counter (SR_PARAM, which every arithmetic function takes) goes unused. */
#if FXP_WRAP
EXPORT T FN(add)(T a, T b SR_PARAM) { return (T)(a + b); }
EXPORT T FN(sub)(T a, T b SR_PARAM) { return (T)(a - b); }
#else
EXPORT T FN(add)(T a, T b SR_PARAM) {
    S sum;
    int overflow = __builtin_add_overflow((S)a, (S)b, &sum);
    return overflow ? (T)(uint64_t)((S)a < 0 ? MIN_VALUE : MAX_VALUE) : (T)sum;
}
EXPORT T FN(sub)(T a, T b SR_PARAM) {
    S difference;
    int overflow = __builtin_sub_overflow((S)a, (S)b, &difference);
    return overflow ? (T)(uint64_t)((S)a < 0 ? MIN_VALUE : MAX_VALUE) : (T)difference;
}
#endif
EXPORT T FN(mul)(T a, T b SR_PARAM) { return fit(rescale((W)(S)a * (S)b SR_ARG)); }

/* s / 2^k (k <= 30, |s| <= 2^62) rounded as quotient_of rounds, in shifts rather than a division and its
   remainder: pooling's counts (4 for 2x2 windows) are powers of two, and a call inlined with its constant count
   is then a few instructions. Nearest-even as a product's rescaling; toward zero by adding 2^k - 1 to a
   negative s first. */
static int64_t shifted_quotient(int64_t s, int k SR_PARAM) {
#if FXP_TRUNCATE
    return (s + ((s >> 63) & (((int64_t)1 << k) - 1))) >> k;
#elif FXP_DIRECTED
    return k == 0 ? s : shift_rounded(s, k SR_ARG);
#else
    return k == 0 ? s : (s + (((int64_t)1 << (k - 1)) - 1) + ((s >> k) & 1)) >> k;
#endif
}

/* numerator / divisor, exact, then rounded to an integer (nearest-even, toward zero, or the BYODT_ROUNDING
   mode's) and brought into range; division by zero gives the largest value for a > 0, the smallest for a < 0,
   and 0 for 0. */
static T quotient_of(T a, int64_t numerator, int64_t divisor SR_PARAM) {
    int64_t safe = divisor == 0 ? 1 : divisor;
    int64_t quotient = numerator / safe;
#if FXP_DIRECTED
    /* The floor of n / d for d > 0 and the remainder r in [0, d): the cut fraction is r / d (|d| <= 2^31). */
    int64_t n = safe < 0 ? -numerator : numerator, d = safe < 0 ? -safe : safe;
    int64_t floor = n / d, r = n % d;
    floor -= r < 0;
    r += r < 0 ? d : 0;
    quotient = floor + floor_increment((uint32_t)floor & 1, 2 * r >= d, r != 0 && 2 * r != d, floor < 0,
                                       (uint32_t)(((uint64_t)r << BYODT_SR_BITS) / (uint64_t)d), SR_RANDOM);
#elif !FXP_TRUNCATE
    int64_t remainder = numerator % safe;
    /* Nearest, ties to even: compare 2|r| with |b|, then step away from zero. */
    uint64_t twice = 2 * (uint64_t)(remainder < 0 ? -remainder : remainder);
    uint64_t magnitude = (uint64_t)(safe < 0 ? -safe : safe);
    int away = twice > magnitude || (twice == magnitude && (quotient & 1));
    quotient += away ? ((numerator < 0) != (safe < 0) ? -1 : 1) : 0;
#endif
    int64_t by_zero = value_of(a) > 0 ? MAX_VALUE : value_of(a) < 0 ? MIN_VALUE : 0;
    return divisor == 0 ? (T)(uint64_t)by_zero : fit(quotient);
}

EXPORT T FN(div)(T a, T b SR_PARAM) {
    int64_t numerator = value_of(a) * ((int64_t)1 << P), divisor = value_of(b);   /* |numerator| <= 2^62, |divisor| <= 2^31 */
    /* A divisor whose stored integer is a power of two (a mean's count where the format holds it: 4 in fxp8_4)
       divides in shifts, the result quotient_of gives. */
    if (divisor > 0 && (divisor & (divisor - 1)) == 0) return fit(shifted_quotient(numerator, __builtin_ctz((uint32_t)divisor) SR_ARG));
    return quotient_of(a, numerator, divisor SR_ARG);
}

/* a / n for an integer n, the count a mean divides by: (s / 2^P) / n = (s / n) / 2^P, so the quotient of the
   integers s / n rounded as div rounds is the correctly rounded mean, also where the format cannot hold n
   (fxp16_13 holds no integer from 4 on, and div(a, from_i32(n)) would divide by 3.9999). Where it holds n the
   result is div's: (s * 2^P) / (n * 2^P) is the same rational. */
EXPORT T FN(div_i32)(T a, int32_t n SR_PARAM) {
    if (n > 0 && (n & (n - 1)) == 0) return fit(shifted_quotient(value_of(a), __builtin_ctz((uint32_t)n) SR_ARG));
    return quotient_of(a, value_of(a), n SR_ARG);
}

EXPORT T FN(min)(T a, T b) { return value_of(b) < value_of(a) ? b : a; }
EXPORT T FN(max)(T a, T b) { return value_of(b) > value_of(a) ? b : a; }

EXPORT T FN(neg)(T a) { return fit(-value_of(a)); }
EXPORT T FN(abs)(T a) { int64_t v = value_of(a); return fit(v < 0 ? -v : v); }

/*
 * The first BYODT_SR_BITS bits of sqrt(scaled) - root, for root = floor(sqrt(scaled)) and remainder = scaled -
 * root^2: the digit-by-digit root carried on below the point, two zero bits of the radicand a step.
 */
static uint32_t root_cut_bits(uint64_t root, uint64_t remainder) {
    uint64_t extended = root;
    for (int i = 0; i < BYODT_SR_BITS; i++) {
        uint64_t trial = (extended << 2) | 1;
        remainder <<= 2;
        int fits = remainder >= trial;
        remainder -= fits ? trial : 0;
        extended = (extended << 1) | (uint64_t)fits;
    }
    return (uint32_t)extended & SR_MASK;
}

/* sqrt(s / 2^P) * 2^P = sqrt(s * 2^P): an integer square root, rounded; negative inputs give 0. */
EXPORT T FN(sqrt)(T a SR_PARAM) {
    int64_t v = value_of(a);
    uint64_t scaled = (uint64_t)(v < 0 ? 0 : v) << P;
    uint64_t root = isqrt(scaled);
#if FXP_DIRECTED
    /* The cut fraction sqrt(scaled) - root is never a half ((root + 1/2)^2 is no integer). */
    uint64_t remainder = scaled - root * root;
    root += floor_increment((uint32_t)root & 1, remainder > root, remainder != 0, 0, root_cut_bits(root, remainder), SR_RANDOM);
#elif !FXP_TRUNCATE
    root += scaled - root * root > root;                   /* past (root + 1/2)^2; never a tie */
#endif
    return fit((int64_t)root);
}

/* The functions computed in double and rounded once (common/double_math.c); tanh and sigmoid: fixed_tanh.c,
   compiled after this file. */
#define EXACT_DOUBLE(a) to_double(a)
#define ROUNDED(y) from_double(y SR_ARG)
EVERY_LIBRARY_THROUGH_DOUBLE(THROUGH_DOUBLE)
THROUGH_DOUBLE(log)
THROUGH_DOUBLE_BINARY(pow)

/* floor, ceil and round: the integer part s >> P (toward minus infinity), adjusted, then brought into range as
   any exact result is (saturated, or wrapped with FXP_WRAP): with P = N - 1, ceil(0.5) = 1 is out of range. */
static int64_t integer_floor(T a) { return value_of(a) >> P; }
EXPORT T FN(floor)(T a SR_PARAM) { return fit(integer_floor(a) * ((int64_t)1 << P)); }
EXPORT T FN(ceil)(T a SR_PARAM) {
    int64_t whole = integer_floor(a);
    return fit((whole + (value_of(a) != whole * ((int64_t)1 << P))) * ((int64_t)1 << P));
}
/* To nearest, ties to even: up when the fraction is above a half, or is a half and the integer part odd. */
EXPORT T FN(round)(T a SR_PARAM) {
    int64_t whole = integer_floor(a);
    int64_t fraction = value_of(a) - whole * ((int64_t)1 << P);
    int64_t twice = 2 * fraction;
    int64_t one = (int64_t)1 << P;
    return fit((whole + (twice > one || (twice == one && (whole & 1)))) * one);
}

EXPORT int32_t FN(lt)(T a, T b) { return value_of(a) < value_of(b); }
EXPORT int32_t FN(le)(T a, T b) { return value_of(a) <= value_of(b); }
EXPORT int32_t FN(gt)(T a, T b) { return value_of(a) > value_of(b); }
EXPORT int32_t FN(ge)(T a, T b) { return value_of(a) >= value_of(b); }
EXPORT int32_t FN(eq)(T a, T b) { return value_of(a) == value_of(b); }
EXPORT int32_t FN(ne)(T a, T b) { return value_of(a) != value_of(b); }

EXPORT T FN(from_f32)(float x SR_PARAM) { return from_double(x SR_ARG); }
EXPORT T FN(from_f64)(double x SR_PARAM) { return from_double(x SR_ARG); }
/* s / 2^P is exact in double; one rounding to float. */
EXPORT float FN(to_f32)(T a) { return (float)to_double(a); }
EXPORT T FN(from_i32)(int32_t x SR_PARAM) { return fit((int64_t)x * ((int64_t)1 << P)); }
/* The integer part, toward zero (as C's float-to-int cast). */
EXPORT int32_t FN(to_i32)(T a) { return (int32_t)(value_of(a) / ((int64_t)1 << P)); }
EXPORT T FN(lowest)(void) { return (T)(uint64_t)MIN_VALUE; }

/* ---- exact accumulation ----
 * A two's-complement integer of ACC_WORDS 64-bit words (little-endian) in units of 2^-2P, the unit of a
 * product: 64 bits for N <= 16 (products below 2^30: 2^33 of them fit), 128 for N = 32.
 */
#if N <= 16
#define ACC_WORDS 1
#else
#define ACC_WORDS 2
#endif
#define FXP_ACC_BITS (64 * ACC_WORDS)

static void acc_add_wide(uint64_t *acc, int64_t v) {
    uint64_t carry = 0, extension = v < 0 ? ~(uint64_t)0 : 0;
    for (int i = 0; i < ACC_WORDS; i++) {
        uint64_t word = i == 0 ? (uint64_t)v : extension;
        uint64_t sum = acc[i] + word;
        uint64_t carry_out = sum < word;
        sum += carry;
        carry_out |= sum < carry;
        acc[i] = sum;
        carry = carry_out;
    }
}

EXPORT void FN(acc_mac)(uint64_t *acc, T a, T b) { acc_add_wide(acc, value_of(a) * value_of(b)); }
EXPORT void FN(acc_add)(uint64_t *acc, T a) { acc_add_wide(acc, value_of(a) * ((int64_t)1 << P)); }

#if ACC_WORDS == 1
/* v / 2^shift with the rounding of products, for any accumulator value (where adding to v could overflow). */
static int64_t shift_round(int64_t v, int shift SR_PARAM) {
    if (shift == 0) return v;
#if FXP_TRUNCATE
    return v >> shift;                                      /* arithmetic: floor */
#elif FXP_DIRECTED
    return shift_rounded(v, shift SR_ARG);
#else
    int64_t kept = v >> shift;
    uint64_t rest = (uint64_t)v & ((1ULL << shift) - 1);
    uint64_t half = 1ULL << (shift - 1);
    return kept + ((rest > half) | ((rest == half) & (kept & 1)));
#endif
}
#endif

/* The sum / 2^P, rounded like a product, then saturated (or wrapped). */
EXPORT T FN(acc_round)(const uint64_t *acc SR_PARAM) {
#if ACC_WORDS == 1
    return fit(shift_round((int64_t)acc[0], P SR_ARG));
#else
    /* 128 bits: the shifted value's low 64 bits, and whether it fits in 64 bits at all. */
    uint64_t low = acc[0], high = acc[1];
    uint64_t shifted_low = P == 0 ? low : (low >> P) | (high << (64 - P));
    int64_t shifted_high = P == 0 ? (int64_t)high : (int64_t)high >> P;
    int64_t kept = (int64_t)shifted_low;
#if !FXP_TRUNCATE
    uint64_t rest = P == 0 ? 0 : low & ((1ULL << P) - 1);
    uint64_t half = P == 0 ? 1 : 1ULL << (P - 1);
    uint64_t up = P != 0 && floor_increment((uint32_t)shifted_low & 1, rest >= half, (rest & (half - 1)) != 0,
                                            (int64_t)high < 0, first_cut_bits(rest, P), SR_RANDOM);
    kept += (int64_t)up;
    shifted_high += (up && shifted_low == ~(uint64_t)0);
#endif
    /* In range of int64 iff the high word is the sign extension of the low one. */
    int fits = shifted_high == (kept < 0 ? -1 : 0);
#if FXP_WRAP
    (void)fits;
    return (T)(uint64_t)kept;
#else
    int64_t saturated = shifted_high < 0 ? MIN_VALUE : MAX_VALUE;
    return fits ? fit(kept) : (T)(uint64_t)saturated;
#endif
#endif
}
