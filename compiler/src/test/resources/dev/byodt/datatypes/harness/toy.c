/* A toy "datatype" for the harness's own test: 16-bit wrap-around integers with a 64-bit accumulator. */
#include <stdint.h>
#define FN2(p, op) p##_##op
#define FN(p, op) FN2(p, op)
#define P BYODT_PREFIX

uint16_t FN(P, add)(uint16_t a, uint16_t b) { return (uint16_t)(a + b + TOY_OFFSET); }
int32_t FN(P, lt)(uint16_t a, uint16_t b) { return (int16_t)a < (int16_t)b; }
uint16_t FN(P, neg)(uint16_t a) { return (uint16_t)-a; }
uint16_t FN(P, from_f32)(float x) { return (uint16_t)(int16_t)x; }
float FN(P, to_f32)(uint16_t a) { return (int16_t)a; }
uint16_t FN(P, from_f64)(double x) { return (uint16_t)(int16_t)x; }
uint16_t FN(P, from_i32)(int32_t x) { return (uint16_t)x; }
int32_t FN(P, to_i32)(uint16_t a) { return (int16_t)a; }
uint16_t FN(P, lowest)(void) { return 0x8000; }
void FN(P, acc_mac)(uint64_t *acc, uint16_t a, uint16_t b) { acc[0] += (uint64_t)((int64_t)(int16_t)a * (int16_t)b); }
void FN(P, acc_add)(uint64_t *acc, uint16_t a) { acc[0] += (uint64_t)(int64_t)(int16_t)a; }
uint16_t FN(P, acc_round)(const uint64_t *acc) { return (uint16_t)acc[0]; }
