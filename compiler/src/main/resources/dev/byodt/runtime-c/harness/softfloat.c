/*
 * IEEE 754 binary32 and binary64 arithmetic in integer instructions, for RISC-V cores without the F or D
 * extension (riscv32: rv32imac; riscv32f has F but no D). The compiler turns float and double operations
 * there into calls of these routines (the names and return conventions of libgcc / compiler-rt), and
 * byodt's executables carry no C library, and bytedeco's LLVM ships no compiler-rt builtins for RISC-V,
 * so they are written here.
 *
 * Round to nearest, ties to even, with subnormals, infinities and signed zeros, as hardware does; NaN
 * results are the canonical quiet NaN, and conversions to integers saturate (NaN gives the largest
 * integer), as RISC-V's fcvt instructions do, so soft and hard float give the same bits.
 *
 * One generic implementation serves both formats: a value is unpacked into sign, exponent and an
 * integer significand in a uint64_t, operated on with guard bits, then rounded once by round_pack.
 * Only integer operations appear below: a float or double operation here would call itself.
 */
#include <stdint.h>

#include "byodt_harness.h"

struct format {
    int fraction_bits;
    int exponent_bits;
};

static const struct format SINGLE = {23, 8};
static const struct format DOUBLE = {52, 11};

enum kind { ZERO, FINITE, INFINITE, NOT_A_NUMBER };

struct unpacked {
    enum kind kind;
    int sign;
    int exponent;          /* the value is significand * 2^exponent */
    uint64_t significand;
};

static int bias(struct format f) { return (1 << (f.exponent_bits - 1)) - 1; }

static int max_biased_exponent(struct format f) { return (1 << f.exponent_bits) - 1; }

static uint64_t sign_bit(struct format f) { return (uint64_t) 1 << (f.fraction_bits + f.exponent_bits); }

static uint64_t canonical_nan(struct format f) {
    return ((uint64_t) max_biased_exponent(f) << f.fraction_bits) | ((uint64_t) 1 << (f.fraction_bits - 1));
}

static uint64_t infinity(struct format f, int sign) {
    return (sign ? sign_bit(f) : 0) | ((uint64_t) max_biased_exponent(f) << f.fraction_bits);
}

static struct unpacked unpack(struct format f, uint64_t bits) {
    struct unpacked u;
    uint64_t fraction_mask = ((uint64_t) 1 << f.fraction_bits) - 1;
    int biased = (int) ((bits >> f.fraction_bits) & (uint64_t) max_biased_exponent(f));
    uint64_t fraction = bits & fraction_mask;
    u.sign = (bits & sign_bit(f)) != 0;
    u.exponent = 0;
    u.significand = 0;
    if (biased == max_biased_exponent(f)) {
        u.kind = fraction ? NOT_A_NUMBER : INFINITE;
    } else if (biased == 0) {
        u.kind = fraction ? FINITE : ZERO;
        u.significand = fraction;
        u.exponent = 1 - bias(f) - f.fraction_bits;
    } else {
        u.kind = FINITE;
        u.significand = fraction | ((uint64_t) 1 << f.fraction_bits);
        u.exponent = biased - bias(f) - f.fraction_bits;
    }
    return u;
}

/* x >> n, with every bit shifted out ORed into the lowest bit (the sticky bit). */
static uint64_t shift_right_sticky(uint64_t x, int n) {
    if (n <= 0) return x;
    if (n >= 64) return x != 0;
    return (x >> n) | ((x << (64 - n)) != 0);
}

static int leading_bit(uint64_t x) {
    int position = 63;
    while (!(x >> position)) position--;
    return position;
}

/*
 * The format's value nearest to (-1)^sign * significand * 2^exponent, ties to even: the single rounding
 * every operation ends with. A zero significand gives a signed zero.
 */
