/*
 * The executable's entry: MODEL [-o OUTDIR] input_0.pb [input_1.pb ...] reads one onnx.TensorProto
 * per model input, runs the model, and writes OUTDIR/output_N.pb for each output (OUTDIR defaults
 * to the current directory). Exit status: 0 done, 1 a file could not be read or written or did not
 * match the model, 2 wrong command line.
 */
#include "byodt_harness.h"

#define MAX_PATH 4096

static void describe(struct byodt_line *line, const char *role, int index, const struct byodt_tensor *tensor) {
    byodt_line_start(line);
    byodt_line_add(line, "  ");
    byodt_line_add(line, role);
    byodt_line_add(line, " ");
    byodt_line_add_int(line, index);
    byodt_line_add(line, ": ");
    byodt_line_add(line, tensor->name);
    byodt_line_add(line, " ");
    byodt_line_add_type(line, tensor->elem_type);
    byodt_line_add_shape(line, tensor->rank, tensor->dims);
    byodt_line_print(line);
}

static void print_usage(const char *program) {
    struct byodt_line line;
    byodt_line_start(&line);
    byodt_line_add(&line, "usage: ");
    byodt_line_add(&line, program);
    byodt_line_add(&line, " [-o OUTDIR]");
    for (int i = 0; i < byodt_input_count; i++) {
        byodt_line_add(&line, " input_");
        byodt_line_add_int(&line, i);
        byodt_line_add(&line, ".pb");
    }
    byodt_line_print(&line);
    byodt_line_add(&line, "Runs the model on onnx.TensorProto files and writes OUTDIR/output_N.pb (OUTDIR defaults to .).");
    byodt_line_print(&line);
    for (int i = 0; i < byodt_input_count; i++) describe(&line, "input", i, &byodt_inputs[i]);
    for (int i = 0; i < byodt_output_count; i++) describe(&line, "output", i, &byodt_outputs[i]);
}

static int command_line_error(const char *problem, const char *detail) {
    struct byodt_line line;
    byodt_line_start(&line);
    byodt_line_add(&line, "byodt: ");
    byodt_line_add(&line, problem);
    byodt_line_add(&line, detail);
    byodt_line_print(&line);
    return 2;
}

/* OUTDIR/output_N.pb into path; returns 0 when it does not fit. */
static int output_path(char *path, const char *directory, int index) {
    struct byodt_line name;
    byodt_line_start(&name);
    byodt_line_add(&name, "/output_");
    byodt_line_add_int(&name, index);
    byodt_line_add(&name, ".pb");
    size_t directory_length = byodt_strlen(directory);
    if (directory_length + name.length + 1 > MAX_PATH) return 0;
    size_t length = 0;
    for (size_t i = 0; i < directory_length; i++) path[length++] = directory[i];
    for (size_t i = 0; i < name.length; i++) path[length++] = name.text[i];
    path[length] = '\0';
    return 1;
}

static int byodt_main(int argc, char **argv) {
    const char *program = argc > 0 ? argv[0] : "model";
    if (argc <= 1) {
        print_usage(program);
        return 2;
    }
    const char *output_directory = ".";
    const char *inputs[argc];
    int input_files = 0;
    for (int i = 1; i < argc; i++) {
        if (byodt_streq(argv[i], "-o")) {
            if (i + 1 == argc) return command_line_error("-o needs a directory", "");
            output_directory = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return command_line_error("unknown option ", argv[i]);
        } else {
            inputs[input_files++] = argv[i];
        }
    }
    if (input_files != byodt_input_count) {
        struct byodt_line line;
        byodt_line_start(&line);
        byodt_line_add(&line, "byodt: the model has ");
        byodt_line_add_int(&line, byodt_input_count);
        byodt_line_add(&line, " input(s) but ");
        byodt_line_add_int(&line, input_files);
        byodt_line_add(&line, " file(s) were given; run without arguments for usage");
        byodt_line_print(&line);
        return 2;
    }
    for (int i = 0; i < byodt_input_count; i++) byodt_read_tensor(inputs[i], &byodt_inputs[i]);
    byodt_run_model();
    static char path[MAX_PATH];
    for (int i = 0; i < byodt_output_count; i++) {
        if (!output_path(path, output_directory, i)) return command_line_error("output directory name too long: ", output_directory);
        byodt_write_tensor(path, &byodt_outputs[i]);
    }
    return 0;
}

/* Called by _start (syscalls.c) with the initial stack: argc, then argc argument pointers, then NULL. */
__attribute__((noreturn, used)) void byodt_start(long *initial_stack) {
#ifdef BYODT_P_EMULATION_OPCODE
    byodt_p_emulation_install();
#endif
    int argc = (int) initial_stack[0];
    char **argv = (char **) (initial_stack + 1);
    byodt_sys_exit(byodt_main(argc, argv));
}
