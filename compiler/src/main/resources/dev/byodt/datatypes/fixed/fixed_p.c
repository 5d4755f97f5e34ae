/*
 * Fixed-point operations on RISC-V's packed-SIMD P extension, version 0.9.x (the 0.9.11 spec,
 * riscv/riscv-p-spec P-ext-proposal.adoc): what the fixed-point datatype's P lowerings call on a P target.
 *
 * LLVM 20 has no P, so each instruction is an `.insn r OPCODE, FUNCT3, FUNCT7, rd, rs1, rs2` in inline
 * assembly, OPCODE being -DBYODT_P_OPCODE (0x77 from P 0.9.2 on, 0x7F on Andes 0.5.x parts). Compiled with
 * -DBYODT_P_MODEL instead, each instruction is an exact C model written from the spec's pseudocode
 * (16- or 8-bit lanes, lane 0 in the low bits, saturation and rounding as specified), so that the same kernels
 * run on a host without P and can be checked bit for bit against the kernels without P.
 *
 * The OV flag (vxsat) the saturating instructions set is not modelled: byodt never reads it.
 * XLEN is the register width: 32 on riscv32, 64 on riscv64 and on the host model. The model also serves
 * the executables byodt runs under qemu-user, which has no P: there it emulates each trapped P instruction
 * (runtime-c/harness/p_emulation.c), with RISC-V's own XLEN.
 */
#include <stdint.h>

#if !defined(BYODT_P_MODEL) && !defined(BYODT_P_OPCODE)
#error "compile with -DBYODT_P_OPCODE=0x77 (or 0x7f) for RISC-V, or -DBYODT_P_MODEL for the host model"
#endif

#if !defined(__riscv) || __riscv_xlen == 64
typedef uint64_t reg_t;
#define XLEN 64
#else
typedef uint32_t reg_t;
#define XLEN 32
#endif

#define EXPORT __attribute__((always_inline))
#define STRINGIFY2(...) #__VA_ARGS__
#define STRINGIFY(...) STRINGIFY2(__VA_ARGS__)

/*
 * Funct3 and funct7 of each instruction (P 0.9.11, checked against Spike's opcode table; the 8-bit ones
 * against the spec's encoding tables as its MATCH_ words repeat them: KADD8 0x18000077, KSUB8 0x1a000077,
 * ADD8 0x48000077, SUB8 0x4a000077, SMIN8 0x88000077, SMAX8 0x8a000077, funct7 being the top 7 bits).
 */
#define F_ADD16 0, 0x20
#define F_SUB16 0, 0x21
#define F_KADD16 0, 0x08
#define F_KSUB16 0, 0x09
#define F_KHM16 0, 0x43
#define F_SMAX16 0, 0x41
#define F_SMIN16 0, 0x40
#define F_SMALDA 1, 0x46
#define F_SMAQA 0, 0x64
#define F_SCLIP16 0, 0x42
#define F_SCLIP8 0, 0x46 /* 1000110, the immediate k (imm3u) in the rs2 field with bits 24..23 zero */
#define F_ADD8 0, 0x24
#define F_SUB8 0, 0x25
#define F_KADD8 0, 0x0C
#define F_KSUB8 0, 0x0D
#define F_SMAX8 0, 0x45
#define F_SMIN8 0, 0x44
/* The products rounded one at a time (see below), from the spec's format tables: SMBB16 0000100 and SMTT16
   0010100 under funct3 001, PKTT16 (RV64 encoding) 0010111 under 001; the RV64-only 32-bit lanes under 010:
   ADD32 0100000, KADD32 0001000, SLL32 0101010, KSLL32 0110010. */
#define F_SMBB16 1, 0x04
#define F_SMTT16 1, 0x14
#define F_PKTT16 1, 0x17
#define F_ADD32 2, 0x20
#define F_KADD32 2, 0x08
#define F_SLL32 2, 0x2A
#define F_KSLL32 2, 0x32
/* fxp8_P's products in 16-bit lanes, funct3 000: SRA16 0101000, SLL16 0101010, KSLL16 0110010. */
#define F_SRA16 0, 0x28
#define F_SLL16 0, 0x2A
#define F_KSLL16 0, 0x32

#ifdef BYODT_P_MODEL

/* Lane i of r, `bits` (16: H[i], 8: B[i]) wide, as a signed integer. */
static int32_t lane(reg_t r, int bits, int i) {
    int32_t raw = (int32_t)((r >> (bits * i)) & (((reg_t)1 << bits) - 1));
    return raw >= 1 << (bits - 1) ? raw - (1 << bits) : raw;
}

static reg_t with_lane(reg_t r, int bits, int i, int32_t v) {
    reg_t mask = (((reg_t)1 << bits) - 1) << (bits * i);
    return (r & ~mask) | (((reg_t)(uint32_t)v << (bits * i)) & mask);
}

static int32_t saturate16(int32_t v) { return v > 32767 ? 32767 : v < -32768 ? -32768 : v; }
static int32_t saturate8(int32_t v) { return v > 127 ? 127 : v < -128 ? -128 : v; }

