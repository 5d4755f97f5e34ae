/*
 * The memory functions compilers call even in freestanding code (for struct copies, zeroing, and
 * loops they recognise as copies): there is no C library to provide them. This file is compiled
 * with -fno-builtin, so the loops below are not themselves turned into calls to these functions.
 *
 * memcpy and memset move a register-sized word at a time where the addresses allow it, else 4 or 2 bytes,
 * else one: LLVM calls them to zero the accumulators of a kernel and copy the rows of a padded plane, and
 * a byte at a time, a riscv64p LeNet-5 spent more instructions zeroing accumulators (43,008 bytes an image)
 * than it spends in its tanh.
 */
#include "byodt_harness.h"

typedef uintptr_t __attribute__((may_alias)) word_t;
typedef uint32_t __attribute__((may_alias)) four_t;
typedef uint16_t __attribute__((may_alias)) two_t;

/* The widest unit, up to a word, to which every address of `addresses` (OR-ed) is aligned. */
static size_t unit_of(uintptr_t addresses) {
    return (addresses & (sizeof(word_t) - 1)) == 0 ? sizeof(word_t) : (addresses & 3) == 0 ? 4 : (addresses & 1) == 0 ? 2 : 1;
}

void *memcpy(void *destination, const void *source, size_t length) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    size_t unit = unit_of((uintptr_t)d | (uintptr_t)s), i = 0;
    if (unit == sizeof(word_t)) for (; i + sizeof(word_t) <= length; i += sizeof(word_t)) *(word_t *)(d + i) = *(const word_t *)(s + i);
    if (unit >= 4) for (; i + 4 <= length; i += 4) *(four_t *)(d + i) = *(const four_t *)(s + i);
    if (unit >= 2) for (; i + 2 <= length; i += 2) *(two_t *)(d + i) = *(const two_t *)(s + i);
    for (; i < length; i++) d[i] = s[i];
    return destination;
}

void *memmove(void *destination, const void *source, size_t length) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    if (d < s) {
        for (size_t i = 0; i < length; i++) d[i] = s[i];
    } else {
        for (size_t i = length; i > 0; i--) d[i - 1] = s[i - 1];
    }
    return destination;
}

void *memset(void *destination, int value, size_t length) {
    unsigned char *d = destination;
    size_t unit = unit_of((uintptr_t)d), i = 0;
    word_t pattern = (word_t)-1 / 255 * (unsigned char) value;   /* the byte in every byte of a word */
    if (unit == sizeof(word_t)) for (; i + sizeof(word_t) <= length; i += sizeof(word_t)) *(word_t *)(d + i) = pattern;
    if (unit >= 4) for (; i + 4 <= length; i += 4) *(four_t *)(d + i) = (uint32_t) pattern;
    if (unit >= 2) for (; i + 2 <= length; i += 2) *(two_t *)(d + i) = (uint16_t) pattern;
    for (; i < length; i++) d[i] = (unsigned char) value;
    return destination;
}
int memcmp(const void *a, const void *b, size_t length) {
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < length; i++) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}
