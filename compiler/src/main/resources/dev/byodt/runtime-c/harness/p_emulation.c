/*
 * The P extension for executables that byodt runs under qemu-user, which has no P: a SIGILL handler that
 * executes each trapped P instruction with the exact C model of datatypes/fixed/fixed_p.c (the model the
 * host checks use) on the interrupted registers, then resumes after it. The instruction words, registers
 * and lane packing are the compiled code's own, so a run checks the real P executable; only the semantics
 * of each instruction come from the model. Built only when -DBYODT_P_EMULATION_OPCODE gives P's major
 * opcode; executables for P hardware leave it out.
 *
 * The handler's instructions are no part of the model's: byodt's instruction counts leave out every
 * function whose name starts with byodt_p_emulation, so the handler is flattened: the models it calls
 * inline into it instead of running as functions of their own names.
 */
#include "byodt_harness.h"

#define BYODT_P_MODEL 1
#include "fixed_p.c"

/* Linux's SA_SIGINFO: the handler gets the interrupted context. */
#define SIGILL 4
#define SA_SIGINFO 4

/* The kernel's struct sigaction on RISC-V (no sa_restorer: the kernel provides the return trampoline). */
struct kernel_sigaction {
    void (*handler)(int, void *, void *);
    unsigned long flags;
    uint64_t mask;
};

/*
 * The kernel's (and qemu's) struct ucontext on RISC-V up to the registers: uc_mcontext starts with pc,
 * then x1..x31, and is 16-byte aligned after a signal mask padded to 128 bytes.
 */
struct interrupted_context {
    unsigned long flags;
    void *link;
    struct {
        void *stack_pointer;
        int flags;
        unsigned long size;
    } stack;
    uint64_t mask;
    uint8_t mask_padding[128 - sizeof(uint64_t)];
    __attribute__((aligned(16))) unsigned long registers[32]; /* [0] is pc, [i] is xi */
};

static reg_t read_register(const struct interrupted_context *context, int number) {
    return number == 0 ? 0 : (reg_t)context->registers[number];
}

static void write_register(struct interrupted_context *context, int number, reg_t value) {
    if (number != 0) context->registers[number] = (unsigned long)value;
}

/* funct3 and funct7 as one number; FIELDS takes fixed_p.c's F_ macros, which expand to the pair. */
#define FIELD_KEY(funct3, funct7) ((funct3) << 7 | (funct7))
#define FIELDS(...) FIELD_KEY(__VA_ARGS__)

static __attribute__((noreturn)) void unknown_instruction(uint32_t word, unsigned long pc) {
    static const char digits[] = "0123456789abcdef";
    struct byodt_line line;
    char hex[19];
    byodt_line_start(&line);
    byodt_line_add(&line, "byodt: illegal instruction with no P emulation: ");
    for (int i = 0; i < 8; i++) hex[i] = digits[(word >> (28 - 4 * i)) & 15];
    hex[8] = 0;
    byodt_line_add(&line, hex);
    byodt_line_add(&line, " at pc 0x");
    int length = 0;
    for (int shift = (int)(8 * sizeof pc) - 4; shift >= 0; shift -= 4) hex[length++] = digits[(pc >> shift) & 15];
    hex[length] = 0;
    byodt_line_add(&line, hex);
    byodt_line_print(&line);
    byodt_sys_exit(128 + SIGILL); /* as if the signal had killed it */
}

/* SMALDA's 64-bit accumulator: rd on RV64, the pair rd (low word, even) and rd + 1 (high word) on RV32. */
static int64_t read_accumulator(const struct interrupted_context *context, int rd) {
#if XLEN == 64
    return (int64_t)read_register(context, rd);
#else
    return (int64_t)(((uint64_t)read_register(context, rd + 1) << 32) | read_register(context, rd));
#endif
}

static void write_accumulator(struct interrupted_context *context, int rd, int64_t value) {
#if XLEN == 64
    write_register(context, rd, (reg_t)value);
#else
    write_register(context, rd, (reg_t)(uint64_t)value);
    write_register(context, rd + 1, (reg_t)((uint64_t)value >> 32));
#endif
}