/* rd.H[x] = f(rs1.H[x], rs2.H[x]) (bits 16) or rd.B[x] = f(rs1.B[x], rs2.B[x]) (bits 8) for every lane x. */
#define LANEWISE(name, bits, expression)                             \
    static reg_t name(reg_t a, reg_t b) {                            \
        reg_t d = 0;                                                 \
        for (int x = 0; x < XLEN / (bits); x++) {                    \
            int32_t s = lane(a, (bits), x), t = lane(b, (bits), x);  \
            d = with_lane(d, (bits), x, (expression));               \
        }                                                            \
        return d;                                                    \
    }

LANEWISE(p_add16, 16, s + t)                          /* ADD16: wraps (with_lane keeps the low 16 bits) */
LANEWISE(p_sub16, 16, s - t)                          /* SUB16 */
LANEWISE(p_kadd16, 16, saturate16(s + t))             /* KADD16: saturates, sets OV */
LANEWISE(p_ksub16, 16, saturate16(s - t))             /* KSUB16 */
LANEWISE(p_smax16, 16, s > t ? s : t)                 /* SMAX16 */
LANEWISE(p_smin16, 16, s < t ? s : t)                 /* SMIN16 */
/* KHM16: 0x8000 * 0x8000 gives 0x7FFF (and OV); otherwise (s * t) >> 15, an arithmetic shift. */
LANEWISE(p_khm16, 16, (s == -32768 && t == -32768) ? 32767 : (s * t) >> 15)
LANEWISE(p_add8, 8, s + t)                            /* ADD8: wraps (with_lane keeps the low 8 bits) */
LANEWISE(p_sub8, 8, s - t)                            /* SUB8 */
LANEWISE(p_kadd8, 8, saturate8(s + t))                /* KADD8: saturates to [-128, 127], sets OV */
LANEWISE(p_ksub8, 8, saturate8(s - t))                /* KSUB8 */
LANEWISE(p_smax8, 8, s > t ? s : t)                   /* SMAX8 */
LANEWISE(p_smin8, 8, s < t ? s : t)                   /* SMIN8 */

/* SCLIP16, SCLIP8 with immediate k: every lane, 16 or 8 bits wide, clamped to [-2^k, 2^k - 1] (sets OV when it clamps). */
static reg_t sclip(reg_t a, int bits, int k) {
    reg_t d = 0;
    for (int x = 0; x < XLEN / bits; x++) {
        int32_t s = lane(a, bits, x), low = -(1 << k), high = (1 << k) - 1;
        d = with_lane(d, bits, x, s < low ? low : s > high ? high : s);
    }
    return d;
}
static reg_t p_sclip16(reg_t a, int k) { return sclip(a, 16, k); }
static reg_t p_sclip8(reg_t a, int k) { return sclip(a, 8, k); }
#define SCLIP16(k, a) p_sclip16((a), (k))
#define SCLIP8(k, a) p_sclip8((a), (k))

/* rd.H[x] = f(rs1.H[x]) shifted by sa = rs2[3:0] for every lane x. */
#define SHIFTWISE16(name, expression)                                                  \
    static reg_t name(reg_t a, reg_t b) {                                              \
        reg_t d = 0;                                                                   \
        int sa = (int)(b & 15);                                                        \
        for (int x = 0; x < XLEN / 16; x++) {                                          \
            int32_t s = lane(a, 16, x);                                                \
            d = with_lane(d, 16, x, (expression));                                     \
        }                                                                              \
        return d;                                                                      \
    }

SHIFTWISE16(p_sra16, s >> sa)                          /* SRA16: arithmetic */
SHIFTWISE16(p_sll16, (int32_t)((uint32_t)s << sa))     /* SLL16: the low 16 bits kept */
SHIFTWISE16(p_ksll16, saturate16(s * (1 << sa)))       /* KSLL16: saturated (sets OV); Rd = Rs1 for sa = 0 */

/* SMALDA: rd (64 bits) + the sum over every lane x of rs1.H[x] * rs2.H[x], wrapping modulo 2^64. */
static int64_t p_smalda(int64_t acc, reg_t a, reg_t b) {
    uint64_t sum = (uint64_t)acc;
    for (int x = 0; x < XLEN / 16; x++) sum += (uint64_t)(int64_t)(lane(a, 16, x) * lane(b, 16, x));
    return (int64_t)sum;
}

/* SMAQA: for every 32-bit lane x, rd.W[x] + the sum over its bytes y of rs1.W[x].B[y] * rs2.W[x].B[y], modulo 2^32. */
static reg_t p_smaqa(reg_t acc, reg_t a, reg_t b) {
    reg_t d = 0;
    for (int x = 0; x < XLEN / 32; x++) {
        uint32_t sum = (uint32_t)(acc >> (32 * x));
        for (int y = 0; y < 4; y++) {
            int at = 32 * x + 8 * y;
            sum += (uint32_t)((int8_t)(uint8_t)(a >> at) * (int8_t)(uint8_t)(b >> at));
        }
        d |= (reg_t)sum << (32 * x);
    }
    return d;
}

