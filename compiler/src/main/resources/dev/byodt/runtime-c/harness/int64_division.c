/*
 * 64-bit integer division for 32-bit RISC-V, whose M extension divides only 32-bit integers: the
 * compiler calls these libgcc routines for int64_t / and %, and byodt's executables carry no C library.
 * Shift-and-subtract, one quotient bit per step; '/' on 64-bit operands would call these very functions.
 */
#include <stdint.h>

#include "byodt_harness.h"

/* n / d and n % d for d != 0 (division by zero gives all-ones and n, as RISC-V's divu/remu do). */
static uint64_t divide(uint64_t n, uint64_t d, uint64_t *remainder) {
    if (d == 0) {
        *remainder = n;
        return ~(uint64_t) 0;
    }
    uint64_t quotient = 0, rest = 0;
    for (int bit = 63; bit >= 0; bit--) {
        rest = (rest << 1) | ((n >> bit) & 1);
        if (rest >= d) {
            rest -= d;
            quotient |= (uint64_t) 1 << bit;
        }
    }
    *remainder = rest;
    return quotient;
}

static uint64_t magnitude(int64_t x) { return x < 0 ? (uint64_t) 0 - (uint64_t) x : (uint64_t) x; }

uint64_t __udivdi3(uint64_t n, uint64_t d) { uint64_t r; return divide(n, d, &r); }

uint64_t __umoddi3(uint64_t n, uint64_t d) { uint64_t r; divide(n, d, &r); return r; }

int64_t __divdi3(int64_t n, int64_t d) {
    uint64_t r, q = divide(magnitude(n), magnitude(d), &r);
    return (n < 0) != (d < 0) ? (int64_t) ((uint64_t) 0 - q) : (int64_t) q;
}

int64_t __moddi3(int64_t n, int64_t d) {
    uint64_t r;
    divide(magnitude(n), magnitude(d), &r);
    return n < 0 ? (int64_t) ((uint64_t) 0 - r) : (int64_t) r;
}
