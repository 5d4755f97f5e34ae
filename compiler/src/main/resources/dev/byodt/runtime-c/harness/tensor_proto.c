/*
 * A minimal onnx.TensorProto reader and writer. The reader streams the file through a fixed buffer,
 * so an input of any size needs no memory beyond the model's own input buffer. It accepts every
 * encoding protobuf allows for the fields it reads (packed and unpacked repeated fields, fields in
 * any order) and skips fields it does not know by their wire type.
 */
#include "byodt_harness.h"

/* onnx.TensorProto field numbers. */
enum {
    FIELD_DIMS = 1,
    FIELD_DATA_TYPE = 2,
    FIELD_FLOAT_DATA = 4,
    FIELD_INT32_DATA = 5,
    FIELD_INT64_DATA = 7,
    FIELD_NAME = 8,
    FIELD_RAW_DATA = 9,
    FIELD_DATA_LOCATION = 14
};

/* Protobuf wire types. */
enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LENGTH = 2, WIRE_FIXED32 = 5 };

#define MAX_RANK 64
#define DATA_LOCATION_EXTERNAL 1

/* The file being read or written, named in every error message. */
static const char *current_path;

static void start_error(struct byodt_line *line) {
    byodt_line_start(line);
    byodt_line_add(line, "byodt: ");
    byodt_line_add(line, current_path);
    byodt_line_add(line, ": ");
}

static __attribute__((noreturn)) void fail_with(struct byodt_line *line) {
    byodt_line_print(line);
    byodt_sys_exit(1);
}

static __attribute__((noreturn)) void fail(const char *problem) {
    struct byodt_line line;
    start_error(&line);
    byodt_line_add(&line, problem);
    fail_with(&line);
}

static __attribute__((noreturn)) void fail_system(const char *doing, long error) {
    struct byodt_line line;
    start_error(&line);
    byodt_line_add(&line, doing);
    switch (-error) {
    case 2: byodt_line_add(&line, " (no such file or directory)"); break;
    case 13: byodt_line_add(&line, " (permission denied)"); break;
    case 21: byodt_line_add(&line, " (is a directory)"); break;
    case 28: byodt_line_add(&line, " (no space left on device)"); break;
    default:
        byodt_line_add(&line, " (error ");
        byodt_line_add_int(&line, -error);
        byodt_line_add(&line, ")");
    }
    fail_with(&line);
}

/* ---- reading ---- */

static struct {
    int fd;
    unsigned char buffer[1 << 16];
    size_t position;
    size_t length;
    uint64_t offset; /* file offset of the next byte: where packed fields end is an offset */
} in;

/* Refills the buffer; returns 0 at the end of the file. */
static int refill(void) {
    long got = byodt_sys_read(in.fd, in.buffer, sizeof in.buffer);
    if (got < 0) fail_system("cannot read the file", got);
    in.position = 0;
    in.length = (size_t) got;
    return got > 0;
}

static int at_end_of_file(void) {
    return in.position == in.length && !refill();
}

static unsigned char next_byte(void) {
    if (in.position == in.length && !refill()) fail("the file ends inside a field: not a complete TensorProto");
    in.offset++;
    return in.buffer[in.position++];
}

static uint64_t read_varint(void) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        unsigned char byte = next_byte();
        value |= (uint64_t) (byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) return value;
    }
    fail("a varint is longer than 10 bytes: not a TensorProto");
}

/* Copies count bytes of the file to destination, or skips them when destination is NULL. */
static void read_bytes(unsigned char *destination, uint64_t count) {
    while (count > 0) {
        if (in.position == in.length && !refill()) fail("the file ends inside a field: not a complete TensorProto");
        size_t available = in.length - in.position;
        size_t chunk = count < available ? (size_t) count : available;
        if (destination != NULL) {
            for (size_t i = 0; i < chunk; i++) destination[i] = in.buffer[in.position + i];
            destination += chunk;
        }
        in.position += chunk;
        in.offset += chunk;
        count -= chunk;
    }
}

static void skip_field(int wire_type) {
    switch (wire_type) {
    case WIRE_VARINT: read_varint(); break;
    case WIRE_FIXED64: read_bytes(NULL, 8); break;
    case WIRE_LENGTH: read_bytes(NULL, read_varint()); break;
    case WIRE_FIXED32: read_bytes(NULL, 4); break;
    default: fail("unsupported protobuf wire type (groups): not a TensorProto");
    }
}

/* What the file said, checked against the model's tensor once the whole message is read. */
struct parsed_tensor {
    int64_t dims[MAX_RANK];
    int32_t rank;
    int has_data_type;
    int64_t data_type;
    int data_location;
    uint64_t bytes_stored;
    int misplaced_field; /* a value field that cannot hold the tensor's element type */
};

static const struct byodt_tensor *target;

static void add_dim(struct parsed_tensor *parsed, int64_t dim) {
    if (parsed->rank == MAX_RANK) fail("has more than 64 dimensions");
    parsed->dims[parsed->rank++] = dim;
}