#if XLEN == 64
/* Lane x of r, 32 bits wide (W[x]), as a signed integer. */
static int64_t word_lane(reg_t r, int x) { return (int32_t)(uint32_t)(r >> (32 * x)); }

static reg_t words(int64_t w0, int64_t w1) { return (reg_t)(uint32_t)w0 | (reg_t)(uint32_t)w1 << 32; }

static int64_t saturate32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

/* SMBB16, SMTT16: Rd.W[x] = Rs1.W[x].H[0] s* Rs2.W[x].H[0] (bottoms), .H[1] s* .H[1] (tops), x = 1..0. */
static reg_t p_smbb16(reg_t a, reg_t b) { return words(lane(a, 16, 0) * lane(b, 16, 0), lane(a, 16, 2) * lane(b, 16, 2)); }
static reg_t p_smtt16(reg_t a, reg_t b) { return words(lane(a, 16, 1) * lane(b, 16, 1), lane(a, 16, 3) * lane(b, 16, 3)); }
/* PKTT16: Rd.W[x] = CONCAT(Rs1.W[x].H[1], Rs2.W[x].H[1]): rs1's top half above rs2's. */
static reg_t p_pktt16(reg_t a, reg_t b) {
    return words((int64_t)(((a >> 16) & 0xFFFF) << 16 | ((b >> 16) & 0xFFFF)), (int64_t)(((a >> 48) & 0xFFFF) << 16 | ((b >> 48) & 0xFFFF)));
}
/* ADD32 wraps, KADD32 saturates to [-2^31, 2^31 - 1] (sets OV). */
static reg_t p_add32(reg_t a, reg_t b) { return words(word_lane(a, 0) + word_lane(b, 0), word_lane(a, 1) + word_lane(b, 1)); }
static reg_t p_kadd32(reg_t a, reg_t b) {
    return words(saturate32(word_lane(a, 0) + word_lane(b, 0)), saturate32(word_lane(a, 1) + word_lane(b, 1)));
}
/* SLL32: Rd.W[x] = Rs1.W[x] << Rs2[4:0], the low 32 bits; KSLL32: the same saturated to [-2^31, 2^31 - 1]
   (sets OV), Rd = Rs1 for a shift of 0. */
static reg_t p_sll32(reg_t a, reg_t b) {
    int sa = (int)(b & 31);
    return words((int64_t)((uint64_t)word_lane(a, 0) << sa), (int64_t)((uint64_t)word_lane(a, 1) << sa));
}
static reg_t p_ksll32(reg_t a, reg_t b) {
    int sa = (int)(b & 31);
    return words(saturate32(word_lane(a, 0) * ((int64_t)1 << sa)), saturate32(word_lane(a, 1) * ((int64_t)1 << sa)));
}
#endif

#else

/* The funct3, funct7 pair comes as two macro arguments, hence the variadic macros. */
#define P_INSN(...) ".insn r " STRINGIFY(BYODT_P_OPCODE) ", " STRINGIFY(__VA_ARGS__) ", %0, %1, %2"
#define P_BINARY(name, ...)                                                     \
    static inline reg_t name(reg_t a, reg_t b) {                                \
        reg_t d;                                                                \
        __asm__(P_INSN(__VA_ARGS__) : "=r"(d) : "r"(a), "r"(b));                      \
        return d;                                                               \
    }

P_BINARY(p_add16, F_ADD16)
P_BINARY(p_sub16, F_SUB16)
P_BINARY(p_kadd16, F_KADD16)
P_BINARY(p_ksub16, F_KSUB16)
P_BINARY(p_smax16, F_SMAX16)
P_BINARY(p_smin16, F_SMIN16)
P_BINARY(p_khm16, F_KHM16)
P_BINARY(p_add8, F_ADD8)
P_BINARY(p_sub8, F_SUB8)
P_BINARY(p_kadd8, F_KADD8)
P_BINARY(p_ksub8, F_KSUB8)
P_BINARY(p_smax8, F_SMAX8)
P_BINARY(p_smin8, F_SMIN8)
P_BINARY(p_sra16, F_SRA16)
P_BINARY(p_sll16, F_SLL16)
P_BINARY(p_ksll16, F_KSLL16)
#if XLEN == 64
P_BINARY(p_smbb16, F_SMBB16)
P_BINARY(p_smtt16, F_SMTT16)
P_BINARY(p_pktt16, F_PKTT16)
P_BINARY(p_add32, F_ADD32)
P_BINARY(p_kadd32, F_KADD32)
P_BINARY(p_sll32, F_SLL32)
P_BINARY(p_ksll32, F_KSLL32)
#endif