static uint64_t round_pack(struct format f, int sign, int exponent, uint64_t significand) {
    uint64_t sign_bits = sign ? sign_bit(f) : 0;
    if (significand == 0) return sign_bits;
    /* Normalize to the leading bit at fraction_bits + 3: three bits below the last kept one (guard, round, sticky). */
    int top = f.fraction_bits + 3;
    int lead = leading_bit(significand);
    if (lead > top) {
        significand = shift_right_sticky(significand, lead - top);
    } else {
        significand <<= top - lead;
    }
    int biased = exponent + (lead - top) + top + bias(f);
    if (biased <= 0) {
        /* Subnormal: the significand loses 1 - biased more bits; the packed bits are then the significand itself. */
        significand = shift_right_sticky(significand, 1 - biased);
        uint64_t rest = significand & 7;
        significand >>= 3;
        if (rest > 4 || (rest == 4 && (significand & 1))) significand++;
        return sign_bits | significand;
    }
    uint64_t rest = significand & 7;
    significand >>= 3;
    if (rest > 4 || (rest == 4 && (significand & 1))) significand++;
    if (significand >> (f.fraction_bits + 1)) {
        significand >>= 1;
        biased++;
    }
    if (biased >= max_biased_exponent(f)) return infinity(f, sign);
    return sign_bits | ((uint64_t) biased << f.fraction_bits) | (significand & (((uint64_t) 1 << f.fraction_bits) - 1));
}

/* The significand shifted so that its leading bit is bit 52, the exponent adjusted to keep the value. */
static struct unpacked normalized(struct unpacked u) {
    int lead = leading_bit(u.significand);
    u.significand <<= 52 - lead;
    u.exponent -= 52 - lead;
    return u;
}

/*
 * a + b rounded once, for finite nonzero terms whose significands leave a bit for the carry below bit 63 and bits
 * enough below the format's last one: the smaller term aligned to the larger, its bits shifted out kept as sticky.
 */
static uint64_t rounded_sum(struct format f, struct unpacked a, struct unpacked b) {
    if (a.exponent < b.exponent) {
        struct unpacked t = a;
        a = b;
        b = t;
    }
    b.significand = shift_right_sticky(b.significand, a.exponent - b.exponent);
    if (a.sign == b.sign) return round_pack(f, a.sign, a.exponent, a.significand + b.significand);
    if (a.significand == b.significand) return 0;
    if (a.significand > b.significand) return round_pack(f, a.sign, a.exponent, a.significand - b.significand);
    return round_pack(f, b.sign, a.exponent, b.significand - a.significand);
}

static uint64_t add(struct format f, uint64_t a_bits, uint64_t b_bits, int negate_b) {
    struct unpacked a = unpack(f, a_bits), b = unpack(f, b_bits);
    b.sign ^= negate_b;
    if (a.kind == NOT_A_NUMBER || b.kind == NOT_A_NUMBER) return canonical_nan(f);
    if (a.kind == INFINITE) return b.kind == INFINITE && a.sign != b.sign ? canonical_nan(f) : infinity(f, a.sign);
    if (b.kind == INFINITE) return infinity(f, b.sign);
    if (a.kind == ZERO && b.kind == ZERO) return a.sign && b.sign ? sign_bit(f) : 0;
    if (a.kind == ZERO) return round_pack(f, b.sign, b.exponent, b.significand);
    if (b.kind == ZERO) return round_pack(f, a.sign, a.exponent, a.significand);
    /* Nine spare bits above a 53-bit significand leave room for the carry; the bits below become sticky. */
    a.significand <<= 9;
    a.exponent -= 9;
    b.significand <<= 9;
    b.exponent -= 9;
    return rounded_sum(f, a, b);
}

