/*
 * The memory functions compilers call even in freestanding code (for struct copies, zeroing, and
 * loops they recognise as copies): there is no C library to provide them. This file is compiled
 * with -fno-builtin, so the loops below are not themselves turned into calls to these functions.
 */
#include "byodt_harness.h"

void *memcpy(void *destination, const void *source, size_t length) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    for (size_t i = 0; i < length; i++) d[i] = s[i];
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
    for (size_t i = 0; i < length; i++) d[i] = (unsigned char) value;
    return destination;
}

int memcmp(const void *a, const void *b, size_t length) {
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < length; i++) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}
