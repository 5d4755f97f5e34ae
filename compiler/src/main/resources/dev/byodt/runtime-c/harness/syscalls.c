/*
 * The only architecture-specific part of the harness: how a system call is made, the system call
 * numbers, and _start, which finds argc and argv on the initial stack and calls byodt_start.
 * To add an architecture, add a section defining BYODT_SYSCALL4, the six numbers and _start.
 */
#include "byodt_harness.h"

__attribute__((noreturn)) void byodt_start(long *initial_stack);

#if defined(__x86_64__)

#define BYODT_NR_READ 0
#define BYODT_NR_WRITE 1
#define BYODT_NR_CLOSE 3
#define BYODT_NR_OPENAT 257
#define BYODT_NR_EXIT_GROUP 231
#define BYODT_NR_RT_SIGACTION 13

static long byodt_syscall4(long number, long a0, long a1, long a2, long a3) {
    register long r10 __asm__("r10") = a3;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a0), "S"(a1), "d"(a2), "r"(r10)
                     : "rcx", "r11", "memory");
    return result;
}

/* At entry rsp points at argc, then the argv pointers; the ABI wants rsp 16-byte aligned at a call. */
__asm__(".text\n"
        ".global _start\n"
        ".type _start, @function\n"
        "_start:\n"
        "    xor %ebp, %ebp\n"
        "    mov %rsp, %rdi\n"
        "    and $-16, %rsp\n"
        "    call byodt_start\n"
        "    hlt\n");

#elif defined(__riscv)

/* RISC-V uses the generic Linux numbers, the same for riscv32 and riscv64. */
#define BYODT_NR_READ 63
#define BYODT_NR_WRITE 64
#define BYODT_NR_CLOSE 57
#define BYODT_NR_OPENAT 56
#define BYODT_NR_EXIT_GROUP 94
#define BYODT_NR_RT_SIGACTION 134

static long byodt_syscall4(long number, long a0, long a1, long a2, long a3) {
    register long r_a7 __asm__("a7") = number;
    register long r_a0 __asm__("a0") = a0;
    register long r_a1 __asm__("a1") = a1;
    register long r_a2 __asm__("a2") = a2;
    register long r_a3 __asm__("a3") = a3;
    __asm__ volatile("ecall" : "+r"(r_a0) : "r"(r_a7), "r"(r_a1), "r"(r_a2), "r"(r_a3) : "memory");
    return r_a0;
}

/* gp must hold __global_pointer$ before any code the linker relaxed against it runs. */
__asm__(".text\n"
        ".global _start\n"
        ".type _start, @function\n"
        "_start:\n"
        ".option push\n"
        ".option norelax\n"
        "    la gp, __global_pointer$\n"
        ".option pop\n"
        "    mv a0, sp\n"
        "    andi sp, sp, -16\n"
        "    call byodt_start\n"
        "1:  j 1b\n");

#else
#error "byodt's executable harness has no system call section for this architecture"
#endif

long byodt_sys_openat(int dirfd, const char *path, int flags, int mode) {
    return byodt_syscall4(BYODT_NR_OPENAT, dirfd, (long) path, flags, mode);
}

long byodt_sys_read(int fd, void *buffer, size_t length) {
    return byodt_syscall4(BYODT_NR_READ, fd, (long) buffer, (long) length, 0);
}

long byodt_sys_write(int fd, const void *buffer, size_t length) {
    return byodt_syscall4(BYODT_NR_WRITE, fd, (long) buffer, (long) length, 0);
}

long byodt_sys_close(int fd) {
    return byodt_syscall4(BYODT_NR_CLOSE, fd, 0, 0, 0);
}

long byodt_sys_rt_sigaction(int signal, const void *action, void *old_action, size_t mask_bytes) {
    return byodt_syscall4(BYODT_NR_RT_SIGACTION, signal, (long) action, (long) old_action, (long) mask_bytes);
}

void byodt_sys_exit(int status) {
    for (;;) byodt_syscall4(BYODT_NR_EXIT_GROUP, status, 0, 0, 0);
}