static uint64_t multiply(struct format f, uint64_t a_bits, uint64_t b_bits) {
    struct unpacked a = unpack(f, a_bits), b = unpack(f, b_bits);
    int sign = a.sign ^ b.sign;
    if (a.kind == NOT_A_NUMBER || b.kind == NOT_A_NUMBER) return canonical_nan(f);
    if (a.kind == INFINITE || b.kind == INFINITE) {
        return a.kind == ZERO || b.kind == ZERO ? canonical_nan(f) : infinity(f, sign);
    }
    if (a.kind == ZERO || b.kind == ZERO) return sign ? sign_bit(f) : 0;
    a = normalized(a);
    b = normalized(b);
    /* The 106-bit product from 32-bit halves, then its top bits with the rest as sticky. */
    uint64_t a_low = a.significand & 0xFFFFFFFFu, a_high = a.significand >> 32;
    uint64_t b_low = b.significand & 0xFFFFFFFFu, b_high = b.significand >> 32;
    uint64_t low = a_low * b_low;
    uint64_t middle1 = a_high * b_low, middle2 = a_low * b_high;
    uint64_t high = a_high * b_high;
    uint64_t middle = (low >> 32) + (middle1 & 0xFFFFFFFFu) + (middle2 & 0xFFFFFFFFu);
    uint64_t product_low = (middle << 32) | (low & 0xFFFFFFFFu);
    uint64_t product_high = high + (middle1 >> 32) + (middle2 >> 32) + (middle >> 32);
    uint64_t top = (product_high << 20) | (product_low >> 44) | ((product_low << 20) != 0);
    return round_pack(f, sign, a.exponent + b.exponent + 44, top);
}

static uint64_t divide(struct format f, uint64_t a_bits, uint64_t b_bits) {
    struct unpacked a = unpack(f, a_bits), b = unpack(f, b_bits);
    int sign = a.sign ^ b.sign;
    if (a.kind == NOT_A_NUMBER || b.kind == NOT_A_NUMBER) return canonical_nan(f);
    if (a.kind == INFINITE) return b.kind == INFINITE ? canonical_nan(f) : infinity(f, sign);
    if (b.kind == INFINITE) return sign ? sign_bit(f) : 0;
    if (b.kind == ZERO) return a.kind == ZERO ? canonical_nan(f) : infinity(f, sign);
    if (a.kind == ZERO) return sign ? sign_bit(f) : 0;
    a = normalized(a);
    b = normalized(b);
    /* Restoring division: 62 quotient bits, the first of weight 2^0, then a sticky bit for the remainder. */
    uint64_t remainder = a.significand, quotient = 0;
    for (int i = 0; i < 62; i++) {
        quotient <<= 1;
        if (remainder >= b.significand) {
            remainder -= b.significand;
            quotient |= 1;
        }
        remainder <<= 1;
    }
    return round_pack(f, sign, a.exponent - b.exponent - 61, quotient | (remainder != 0));
}

/*
 * a * b + c rounded once (a fused multiply-add) in binary32: the product of two 24-bit significands is exact in 48
 * bits, and both terms are summed with their leading bit at bit 61: 38 bits below binary32's last one and one for
 * the carry.
 */
static uint64_t fused_multiply_add_single(uint64_t a_bits, uint64_t b_bits, uint64_t c_bits) {
    struct format f = SINGLE;
    struct unpacked a = unpack(f, a_bits), b = unpack(f, b_bits), c = unpack(f, c_bits);
    int sign = a.sign ^ b.sign;
    if (a.kind == NOT_A_NUMBER || b.kind == NOT_A_NUMBER || c.kind == NOT_A_NUMBER) return canonical_nan(f);
    if (a.kind == INFINITE || b.kind == INFINITE) {
        if (a.kind == ZERO || b.kind == ZERO) return canonical_nan(f);
        return c.kind == INFINITE && c.sign != sign ? canonical_nan(f) : infinity(f, sign);
    }
    if (c.kind == INFINITE) return infinity(f, c.sign);
    if (a.kind == ZERO || b.kind == ZERO) {
        /* An exact zero product: (+0) + (-0) is +0, as in add. */
        if (c.kind == ZERO) return sign && c.sign ? sign_bit(f) : 0;
        return c_bits;
    }
    struct unpacked p = {FINITE, sign, a.exponent + b.exponent, a.significand * b.significand};
    if (c.kind == ZERO) return round_pack(f, p.sign, p.exponent, p.significand);
    p.exponent -= 61 - leading_bit(p.significand);
    p.significand <<= 61 - leading_bit(p.significand);
    c.exponent -= 61 - leading_bit(c.significand);
    c.significand <<= 61 - leading_bit(c.significand);
    return rounded_sum(f, p, c);
}