static inline reg_t p_smaqa(reg_t acc, reg_t a, reg_t b) {
    __asm__(P_INSN(F_SMAQA) : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}

/* SCLIP16's immediate k sits in the rs2 field, so the instruction names register x<k> there. */
#define SCLIP16(k, a) ({                                                                                   \
    reg_t clipped_;                                                                                       \
    __asm__(".insn r " STRINGIFY(BYODT_P_OPCODE) ", " STRINGIFY(F_SCLIP16) ", %0, %1, x" #k                \
            : "=r"(clipped_) : "r"((reg_t)(a)));                                                          \
    clipped_;                                                                                             \
})
#define SCLIP8(k, a) ({                                                                                    \
    reg_t clipped_;                                                                                       \
    __asm__(".insn r " STRINGIFY(BYODT_P_OPCODE) ", " STRINGIFY(F_SCLIP8) ", %0, %1, x" #k                 \
            : "=r"(clipped_) : "r"((reg_t)(a)));                                                          \
    clipped_;                                                                                             \
})

#if XLEN == 64
static inline int64_t p_smalda(int64_t acc, reg_t a, reg_t b) {
    __asm__(P_INSN(F_SMALDA) : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}
#else
/* On RV32 the 64-bit accumulator is the register pair rd (low word, even register), rd + 1 (high word). */
static inline int64_t p_smalda(int64_t acc, reg_t a, reg_t b) {
    register uint32_t low __asm__("a2") = (uint32_t)(uint64_t)acc;
    register uint32_t high __asm__("a3") = (uint32_t)((uint64_t)acc >> 32);
    __asm__(".insn r " STRINGIFY(BYODT_P_OPCODE) ", " STRINGIFY(F_SMALDA) ", a2, %2, %3"
            : "+r"(low), "+r"(high) : "r"(a), "r"(b));
    return (int64_t)(((uint64_t)high << 32) | low);
}
#endif

#endif

/*
 * The fixed-point operations of fxp16_P and fxp8_P that P has lanes for, on one value in lane 0 (the
 * storage: uint16_t or uint8_t two's complement), byodt_p16_OP and byodt_p8_OP. The other lanes hold zeros,
 * whose results are dropped. Also the operations' form on packed words, byodt_pBITSxL_OP (see below).
 */
#define LANE_OPERATIONS(name, bits, t)                                                                  \
    EXPORT t name##_add_saturate(t a, t b) { return (t)p_kadd##bits(a, b); }                          \
    EXPORT t name##_sub_saturate(t a, t b) { return (t)p_ksub##bits(a, b); }                          \
    EXPORT t name##_add_wrap(t a, t b) { return (t)p_add##bits(a, b); }                               \
    EXPORT t name##_sub_wrap(t a, t b) { return (t)p_sub##bits(a, b); }                               \
    EXPORT t name##_max(t a, t b) { return (t)p_smax##bits(a, b); }                                   \
    EXPORT t name##_min(t a, t b) { return (t)p_smin##bits(a, b); }

LANE_OPERATIONS(byodt_p16, 16, uint16_t)
LANE_OPERATIONS(byodt_p8, 8, uint8_t)
/* fxp16_15 multiply with --rounding truncate (floor) and saturation: exactly KHM16. */
EXPORT uint16_t byodt_p16_q15_mul(uint16_t a, uint16_t b) { return (uint16_t)p_khm16(a, b); }

/* The exact accumulator of fxp16_P (one 64-bit word, products unscaled): acc += a * b by SMALDA. */
EXPORT void byodt_p16_acc_mac(uint64_t *acc, uint16_t a, uint16_t b) {
    *acc = (uint64_t)p_smalda((int64_t)*acc, a, b);
}


/*
 * Two or four products of a dot product at once (byodt's GroupedProducts groups the iterations of such
 * loops): the operands packed two or four to a register, lane 0 the first, then one SMALDA, which sums the
 * products of every lane: acc += a0 * b0 + a1 * b1 (+ a2 * b2 + a3 * b3). Four need XLEN = 64.
 */
EXPORT void byodt_p16_acc_mac2(uint64_t *acc, uint16_t a0, uint16_t a1, uint16_t b0, uint16_t b1) {
    reg_t a = (reg_t)a0 | (reg_t)a1 << 16, b = (reg_t)b0 | (reg_t)b1 << 16;
    *acc = (uint64_t)p_smalda((int64_t)*acc, a, b);
}

/*
 * The same with b's operands as one word that byodt laid out at compile time (constant weights: lane 0 the
 * first), so that they take one load instead of two or four loads and the shifts to pack them.
 */
EXPORT void byodt_p16_acc_mac2_word(uint64_t *acc, uint16_t a0, uint16_t a1, uint32_t b) {
    reg_t a = (reg_t)a0 | (reg_t)a1 << 16;
    *acc = (uint64_t)p_smalda((int64_t)*acc, a, b);
}

#if XLEN == 64
EXPORT void byodt_p16_acc_mac4_word(uint64_t *acc, uint16_t a0, uint16_t a1, uint16_t a2, uint16_t a3, uint64_t b) {
    reg_t a = (reg_t)a0 | (reg_t)a1 << 16 | (reg_t)a2 << 32 | (reg_t)a3 << 48;
    *acc = (uint64_t)p_smalda((int64_t)*acc, a, (reg_t)b);
}

EXPORT void byodt_p16_acc_mac4(uint64_t *acc, uint16_t a0, uint16_t a1, uint16_t a2, uint16_t a3,
                               uint16_t b0, uint16_t b1, uint16_t b2, uint16_t b3) {
    reg_t a = (reg_t)a0 | (reg_t)a1 << 16 | (reg_t)a2 << 32 | (reg_t)a3 << 48;
    reg_t b = (reg_t)b0 | (reg_t)b1 << 16 | (reg_t)b2 << 32 | (reg_t)b3 << 48;
    *acc = (uint64_t)p_smalda((int64_t)*acc, a, b);
}
#endif

/*
 * fxp8_P's exact accumulator is fixed.c's too: the sum of the unscaled products in 64 bits. One product at a
 * time (the steps GroupedProducts leaves over), then four (RV32) or eight (RV64) at once: SMAQA from a zero
 * accumulator sums four 8-bit products per 32-bit lane, which cannot overflow (|sum| <= 4 * 2^14), and the
 * lanes' sums are added to the accumulator.
 */
EXPORT void byodt_p8_acc_mac(uint64_t *acc, uint8_t a, uint8_t b) {
    *acc += (uint64_t)(int64_t)((int8_t)a * (int8_t)b);
}

static uint32_t bytes4(uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
    return (uint32_t)b0 | (uint32_t)b1 << 8 | (uint32_t)b2 << 16 | (uint32_t)b3 << 24;
}

EXPORT void byodt_p8_acc_mac4(uint64_t *acc, uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3,
                              uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
    reg_t sums = p_smaqa(0, bytes4(a0, a1, a2, a3), bytes4(b0, b1, b2, b3));
    *acc += (uint64_t)(int64_t)(int32_t)(uint32_t)sums;
}

/* The same with b's four, or eight, operands as one word that byodt laid out at compile time (constant weights:
   lane 0 the first byte). */
EXPORT void byodt_p8_acc_mac4_word(uint64_t *acc, uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3, uint32_t b) {
    reg_t sums = p_smaqa(0, bytes4(a0, a1, a2, a3), b);
    *acc += (uint64_t)(int64_t)(int32_t)(uint32_t)sums;
}

#if XLEN == 64
EXPORT void byodt_p8_acc_mac8_word(uint64_t *acc, uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3, uint8_t a4, uint8_t a5,
                                   uint8_t a6, uint8_t a7, uint64_t b) {
    reg_t a = (reg_t)bytes4(a0, a1, a2, a3) | (reg_t)bytes4(a4, a5, a6, a7) << 32;
    reg_t sums = p_smaqa(0, a, (reg_t)b);
    *acc += (uint64_t)(int64_t)(int32_t)(uint32_t)sums + (uint64_t)(int64_t)(int32_t)(uint32_t)(sums >> 32);
}

EXPORT void byodt_p8_acc_mac8(uint64_t *acc, uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3, uint8_t a4, uint8_t a5,
                              uint8_t a6, uint8_t a7, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3, uint8_t b4,
                              uint8_t b5, uint8_t b6, uint8_t b7) {
    reg_t a = (reg_t)bytes4(a0, a1, a2, a3) | (reg_t)bytes4(a4, a5, a6, a7) << 32;
    reg_t b = (reg_t)bytes4(b0, b1, b2, b3) | (reg_t)bytes4(b4, b5, b6, b7) << 32;
    reg_t sums = p_smaqa(0, a, b);
    *acc += (uint64_t)(int64_t)(int32_t)(uint32_t)sums + (uint64_t)(int64_t)(int32_t)(uint32_t)(sums >> 32);
}
#endif

/*
 * Packed lanes (byodt's PackedLanes pass): 2 or 4 fxp16_P values, or 4 or 8 fxp8_P values, per register,
 * lane 0 in the low bits, so that one instruction computes as many elements of an element-wise operation.
 * Adjacent elements come as one 32- or 64-bit word from memory; a value the lanes share (a broadcast
 * operand, a constant) is packed with byodt_p16xL_pack or byodt_p8xL_pack. A 32-bit word fits every register
 * (on riscv64 and the host model the upper lanes hold zeros, whose results are dropped); 64 bits need
 * XLEN = 64.
 */
#define PACKED_OPERATIONS(L, word_t)                                                                         \
    LANE_OPERATIONS(byodt_p16x##L, 16, word_t)                                                               \
    EXPORT word_t byodt_p16x##L##_q15_mul(word_t a, word_t b) { return (word_t)p_khm16(a, b); }

/*
 * Clip to the symmetric saturation range [-2^k, 2^k - 1] of raw values, k = 0..15: SCLIP16, where ONNX's Clip
 * has those bounds (byodt's SymmetricClips pass finds them). byodt_p16_clipK on one value in lane 0,
 * byodt_p16x2_clipK and byodt_p16x4_clipK on packed words.
 */
#define CLIP(k)                                                                                      \
    EXPORT uint16_t byodt_p16_clip##k(uint16_t a) { return (uint16_t)SCLIP16(k, a); }                \
    EXPORT uint32_t byodt_p16x2_clip##k(uint32_t a) { return (uint32_t)SCLIP16(k, a); }
#define EVERY_K(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)
EVERY_K(CLIP)

/* fxp8_P's the same by SCLIP8, k = 0..7: byodt_p8_clipK, byodt_p8x4_clipK and (XLEN 64) byodt_p8x8_clipK. */
#define CLIP8(k)                                                                                     \
    EXPORT uint8_t byodt_p8_clip##k(uint8_t a) { return (uint8_t)SCLIP8(k, a); }                     \
    EXPORT uint32_t byodt_p8x4_clip##k(uint32_t a) { return (uint32_t)SCLIP8(k, a); }                \
    CLIP8X8(k)
#if XLEN == 64
#define CLIP8X8(k) EXPORT uint64_t byodt_p8x8_clip##k(uint64_t a) { return (uint64_t)SCLIP8(k, a); }
#else
#define CLIP8X8(k)
#endif
#define EVERY_K8(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)
EVERY_K8(CLIP8)

PACKED_OPERATIONS(2, uint32_t)
EXPORT uint32_t byodt_p16x2_pack(uint16_t a0, uint16_t a1) { return (uint32_t)a0 | (uint32_t)a1 << 16; }
LANE_OPERATIONS(byodt_p8x4, 8, uint32_t)
EXPORT uint32_t byodt_p8x4_pack(uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3) { return bytes4(a0, a1, a2, a3); }

#if XLEN == 64
#define CLIP4(k) EXPORT uint64_t byodt_p16x4_clip##k(uint64_t a) { return (uint64_t)SCLIP16(k, a); }
EVERY_K(CLIP4)
PACKED_OPERATIONS(4, uint64_t)
EXPORT uint64_t byodt_p16x4_pack(uint16_t a0, uint16_t a1, uint16_t a2, uint16_t a3) {
    return (uint64_t)a0 | (uint64_t)a1 << 16 | (uint64_t)a2 << 32 | (uint64_t)a3 << 48;
}
LANE_OPERATIONS(byodt_p8x8, 8, uint64_t)
EXPORT uint64_t byodt_p8x8_pack(uint8_t a0, uint8_t a1, uint8_t a2, uint8_t a3, uint8_t a4, uint8_t a5, uint8_t a6, uint8_t a7) {
    return (uint64_t)bytes4(a0, a1, a2, a3) | (uint64_t)bytes4(a4, a5, a6, a7) << 32;
}
#endif

/*
 * Products rounded to the format one at a time, fixed.c's mul for fxp16_P (--accumulate dtype's products, Mul):
 * the exact 16x16 product p, divided by 2^P with the rounding of products (nearest-even, or toward minus
 * infinity with --rounding truncate), then saturated (or wrapped with --overflow wrap) to 16 bits. No P
 * instruction computes it whole (KHM16 only for fxp16_15 truncating; SRA32.u and the other .u forms round
 * halves up, not to even), so it is composed, bit for bit, in 32-bit lanes: SMBB16 and SMTT16 give the exact
 * products of lanes 0 and 2 and of lanes 1 and 3, each in a 32-bit lane; KSLL32 by 16 - P puts
 * floor(p / 2^P), saturated to 16 bits, in the lane's top half and the discarded bits p mod 2^P below it, a
 * 16.16 value s; nearest-even adds 0x7FFF plus the kept part's lowest bit (bit 16 of s) by KADD32, which
 * carries into the top half exactly when the rest is above half, or is half and the kept part odd, as fixed.c's
 * rescale does, and saturates where that carry passes 2^15 - 1; PKTT16 gathers the four top halves in lane
 * order. --overflow wrap uses SLL32 and ADD32, which keep the low 32 bits: the top halves are then the results
 * modulo 2^16. The fraction bits P arrive as an argument, a constant once inlined (a register for the shifts).
 * byodt_p16_mul_MODE on one value in lane 0, byodt_p16x2_mul_MODE and byodt_p16x4_mul_MODE on packed words.
 */
#if XLEN == 64
/* Two exact products per register, each brought to the top half of its 32-bit lane as fixed.c's mul rounds and fits it. */
static reg_t fitted_products(reg_t products, int fraction, int truncate, int wrap) {
    reg_t shift = (reg_t)(16 - fraction);
    reg_t shifted = wrap ? p_sll32(products, shift) : p_ksll32(products, shift);
    if (truncate || fraction == 0) return shifted;
    /* Base instructions suffice here: the kept part's lowest bit of each lane moves to bit 0 of its lane, and
       adding it to 0x7FFF carries out of no lane. */
    reg_t odd = (shifted >> 16) & (reg_t)0x0000000100000001ULL;
    reg_t half = odd + (reg_t)0x00007FFF00007FFFULL;
    return wrap ? p_add32(shifted, half) : p_kadd32(shifted, half);
}

static reg_t rounded_products16(reg_t a, reg_t b, int fraction, int truncate, int wrap) {
    return p_pktt16(fitted_products(p_smtt16(a, b), fraction, truncate, wrap), fitted_products(p_smbb16(a, b), fraction, truncate, wrap));
}
#else
/* RV32 has no 32-bit lanes to round in (ADD32, KSLL32 and the rest are RV64 only): each lane as fixed.c computes it. */
static reg_t rounded_products16(reg_t a, reg_t b, int fraction, int truncate, int wrap) {
    reg_t d = 0;
    for (int x = 0; x < 2; x++) {
        int32_t p = (int32_t)(int16_t)(uint16_t)(a >> (16 * x)) * (int16_t)(uint16_t)(b >> (16 * x));
        int32_t r = fraction == 0 ? p
            : truncate ? p >> fraction
            : (p + ((1 << (fraction - 1)) - 1) + ((p >> fraction) & 1)) >> fraction;
        if (!wrap) r = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
        d |= (reg_t)(uint16_t)r << (16 * x);
    }
    return d;
}
#endif

/*
 * fxp8_P's products the same way one size down, in 16-bit lanes, where an 8x8 product fits: KHM16 of a * 2^7
 * and b * 2^8 is (a * b * 2^15) >> 15, the exact product (|a * 2^7| < 2^15, so never KHM16's one saturating
 * case), for the even bytes of a word and, apart, the odd ones, each in the top byte of a 16-bit lane (a mask,
 * and a shift of 8 for the even ones; SRA16 by 1 halves a's); KSLL16 by 8 - P leaves floor(p / 2^P), saturated to
 * 8 bits, in the lane's top byte, nearest-even adds 0x7F plus that byte's lowest bit by KADD16 (SLL16 and ADD16
 * with --overflow wrap), and the top bytes go back to their places: the even ones shifted down a byte.
 * byodt_p8_mul_MODE on one value, byodt_p8x4_mul_MODE and byodt_p8x8_mul_MODE on packed words.
 */
static reg_t fitted_products8(reg_t products, int fraction, int truncate, int wrap) {
    reg_t shift = (reg_t)(8 - fraction);
    reg_t shifted = wrap ? p_sll16(products, shift) : p_ksll16(products, shift);
    if (truncate || fraction == 0) return shifted;
    reg_t odd = (shifted >> 8) & (reg_t)0x0001000100010001ULL;
    reg_t half = odd + (reg_t)0x007F007F007F007FULL;
    return wrap ? p_add16(shifted, half) : p_kadd16(shifted, half);
}

static reg_t rounded_products8(reg_t a, reg_t b, int fraction, int truncate, int wrap) {
    reg_t low = (reg_t)0x00FF00FF00FF00FFULL, high = ~low, halve = 1;
    reg_t even = p_khm16(p_sra16((a & low) << 8, halve), (b & low) << 8);
    reg_t odd = p_khm16(p_sra16(a & high, halve), b & high);
    return ((fitted_products8(even, fraction, truncate, wrap) >> 8) & low) | (fitted_products8(odd, fraction, truncate, wrap) & high);
}

/* NAME_mul_MODE on one value or a packed word of type word_t, by rounded_products16 or rounded_products8. */
#define PRODUCT(name, word_t, rounded, mode, truncate, wrap)                                                   \
    EXPORT word_t name##_mul_##mode(word_t a, word_t b, int32_t fraction) {                                   \
        return (word_t)rounded(a, b, fraction, truncate, wrap);                                               \
    }
#define PRODUCTS(mode, truncate, wrap)                                                                          \
    PRODUCT(byodt_p16, uint16_t, rounded_products16, mode, truncate, wrap)                                    \
    PRODUCT(byodt_p16x2, uint32_t, rounded_products16, mode, truncate, wrap)                                  \
    PRODUCT(byodt_p8, uint8_t, rounded_products8, mode, truncate, wrap)                                       \
    PRODUCT(byodt_p8x4, uint32_t, rounded_products8, mode, truncate, wrap)                                    \
    PRODUCTS64(mode, truncate, wrap)
#if XLEN == 64
#define PRODUCTS64(mode, truncate, wrap)                                                                        \
    PRODUCT(byodt_p16x4, uint64_t, rounded_products16, mode, truncate, wrap)                                  \
    PRODUCT(byodt_p8x8, uint64_t, rounded_products8, mode, truncate, wrap)
#else
#define PRODUCTS64(mode, truncate, wrap)
#endif
PRODUCTS(nearest_saturate, 0, 0)
PRODUCTS(truncate_saturate, 1, 0)
PRODUCTS(nearest_wrap, 0, 1)
PRODUCTS(truncate_wrap, 1, 1)

/*
 * The means of 2x2 windows with exact sums, fixed.c's AveragePool under --accumulate exact for fxp16_P: each
 * window's four values summed exactly (acc_add), the sum fitted to 16 bits once (acc_round: saturated, or
 * wrapped with --overflow wrap), then divided by 4 (div_i32 or div, the same shifts: nearest-even, or toward
 * zero with --rounding truncate). KADD16 of pairs would saturate at each step (32767, 32767, -32768, -32768 sum
 * to -2 in fixed.c, to -1 saturated pairwise), so the sums are widened: SMBB16 and SMTT16 by ones give the
 * values of lanes 0, 2 and 1, 3 in 32-bit lanes, and ADD32 adds each window's four, exactly (|sum| < 2^17).
 * KSLL32 by 16 (SLL32 wrapping) fits each sum to 16 bits in its lane's top half, as the products do; base
 * instructions put the sums of outputs 0, 2 and 1, 3 in the same registers (a 32-bit lane of each word moves),
 * so that PKTT16 gathers the four in lane order. The division works on the 16-bit lanes: SRA16 by 2 floors;
 * the correction of 0 or 1, from each lane's two discarded bits and its kept lowest bit (or sign), is computed
 * by base instructions in lanes that never carry (at most 6), and ADD16 adds it without overflow (|floor| < 2^13).
 * top0, top1 are a window row's 8 values (outputs 0, 1 and 2, 3), bottom0, bottom1 the next row's:
 * byodt_p16x4_mean2x2_MODE, RV64 and the host model.
 */
#if XLEN == 64
static reg_t window_sums16(reg_t top, reg_t bottom) {
    reg_t ones = (reg_t)0x0001000100010001ULL;
    return p_add32(p_add32(p_smbb16(top, ones), p_smtt16(top, ones)), p_add32(p_smbb16(bottom, ones), p_smtt16(bottom, ones)));
}

static reg_t quartered16(reg_t v, int truncate) {
    reg_t one = (reg_t)0x0001000100010001ULL, three = 3 * one, four = 4 * one;
    reg_t floor = p_sra16(v, 2), rest = v & three;
    reg_t up = truncate ? ((v >> 15) & one) & (((rest + three) & four) >> 2)
                        : ((rest + (floor & one) + one) & four) >> 2;
    return p_add16(floor, up);
}

static reg_t means2x2_16(reg_t top0, reg_t top1, reg_t bottom0, reg_t bottom1, int truncate, int wrap) {
    reg_t shift = 16, low = (reg_t)0x00000000FFFFFFFFULL;
    reg_t first = window_sums16(top0, bottom0), second = window_sums16(top1, bottom1);
    first = wrap ? p_sll32(first, shift) : p_ksll32(first, shift);
    second = wrap ? p_sll32(second, shift) : p_ksll32(second, shift);
    reg_t even = (first & low) | (second << 32), odd = (first >> 32) | (second & ~low);
    return quartered16(p_pktt16(odd, even), truncate);
}

/*
 * fxp8_P's the same one size down: a window row's 8 bytes (two 32-bit words) in one register, SLL16 and SRA16 by 8
 * widen its even and its odd bytes to 16-bit lanes in output order, ADD16 sums each window's four exactly
 * (|sum| <= 512), SCLIP16 by 7 fits the sums to 8 bits (SLL16 and SRA16 by 8 wrapping), the same division by 4,
 * and base instructions gather the four low bytes into a 32-bit word: byodt_p8x4_mean2x2_MODE, RV64 and the host
 * model.
 */
static reg_t pair_sums8(uint32_t first, uint32_t second) {
    reg_t bytes = (reg_t)first | (reg_t)second << 32, eight = 8;
    return p_add16(p_sra16(p_sll16(bytes, eight), eight), p_sra16(bytes, eight));
}

static uint32_t means2x2_8(uint32_t top0, uint32_t top1, uint32_t bottom0, uint32_t bottom1, int truncate, int wrap) {
    reg_t eight = 8, sums = p_add16(pair_sums8(top0, top1), pair_sums8(bottom0, bottom1));
    sums = wrap ? p_sra16(p_sll16(sums, eight), eight) : SCLIP16(7, sums);
    reg_t means = quartered16(sums, truncate) & (reg_t)0x00FF00FF00FF00FFULL;
    means = (means | means >> 8) & (reg_t)0x0000FFFF0000FFFFULL;
    return (uint32_t)(means | means >> 16);
}

#define MEANS2X2(mode, truncate, wrap)                                                                          \
    EXPORT uint64_t byodt_p16x4_mean2x2_##mode(uint64_t top0, uint64_t top1, uint64_t bottom0, uint64_t bottom1) { \
        return (uint64_t)means2x2_16(top0, top1, bottom0, bottom1, truncate, wrap);                             \
    }                                                                                                           \
    EXPORT uint32_t byodt_p8x4_mean2x2_##mode(uint32_t top0, uint32_t top1, uint32_t bottom0, uint32_t bottom1) { \
        return means2x2_8(top0, top1, bottom0, bottom1, truncate, wrap);                                        \
    }
MEANS2X2(nearest_saturate, 0, 0)
MEANS2X2(truncate_saturate, 1, 0)
MEANS2X2(nearest_wrap, 0, 1)
MEANS2X2(truncate_wrap, 1, 1)
#endif
