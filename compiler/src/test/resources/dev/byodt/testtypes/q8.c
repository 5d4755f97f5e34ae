/*
 * A test datatype: signed Q8.8 fixed point (16 bits, 8 fractional), saturating, rounding to nearest
 * (ties away from zero: simple, and the tests compute the same rule). Its exact accumulator is 128 bits,
 * two little-endian 64-bit words holding the sum of products at scale 2^16.
 */
#include <stdint.h>

#define FN __attribute__((always_inline))

typedef __int128 i128;

static int16_t saturate(int64_t x) { return (int16_t) (x > 32767 ? 32767 : x < -32768 ? -32768 : x); }
static int64_t round_shift(int64_t x, int shift) {
    int64_t half = (int64_t) 1 << (shift - 1);
    return x >= 0 ? (x + half) >> shift : -((-x + half) >> shift);
}

FN uint16_t q8_add(uint16_t a, uint16_t b) { return (uint16_t) saturate((int64_t) (int16_t) a + (int16_t) b); }
FN uint16_t q8_sub(uint16_t a, uint16_t b) { return (uint16_t) saturate((int64_t) (int16_t) a - (int16_t) b); }
FN uint16_t q8_mul(uint16_t a, uint16_t b) { return (uint16_t) saturate(round_shift((int64_t) (int16_t) a * (int16_t) b, 8)); }
FN uint16_t q8_div(uint16_t a, uint16_t b) {
    int64_t d = (int16_t) b;
    if (d == 0) return (int16_t) a >= 0 ? 32767 : 0x8000;
    return (uint16_t) saturate(((int64_t) (int16_t) a * 256) / d);
}
FN uint16_t q8_neg(uint16_t a) { return (uint16_t) saturate(-(int64_t) (int16_t) a); }
FN uint16_t q8_abs(uint16_t a) { int16_t x = (int16_t) a; return (uint16_t) saturate(x < 0 ? -(int64_t) x : x); }
FN uint16_t q8_from_f64(double x) {
    if (x != x) return 0;
    if (x >= 128.0) return 32767;
    if (x <= -128.0) return 0x8000;
    double scaled = x * 256.0;
    int64_t r = (int64_t) (scaled >= 0 ? scaled + 0.5 : scaled - 0.5);
    return (uint16_t) saturate(r);
}
FN uint16_t q8_from_f32(float x) { return q8_from_f64(x); }
FN float q8_to_f32(uint16_t a) { return (float) (int16_t) a / 256.0f; }
FN uint16_t q8_from_i32(int32_t x) { return (uint16_t) saturate((int64_t) x * 256); }
FN int32_t q8_to_i32(uint16_t a) { return (int16_t) a / 256; }
FN uint16_t q8_lowest(void) { return 0x8000; }

static i128 load(const uint64_t *acc) { return (i128) ((unsigned __int128) acc[1] << 64 | acc[0]); }
static void save(uint64_t *acc, i128 v) { acc[0] = (uint64_t) v; acc[1] = (uint64_t) ((unsigned __int128) v >> 64); }

FN void q8_acc_mac(uint64_t *acc, uint16_t a, uint16_t b) { save(acc, load(acc) + (i128) ((int64_t) (int16_t) a * (int16_t) b)); }
FN void q8_acc_add(uint64_t *acc, uint16_t a) { save(acc, load(acc) + (i128) ((int64_t) (int16_t) a * 256)); }
FN uint16_t q8_acc_round(const uint64_t *acc) {
    i128 v = load(acc);
    if (v > (i128) 32767 * 256) return 32767;
    if (v < (i128) -32768 * 256) return 0x8000;
    return (uint16_t) saturate(round_shift((int64_t) v, 8));
}