/* -1, 0 or 1 as a is below, equal to or above b; unordered (a NaN) gives {@code unordered}. */
static int compare(struct format f, uint64_t a_bits, uint64_t b_bits, int unordered) {
    struct unpacked a = unpack(f, a_bits), b = unpack(f, b_bits);
    if (a.kind == NOT_A_NUMBER || b.kind == NOT_A_NUMBER) return unordered;
    if (a.kind == ZERO && b.kind == ZERO) return 0;
    uint64_t magnitude_mask = sign_bit(f) - 1;
    uint64_t a_magnitude = a_bits & magnitude_mask, b_magnitude = b_bits & magnitude_mask;
    int a_negative = a.sign && a.kind != ZERO, b_negative = b.sign && b.kind != ZERO;
    if (a_negative != b_negative) return a_negative ? -1 : 1;
    if (a_magnitude == b_magnitude) return 0;
    int above = a_magnitude > b_magnitude;
    return a_negative ? (above ? -1 : 1) : (above ? 1 : -1);
}

/* Truncation toward zero to a signed or unsigned integer of {@code bits} bits, saturating, NaN to the maximum. */
static uint64_t to_integer(struct format f, uint64_t bits, int width, int is_signed) {
    struct unpacked u = unpack(f, bits);
    uint64_t max = is_signed ? ((uint64_t) 1 << (width - 1)) - 1 : (width == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << width) - 1);
    uint64_t min_magnitude = is_signed ? (uint64_t) 1 << (width - 1) : 0;
    if (u.kind == NOT_A_NUMBER) return max;
    if (u.kind == ZERO) return 0;
    uint64_t magnitude;
    int too_large = u.kind == INFINITE;
    if (!too_large) {
        if (u.exponent >= 0) {
            too_large = u.exponent + leading_bit(u.significand) >= 64;
            magnitude = too_large ? 0 : u.significand << u.exponent;
        } else {
            magnitude = u.exponent <= -64 ? 0 : u.significand >> -u.exponent;
        }
    }
    if (u.sign) {
        if (too_large || magnitude > min_magnitude) return is_signed ? (uint64_t) 0 - min_magnitude : 0;
        return (uint64_t) 0 - magnitude;
    }
    if (too_large || magnitude > max) return max;
    return magnitude;
}

static uint64_t from_integer(struct format f, uint64_t value, int is_negative) {
    return round_pack(f, is_negative, 0, is_negative ? (uint64_t) 0 - value : value);
}

static uint64_t convert(struct format from, struct format to, uint64_t bits) {
    struct unpacked u = unpack(from, bits);
    switch (u.kind) {
        case NOT_A_NUMBER: return canonical_nan(to);
        case INFINITE: return infinity(to, u.sign);
        case ZERO: return u.sign ? sign_bit(to) : 0;
        default: return round_pack(to, u.sign, u.exponent, u.significand);
    }
}

union single_bits { float value; uint32_t bits; };
union double_bits { double value; uint64_t bits; };

/*
 * The bits of a float or double, hidden from the optimizer by an empty asm: LLVM recognizes bit tests on
 * a float's pattern (a NaN test, a comparison) and turns them back into float operations, which here would
 * become calls of the very routine being defined.
 */
static uint64_t of_single(float x) {
    union single_bits u;
    u.value = x;
    uint32_t bits = u.bits;
    __asm__("" : "+r"(bits));
    return bits;
}
static float single_of(uint64_t bits) { union single_bits u; u.bits = (uint32_t) bits; return u.value; }
static uint64_t of_double(double x) {
    union double_bits u;
    u.value = x;
    uint32_t low = (uint32_t) u.bits, high = (uint32_t) (u.bits >> 32);
    __asm__("" : "+r"(low), "+r"(high));
    return ((uint64_t) high << 32) | low;
}
static double double_of(uint64_t bits) { union double_bits u; u.bits = bits; return u.value; }