static __attribute__((noreturn)) void fail_too_many_values(void) {
    struct byodt_line line;
    start_error(&line);
    byodt_line_add(&line, "holds more values than model input '");
    byodt_line_add(&line, target->name);
    byodt_line_add(&line, "' of shape ");
    byodt_line_add_shape(&line, target->rank, target->dims);
    byodt_line_add(&line, " has");
    fail_with(&line);
}

/* The place for the next count bytes of element data in the model's buffer. */
static unsigned char *claim(struct parsed_tensor *parsed, uint64_t count) {
    if (count > target->byte_size - parsed->bytes_stored) fail_too_many_values();
    unsigned char *place = (unsigned char *) target->data + parsed->bytes_stored;
    parsed->bytes_stored += count;
    return place;
}

static void store_integer(struct parsed_tensor *parsed, uint64_t varint) {
    if (target->elem_type == BYODT_ONNX_INT32) {
        /* protobuf encodes a negative int32 as the 64-bit two's complement; the low 32 bits are the value. */
        int32_t value = (int32_t) (uint32_t) varint;
        unsigned char *place = claim(parsed, sizeof value);
        __builtin_memcpy(place, &value, sizeof value);
    } else {
        int64_t value = (int64_t) varint;
        unsigned char *place = claim(parsed, sizeof value);
        __builtin_memcpy(place, &value, sizeof value);
    }
}

/* float_data, int32_data or int64_data: packed (one length-delimited run) or one value per field. */
static void read_values(struct parsed_tensor *parsed, int field, int wire_type, int32_t holds_type) {
    if (target->elem_type != holds_type) {
        parsed->misplaced_field = field;
        skip_field(wire_type);
        return;
    }
    if (field == FIELD_FLOAT_DATA) {
        if (wire_type == WIRE_FIXED32) {
            read_bytes(claim(parsed, 4), 4);
        } else if (wire_type == WIRE_LENGTH) {
            uint64_t length = read_varint();
            if (length % 4 != 0) fail("packed float_data whose length is not a multiple of 4");
            read_bytes(claim(parsed, length), length);
        } else {
            fail("float_data with the wrong wire type: not a TensorProto");
        }
    } else if (wire_type == WIRE_VARINT) {
        store_integer(parsed, read_varint());
    } else if (wire_type == WIRE_LENGTH) {
        uint64_t length = read_varint();
        uint64_t end = in.offset + length;
        while (in.offset < end) store_integer(parsed, read_varint());
        if (in.offset != end) fail("a packed integer field overruns its length: not a TensorProto");
    } else {
        fail("integer data with the wrong wire type: not a TensorProto");
    }
}

static void read_dims(struct parsed_tensor *parsed, int wire_type) {
    if (wire_type == WIRE_VARINT) {
        add_dim(parsed, (int64_t) read_varint());
    } else if (wire_type == WIRE_LENGTH) {
        uint64_t length = read_varint();
        uint64_t end = in.offset + length;
        while (in.offset < end) add_dim(parsed, (int64_t) read_varint());
        if (in.offset != end) fail("packed dims overrun their length: not a TensorProto");
    } else {
        fail("dims with the wrong wire type: not a TensorProto");
    }
}

static void read_field(struct parsed_tensor *parsed, int field, int wire_type) {
    switch (field) {
    case FIELD_DIMS:
        read_dims(parsed, wire_type);
        break;
    case FIELD_DATA_TYPE:
        if (wire_type != WIRE_VARINT) fail("data_type with the wrong wire type: not a TensorProto");
        parsed->has_data_type = 1;
        parsed->data_type = (int64_t) read_varint();
        break;
    case FIELD_FLOAT_DATA: read_values(parsed, field, wire_type, BYODT_ONNX_FLOAT); break;
    case FIELD_INT32_DATA: read_values(parsed, field, wire_type, BYODT_ONNX_INT32); break;
    case FIELD_INT64_DATA: read_values(parsed, field, wire_type, BYODT_ONNX_INT64); break;
    case FIELD_RAW_DATA: {
        if (wire_type != WIRE_LENGTH) fail("raw_data with the wrong wire type: not a TensorProto");
        uint64_t length = read_varint();
        read_bytes(claim(parsed, length), length);
        break;
    }
    case FIELD_DATA_LOCATION:
        if (wire_type != WIRE_VARINT) fail("data_location with the wrong wire type: not a TensorProto");
        parsed->data_location = (int) read_varint();
        break;
    default:
        /* name, segment, doc_string, external_data, and fields of later ONNX versions */
        skip_field(wire_type);
    }
}

static int same_shape(const struct parsed_tensor *parsed) {
    if (parsed->rank != target->rank) return 0;
    for (int32_t i = 0; i < parsed->rank; i++) {
        if (parsed->dims[i] != target->dims[i]) return 0;
    }
    return 1;
}

static void add_model_tensor(struct byodt_line *line) {
    byodt_line_add(line, "model input '");
    byodt_line_add(line, target->name);
    byodt_line_add(line, "' is ");
    byodt_line_add_type(line, target->elem_type);
    byodt_line_add_shape(line, target->rank, target->dims);
}

