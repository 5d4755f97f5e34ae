/* One-line messages for stderr, built without printf; long messages are cut, never overrun. */
#include "byodt_harness.h"

size_t byodt_strlen(const char *text) {
    size_t length = 0;
    while (text[length] != '\0') length++;
    return length;
}

int byodt_streq(const char *a, const char *b) {
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

long byodt_write_all(int fd, const void *buffer, size_t length) {
    const char *bytes = buffer;
    while (length > 0) {
        long written = byodt_sys_write(fd, bytes, length);
        if (written < 0) return written;
        bytes += written;
        length -= (size_t) written;
    }
    return 0;
}

void byodt_line_start(struct byodt_line *line) {
    line->length = 0;
}

void byodt_line_add(struct byodt_line *line, const char *text) {
    /* One byte stays free for the newline that byodt_line_print appends. */
    while (*text != '\0' && line->length < sizeof line->text - 1) line->text[line->length++] = *text++;
}

void byodt_line_add_int(struct byodt_line *line, int64_t value) {
    char digits[24];
    int count = 0;
    /* Negate digit by digit so that INT64_MIN needs no special case. */
    int negative = value < 0;
    do {
        int digit = (int) (value % 10);
        digits[count++] = (char) ('0' + (negative ? -digit : digit));
        value /= 10;
    } while (value != 0);
    char text[26];
    int length = 0;
    if (negative) text[length++] = '-';
    while (count > 0) text[length++] = digits[--count];
    text[length] = '\0';
    byodt_line_add(line, text);
}

/* Written as byodt's Java side writes shapes: [1x3x28x28], [scalar]. */
void byodt_line_add_shape(struct byodt_line *line, int32_t rank, const int64_t *dims) {
    byodt_line_add(line, "[");
    if (rank == 0) byodt_line_add(line, "scalar");
    for (int32_t i = 0; i < rank; i++) {
        if (i > 0) byodt_line_add(line, "x");
        byodt_line_add_int(line, dims[i]);
    }
    byodt_line_add(line, "]");
}

void byodt_line_add_type(struct byodt_line *line, int32_t onnx_type) {
    switch (onnx_type) {
    case BYODT_ONNX_FLOAT: byodt_line_add(line, "float32"); break;
    case BYODT_ONNX_INT32: byodt_line_add(line, "int32"); break;
    case BYODT_ONNX_INT64: byodt_line_add(line, "int64"); break;
    default:
        byodt_line_add(line, "ONNX type ");
        byodt_line_add_int(line, onnx_type);
    }
}

void byodt_line_print(struct byodt_line *line) {
    line->text[line->length++] = '\n';
    byodt_write_all(2, line->text, line->length);
    line->length = 0;
}
