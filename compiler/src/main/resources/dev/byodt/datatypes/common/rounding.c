/*
 * The rounding modes of --rounding, shared by the built-in libraries that offer them (minifloat.c, posit.c):
 * -DBYODT_ROUNDING=BYODT_ROUNDING_<mode>, to nearest with ties to even when it is not given. Each mode decides
 * from the same three facts whether a magnitude cut after its last kept bit goes up by one unit of that bit:
 * the kept part's last bit, the first cut bit (guard) and whether anything after it is nonzero (sticky), and
 * the value's sign. To odd sets the last bit of an inexact result: adding one to an even kept part does that.
 */
#define BYODT_ROUNDING_NEAREST_EVEN 0
#define BYODT_ROUNDING_NEAREST_AWAY 1
#define BYODT_ROUNDING_TOWARD_ZERO 2
#define BYODT_ROUNDING_UP 3
#define BYODT_ROUNDING_DOWN 4
#define BYODT_ROUNDING_ODD 5
#ifndef BYODT_ROUNDING
#define BYODT_ROUNDING BYODT_ROUNDING_NEAREST_EVEN
#endif
#if BYODT_ROUNDING < BYODT_ROUNDING_NEAREST_EVEN || BYODT_ROUNDING > BYODT_ROUNDING_ODD
#error "BYODT_ROUNDING must be one of the BYODT_ROUNDING_* modes"
#endif

/* 1 when the magnitude rounds up (away from zero) by one unit of its last kept bit, else 0; each argument 0 or 1. */
static inline __attribute__((always_inline))
uint32_t rounding_increment(uint32_t kept_odd, uint32_t guard, uint32_t sticky, uint32_t negative) {
    uint32_t inexact = guard | sticky;
    switch (BYODT_ROUNDING) {
    case BYODT_ROUNDING_NEAREST_AWAY: return guard;
    case BYODT_ROUNDING_TOWARD_ZERO: return 0;
    case BYODT_ROUNDING_UP: return inexact & (negative ^ 1);
    case BYODT_ROUNDING_DOWN: return inexact & negative;
    case BYODT_ROUNDING_ODD: return inexact & (kept_odd ^ 1);
    default: return guard & (sticky | kept_odd);
    }
}