float __addsf3(float a, float b) { return single_of(add(SINGLE, of_single(a), of_single(b), 0)); }
float __subsf3(float a, float b) { return single_of(add(SINGLE, of_single(a), of_single(b), 1)); }
float __mulsf3(float a, float b) { return single_of(multiply(SINGLE, of_single(a), of_single(b))); }
float __divsf3(float a, float b) { return single_of(divide(SINGLE, of_single(a), of_single(b))); }
/* llvm.fma.f32 where the target has no fused multiply-add instruction (byodt's --multiply-add fused). */
float fmaf(float a, float b, float c) { return single_of(fused_multiply_add_single(of_single(a), of_single(b), of_single(c))); }
double __adddf3(double a, double b) { return double_of(add(DOUBLE, of_double(a), of_double(b), 0)); }
double __subdf3(double a, double b) { return double_of(add(DOUBLE, of_double(a), of_double(b), 1)); }
double __muldf3(double a, double b) { return double_of(multiply(DOUBLE, of_double(a), of_double(b))); }
double __divdf3(double a, double b) { return double_of(divide(DOUBLE, of_double(a), of_double(b))); }

/* libgcc's comparison contract: the sign of the result answers the question; a NaN makes it false. */
int __eqsf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), 1); }
int __nesf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), 1); }
int __ltsf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), 1); }
int __lesf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), 1); }
int __gtsf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), -1); }
int __gesf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), -1); }
int __unordsf2(float a, float b) { return compare(SINGLE, of_single(a), of_single(b), 2) == 2; }
int __eqdf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), 1); }
int __nedf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), 1); }
int __ltdf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), 1); }
int __ledf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), 1); }
int __gtdf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), -1); }
int __gedf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), -1); }
int __unorddf2(double a, double b) { return compare(DOUBLE, of_double(a), of_double(b), 2) == 2; }

double __extendsfdf2(float a) { return double_of(convert(SINGLE, DOUBLE, of_single(a))); }
float __truncdfsf2(double a) { return single_of(convert(DOUBLE, SINGLE, of_double(a))); }

int32_t __fixsfsi(float a) { return (int32_t) to_integer(SINGLE, of_single(a), 32, 1); }
int64_t __fixsfdi(float a) { return (int64_t) to_integer(SINGLE, of_single(a), 64, 1); }
uint32_t __fixunssfsi(float a) { return (uint32_t) to_integer(SINGLE, of_single(a), 32, 0); }
uint64_t __fixunssfdi(float a) { return to_integer(SINGLE, of_single(a), 64, 0); }
int32_t __fixdfsi(double a) { return (int32_t) to_integer(DOUBLE, of_double(a), 32, 1); }
int64_t __fixdfdi(double a) { return (int64_t) to_integer(DOUBLE, of_double(a), 64, 1); }
uint32_t __fixunsdfsi(double a) { return (uint32_t) to_integer(DOUBLE, of_double(a), 32, 0); }
uint64_t __fixunsdfdi(double a) { return to_integer(DOUBLE, of_double(a), 64, 0); }

float __floatsisf(int32_t a) { return single_of(from_integer(SINGLE, (uint64_t) (int64_t) a, a < 0)); }
float __floatdisf(int64_t a) { return single_of(from_integer(SINGLE, (uint64_t) a, a < 0)); }
float __floatunsisf(uint32_t a) { return single_of(from_integer(SINGLE, a, 0)); }
float __floatundisf(uint64_t a) { return single_of(from_integer(SINGLE, a, 0)); }
double __floatsidf(int32_t a) { return double_of(from_integer(DOUBLE, (uint64_t) (int64_t) a, a < 0)); }
double __floatdidf(int64_t a) { return double_of(from_integer(DOUBLE, (uint64_t) a, a < 0)); }
double __floatunsidf(uint32_t a) { return double_of(from_integer(DOUBLE, a, 0)); }
double __floatundidf(uint64_t a) { return double_of(from_integer(DOUBLE, a, 0)); }