static void check_against_model(const struct parsed_tensor *parsed) {
    struct byodt_line line;
    start_error(&line);
    if (parsed->data_location == DATA_LOCATION_EXTERNAL) {
        fail("the tensor's data is in an external file, which this executable does not read");
    }
    if (!parsed->has_data_type) fail("the TensorProto has no data_type");
    if (parsed->data_type != target->elem_type) {
        byodt_line_add(&line, "element type ");
        byodt_line_add_type(&line, (int32_t) parsed->data_type);
        byodt_line_add(&line, " does not match: ");
        add_model_tensor(&line);
        fail_with(&line);
    }
    if (!same_shape(parsed)) {
        byodt_line_add(&line, "shape ");
        byodt_line_add_shape(&line, parsed->rank, parsed->dims);
        byodt_line_add(&line, " does not match: ");
        add_model_tensor(&line);
        fail_with(&line);
    }
    if (parsed->misplaced_field != 0) {
        byodt_line_add(&line, "values in field ");
        byodt_line_add_int(&line, parsed->misplaced_field);
        byodt_line_add(&line, ", which cannot hold ");
        byodt_line_add_type(&line, target->elem_type);
        fail_with(&line);
    }
    if (parsed->bytes_stored != target->byte_size) {
        byodt_line_add(&line, "holds ");
        byodt_line_add_int(&line, (int64_t) parsed->bytes_stored);
        byodt_line_add(&line, " bytes of values, ");
        add_model_tensor(&line);
        byodt_line_add(&line, ", ");
        byodt_line_add_int(&line, (int64_t) target->byte_size);
        byodt_line_add(&line, " bytes");
        fail_with(&line);
    }
}

void byodt_read_tensor(const char *path, const struct byodt_tensor *tensor) {
    current_path = path;
    target = tensor;
    long fd = byodt_sys_openat(BYODT_AT_FDCWD, path, BYODT_O_RDONLY, 0);
    if (fd < 0) fail_system("cannot open the file", fd);
    in.fd = (int) fd;
    in.position = in.length = 0;
    in.offset = 0;

    struct parsed_tensor parsed = {0};
    while (!at_end_of_file()) {
        uint64_t key = read_varint();
        int field = (int) (key >> 3);
        if (field == 0) fail("field number 0: not a TensorProto");
        read_field(&parsed, field, (int) (key & 7));
    }
    byodt_sys_close(in.fd);
    check_against_model(&parsed);
}

/* ---- writing ---- */

static struct {
    int fd;
    unsigned char buffer[1 << 12];
    size_t length;
} out;

static void flush(void) {
    long error = byodt_write_all(out.fd, out.buffer, out.length);
    if (error < 0) fail_system("cannot write the file", error);
    out.length = 0;
}

static void put_byte(unsigned char byte) {
    if (out.length == sizeof out.buffer) flush();
    out.buffer[out.length++] = byte;
}

static void put_varint(uint64_t value) {
    while (value >= 0x80) {
        put_byte((unsigned char) (value | 0x80));
        value >>= 7;
    }
    put_byte((unsigned char) value);
}

static void put_key(int field, int wire_type) {
    put_varint((uint64_t) field << 3 | (uint64_t) wire_type);
}

/* Large runs (the tensor's values) go straight from the model's buffer to the file. */
static void put_bytes(const void *bytes, uint64_t count) {
    if (count <= sizeof out.buffer - out.length) {
        for (uint64_t i = 0; i < count; i++) out.buffer[out.length++] = ((const unsigned char *) bytes)[i];
        return;
    }
    flush();
    long error = byodt_write_all(out.fd, bytes, (size_t) count);
    if (error < 0) fail_system("cannot write the file", error);
}

void byodt_write_tensor(const char *path, const struct byodt_tensor *tensor) {
    current_path = path;
    long fd = byodt_sys_openat(BYODT_AT_FDCWD, path, BYODT_O_WRONLY | BYODT_O_CREAT | BYODT_O_TRUNC, 0644);
    if (fd < 0) fail_system("cannot create the file", fd);
    out.fd = (int) fd;
    out.length = 0;

    /* onnx.proto is proto2, where repeated dims are not packed: one key per dimension. */
    for (int32_t i = 0; i < tensor->rank; i++) {
        put_key(FIELD_DIMS, WIRE_VARINT);
        put_varint((uint64_t) tensor->dims[i]);
    }
    put_key(FIELD_DATA_TYPE, WIRE_VARINT);
    put_varint((uint64_t) tensor->elem_type);
    size_t name_length = byodt_strlen(tensor->name);
    put_key(FIELD_NAME, WIRE_LENGTH);
    put_varint(name_length);
    put_bytes(tensor->name, name_length);
    put_key(FIELD_RAW_DATA, WIRE_LENGTH);
    put_varint(tensor->byte_size);
    put_bytes(tensor->data, tensor->byte_size);
    flush();
    long closed = byodt_sys_close(out.fd);
    if (closed < 0) fail_system("cannot write the file", closed);
}