static __attribute__((flatten)) void byodt_p_emulation_handler(int signal, void *information, void *raw_context) {
    (void)signal;
    (void)information;
    struct interrupted_context *context = raw_context;
    unsigned long pc = context->registers[0];
    /* With the C extension an instruction is only 2-byte aligned: read it as two halves. */
    const uint16_t *half = (const uint16_t *)pc;
    uint32_t word = half[0] | (uint32_t)half[1] << 16;
    if ((word & 0x7f) != BYODT_P_EMULATION_OPCODE) unknown_instruction(word, pc);
    int rd = (word >> 7) & 31, rs1 = (word >> 15) & 31, rs2 = (word >> 20) & 31;
    reg_t a = read_register(context, rs1), b = read_register(context, rs2);
    switch (FIELD_KEY((word >> 12) & 7, word >> 25)) {
    case FIELDS(F_ADD16): write_register(context, rd, p_add16(a, b)); break;
    case FIELDS(F_SUB16): write_register(context, rd, p_sub16(a, b)); break;
    case FIELDS(F_KADD16): write_register(context, rd, p_kadd16(a, b)); break;
    case FIELDS(F_KSUB16): write_register(context, rd, p_ksub16(a, b)); break;
    case FIELDS(F_SMAX16): write_register(context, rd, p_smax16(a, b)); break;
    case FIELDS(F_SMIN16): write_register(context, rd, p_smin16(a, b)); break;
    case FIELDS(F_KHM16): write_register(context, rd, p_khm16(a, b)); break;
    case FIELDS(F_ADD8): write_register(context, rd, p_add8(a, b)); break;
    case FIELDS(F_SUB8): write_register(context, rd, p_sub8(a, b)); break;
    case FIELDS(F_KADD8): write_register(context, rd, p_kadd8(a, b)); break;
    case FIELDS(F_KSUB8): write_register(context, rd, p_ksub8(a, b)); break;
    case FIELDS(F_SMAX8): write_register(context, rd, p_smax8(a, b)); break;
    case FIELDS(F_SMIN8): write_register(context, rd, p_smin8(a, b)); break;
    case FIELDS(F_SMALDA): write_accumulator(context, rd, p_smalda(read_accumulator(context, rd), a, b)); break;
    case FIELDS(F_SMAQA): write_register(context, rd, p_smaqa(read_register(context, rd), a, b)); break;
    case FIELDS(F_SCLIP16): write_register(context, rd, p_sclip16(a, rs2)); break; /* rs2 holds the immediate */
    case FIELDS(F_SCLIP8): write_register(context, rd, p_sclip8(a, rs2)); break;
    case FIELDS(F_SRA16): write_register(context, rd, p_sra16(a, b)); break;
    case FIELDS(F_SLL16): write_register(context, rd, p_sll16(a, b)); break;
    case FIELDS(F_KSLL16): write_register(context, rd, p_ksll16(a, b)); break;
#if XLEN == 64
    case FIELDS(F_SMBB16): write_register(context, rd, p_smbb16(a, b)); break;
    case FIELDS(F_SMTT16): write_register(context, rd, p_smtt16(a, b)); break;
    case FIELDS(F_PKTT16): write_register(context, rd, p_pktt16(a, b)); break;
    case FIELDS(F_ADD32): write_register(context, rd, p_add32(a, b)); break;
    case FIELDS(F_KADD32): write_register(context, rd, p_kadd32(a, b)); break;
    case FIELDS(F_SLL32): write_register(context, rd, p_sll32(a, b)); break;
    case FIELDS(F_KSLL32): write_register(context, rd, p_ksll32(a, b)); break;
#endif
    default: unknown_instruction(word, pc);
    }
    context->registers[0] = pc + 4;
}

void byodt_p_emulation_install(void) {
    struct kernel_sigaction action = {byodt_p_emulation_handler, SA_SIGINFO, 0};
    long result = byodt_sys_rt_sigaction(SIGILL, &action, 0, sizeof action.mask);
    if (result < 0) {
        struct byodt_line line;
        byodt_line_start(&line);
        byodt_line_add(&line, "byodt: cannot install the P emulation (rt_sigaction failed)");
        byodt_line_print(&line);
        byodt_sys_exit(1);
    }
}
