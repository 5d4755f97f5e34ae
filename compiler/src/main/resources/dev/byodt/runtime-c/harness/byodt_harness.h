/*
 * The freestanding executable harness of byodt: what its C files and the per-model glue share.
 * No C library is involved: the harness has its own _start, system calls, memory functions and
 * onnx.TensorProto reader and writer. Only the compiler's freestanding headers are used.
 */
#ifndef BYODT_HARNESS_H
#define BYODT_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* ONNX TensorProto.DataType codes of the element types the harness moves. */
enum {
    BYODT_ONNX_FLOAT = 1,
    BYODT_ONNX_INT32 = 6,
    BYODT_ONNX_INT64 = 7
};

/* One model input or output, with the static buffer the model reads or writes. */
struct byodt_tensor {
    const char *name;
    int32_t elem_type;
    int32_t rank;
    const int64_t *dims;
    uint64_t byte_size;
    void *data;
};

/* Provided by the generated per-model glue. */
extern const struct byodt_tensor byodt_inputs[];
extern const int byodt_input_count;
extern const struct byodt_tensor byodt_outputs[];
extern const int byodt_output_count;
void byodt_run_model(void);

/* System calls (syscalls.c). Each returns the kernel's result: negative errno on failure. */
long byodt_sys_openat(int dirfd, const char *path, int flags, int mode);
long byodt_sys_read(int fd, void *buffer, size_t length);
long byodt_sys_write(int fd, const void *buffer, size_t length);
long byodt_sys_close(int fd);
long byodt_sys_rt_sigaction(int signal, const void *action, void *old_action, size_t mask_bytes);
__attribute__((noreturn)) void byodt_sys_exit(int status);

/* Linux's generic open flags, the same on x86-64 and RISC-V. */
#define BYODT_AT_FDCWD (-100)
#define BYODT_O_RDONLY 0
#define BYODT_O_WRONLY 01
#define BYODT_O_CREAT 0100
#define BYODT_O_TRUNC 01000

/*
 * Executables built to run under qemu-user on a P target carry an emulation of the P instructions
 * (p_emulation.c, compiled with -DBYODT_P_EMULATION_OPCODE): byodt_start installs it first.
 */
void byodt_p_emulation_install(void);

/* Writes all of buffer to fd; returns 0, or a negative errno. */
long byodt_write_all(int fd, const void *buffer, size_t length);

/* A one-line message assembled piece by piece, then written to stderr (text.c). */
struct byodt_line {
    char text[1024];
    size_t length;
};
void byodt_line_start(struct byodt_line *line);
void byodt_line_add(struct byodt_line *line, const char *text);
void byodt_line_add_int(struct byodt_line *line, int64_t value);
void byodt_line_add_shape(struct byodt_line *line, int32_t rank, const int64_t *dims);
void byodt_line_add_type(struct byodt_line *line, int32_t onnx_type);
void byodt_line_print(struct byodt_line *line);
size_t byodt_strlen(const char *text);
int byodt_streq(const char *a, const char *b);

/*
 * Reads the onnx.TensorProto file at path into tensor's buffer, checking its element type and shape
 * against the model's; writes tensor as a TensorProto file (tensor_proto.c). On any problem both
 * print one line naming the file to stderr and end the process with status 1.
 */
void byodt_read_tensor(const char *path, const struct byodt_tensor *tensor);
void byodt_write_tensor(const char *path, const struct byodt_tensor *tensor);

#endif
