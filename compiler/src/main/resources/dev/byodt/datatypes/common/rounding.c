/*
 * The rounding modes of --rounding, shared by the built-in libraries that offer them (minifloat.c, posit.c,
 * fixed.c): -DBYODT_ROUNDING=BYODT_ROUNDING_<mode>, to nearest with ties to even when it is not given. Each mode
 * decides from the same facts whether a value cut after its last kept bit goes up by one unit of that bit: the
 * kept part's last bit, the first cut bit (guard) and whether anything after it is nonzero (sticky), the sign,
 * and for stochastic rounding the first BYODT_SR_BITS cut bits and as many random bits. To odd sets the last
 * bit of an inexact result: adding one to an even kept part does that.
 *
 * Stochastic rounding (-DBYODT_ROUNDING=BYODT_ROUNDING_STOCHASTIC -DBYODT_SR_BITS=N, 1 <= N <= 16, 16 by
 * default): the N random bits r are added to the first N cut bits c (the cut part truncated to N bits) and the
 * carry out of N bits is the increment, so the value goes up with probability c / 2^N: the cut fraction
 * truncated to N bits, the standard definition of stochastic rounding with N random bits. The bits come from
 * a counter, not from a generator with state: every function that rounds takes one more argument, a uint64_t
 * counter (SR_PARAM), which byodt's generated code makes from --seed, the operation's place in the model and
 * the element's loop indices, and the random bits are the top N bits of SplitMix64's output function of it.
 * The same counter gives the same bits on every thread and every target.
 */
#define BYODT_ROUNDING_NEAREST_EVEN 0
#define BYODT_ROUNDING_NEAREST_AWAY 1
#define BYODT_ROUNDING_TOWARD_ZERO 2
#define BYODT_ROUNDING_UP 3
#define BYODT_ROUNDING_DOWN 4
#define BYODT_ROUNDING_ODD 5
#define BYODT_ROUNDING_STOCHASTIC 6
#ifndef BYODT_ROUNDING
#define BYODT_ROUNDING BYODT_ROUNDING_NEAREST_EVEN
#endif
#if BYODT_ROUNDING < BYODT_ROUNDING_NEAREST_EVEN || BYODT_ROUNDING > BYODT_ROUNDING_STOCHASTIC
#error "BYODT_ROUNDING must be one of the BYODT_ROUNDING_* modes"
#endif
#ifndef BYODT_SR_BITS
#define BYODT_SR_BITS 16
#endif
#if BYODT_SR_BITS < 1 || BYODT_SR_BITS > 16
#error "BYODT_SR_BITS must be in 1..16"
#endif
#define SR_MASK ((1u << BYODT_SR_BITS) - 1)

/*
 * The rounding functions' extra parameter and its passing on: ", uint64_t sr_counter" and ", sr_counter" in
 * stochastic libraries, nothing in the others, whose functions keep their signatures. SR_RANDOM is the
 * element's random bits (0 where no mode reads them).
 */
#if BYODT_ROUNDING == BYODT_ROUNDING_STOCHASTIC
#define SR_PARAM , uint64_t sr_counter
#define SR_ARG , sr_counter
#define SR_RANDOM stochastic_bits(sr_counter)
#else
#define SR_PARAM
#define SR_ARG
#define SR_RANDOM 0u
#endif

/* The top BYODT_SR_BITS bits of SplitMix64's output for the counter (Steele, Lea and Flood, OOPSLA 2014). */
static inline __attribute__((always_inline)) uint32_t stochastic_bits(uint64_t counter) {
    uint64_t z = counter + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (uint32_t)(z >> (64 - BYODT_SR_BITS));
}

/*
 * The first BYODT_SR_BITS of the `cut` low bits of `bits`, as an integer: the cut part truncated to that many
 * bits, or padded with zeros where fewer were cut (1 <= cut).
 */
static inline __attribute__((always_inline)) uint32_t first_cut_bits(uint64_t bits, int cut) {
    int shift = cut - BYODT_SR_BITS;
    uint64_t top = shift >= 64 ? 0 : shift >= 0 ? bits >> shift : bits << -shift;
    return (uint32_t)top & SR_MASK;
}

/*
 * 1 when the magnitude rounds up (away from zero) by one unit of its last kept bit, else 0; kept_odd, guard,
 * sticky and negative are 0 or 1; cut_bits (the first BYODT_SR_BITS cut bits) and random matter only to
 * stochastic rounding, where the other arguments compute to nothing.
 */
static inline __attribute__((always_inline))
uint32_t rounding_increment(uint32_t kept_odd, uint32_t guard, uint32_t sticky, uint32_t negative,
                            uint32_t cut_bits, uint32_t random) {
    uint32_t inexact = guard | sticky;
    switch (BYODT_ROUNDING) {
    case BYODT_ROUNDING_NEAREST_AWAY: return guard;
    case BYODT_ROUNDING_TOWARD_ZERO: return 0;
    case BYODT_ROUNDING_UP: return inexact & (negative ^ 1);
    case BYODT_ROUNDING_DOWN: return inexact & negative;
    case BYODT_ROUNDING_ODD: return inexact & (kept_odd ^ 1);
    case BYODT_ROUNDING_STOCHASTIC: return (cut_bits + random) >> BYODT_SR_BITS;
    default: return guard & (sticky | kept_odd);
    }
}

/*
 * The same for a two's-complement value cut below its last kept bit, whose kept part is the floor: 1 when the
 * result is the floor plus one unit. Toward zero goes up for negative values, away from zero (on a tie) for
 * positive ones; stochastic rounding goes up with the probability of the cut fraction, whatever the sign.
 */
static inline __attribute__((always_inline))
uint32_t floor_increment(uint32_t kept_odd, uint32_t guard, uint32_t sticky, uint32_t negative,
                         uint32_t cut_bits, uint32_t random) {
    uint32_t inexact = guard | sticky;
    switch (BYODT_ROUNDING) {
    case BYODT_ROUNDING_NEAREST_AWAY: return guard & (sticky | (negative ^ 1));
    case BYODT_ROUNDING_TOWARD_ZERO: return inexact & negative;
    case BYODT_ROUNDING_UP: return inexact;
    case BYODT_ROUNDING_DOWN: return 0;
    case BYODT_ROUNDING_ODD: return inexact & (kept_odd ^ 1);
    case BYODT_ROUNDING_STOCHASTIC: return (cut_bits + random) >> BYODT_SR_BITS;
    default: return guard & (sticky | kept_odd);
    }
}
