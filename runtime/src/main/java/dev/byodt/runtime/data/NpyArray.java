package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.InputFiles;
import dev.byodt.runtime.MemoryLimit;
import dev.byodt.runtime.Shapes;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A NumPy {@code .npy} array read into memory. The format (NumPy's "format.py", versions 1.0, 2.0 and 3.0):
 * the magic bytes {@code \x93NUMPY}, a major and minor version byte, the header length as a little-endian
 * uint16 (version 1) or uint32 (versions 2 and 3), then the header, a Python dict literal such as
 * {@code {'descr': '<f4', 'fortran_order': False, 'shape': (10, 1, 28, 28), }} in ASCII (UTF-8 in version 3),
 * then the elements. byodt reads little-endian float32, float64, int64 and uint8 arrays in C order.
 */
public final class NpyArray {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Pattern DESCR = Pattern.compile("['\"]descr['\"]\\s*:\\s*['\"]([^'\"]*)['\"]");
    private static final Pattern FORTRAN = Pattern.compile("['\"]fortran_order['\"]\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("['\"]shape['\"]\\s*:\\s*\\(([^)]*)\\)");

    /** The element types byodt reads, by their NumPy type string (byte order stripped). */
    public enum Kind {
        FLOAT32("f4", 4), FLOAT64("f8", 8), INT64("i8", 8), UINT8("u1", 1);

        private final String code;
        private final int byteSize;

        Kind(String code, int byteSize) {
            this.code = code;
            this.byteSize = byteSize;
        }

        public boolean isInteger() { return this == INT64 || this == UINT8; }
    }

    private final Path file;
    private final Kind kind;
    private final long[] shape;
    private final ByteBuffer elements;

    private NpyArray(Path file, Kind kind, long[] shape, ByteBuffer elements) {
        this.file = file;
        this.kind = kind;
        this.shape = shape;
        this.elements = elements;
    }

    public static NpyArray read(Path file) {
        ByteBuffer bytes = ByteBuffer.wrap(InputFiles.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.remaining() < MAGIC.length + 4 || !Arrays.equals(Arrays.copyOf(bytes.array(), MAGIC.length), MAGIC)) {
            throw new ByodtException(file + " is not a NumPy .npy file (no \\x93NUMPY magic)");
        }
        bytes.position(MAGIC.length);
        int major = bytes.get() & 0xFF;
        bytes.get();
        long headerLength = switch (major) {
            case 1 -> bytes.getShort() & 0xFFFF;
            case 2, 3 -> bytes.remaining() >= 4 ? bytes.getInt() & 0xFFFFFFFFL : -1;
            default -> throw new ByodtException(file + " is .npy format version " + major + ", byodt reads versions 1 to 3");
        };
        if (headerLength < 0 || headerLength > bytes.remaining()) throw new ByodtException(file + " is truncated inside its .npy header");
        byte[] headerBytes = new byte[(int) headerLength];
        bytes.get(headerBytes);
        String header = new String(headerBytes, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Kind kind = kind(file, field(file, header, DESCR, "descr"));
        if (field(file, header, FORTRAN, "fortran_order").equals("True")) {
            throw new ByodtException(file + " is stored in Fortran order; save it in C order (numpy.ascontiguousarray)");
        }
        long[] shape = shape(file, field(file, header, SHAPE, "shape"));
        long dataBytes = MemoryLimit.requireTensor(shape, kind.byteSize, file.toString());
        if (bytes.remaining() < dataBytes) {
            throw new ByodtException(file + " is truncated: shape (" + Shapes.format(shape) + ") needs " + dataBytes
                + " bytes of data but the file has " + bytes.remaining());
        }
        return new NpyArray(file, kind, shape, bytes.slice().order(ByteOrder.LITTLE_ENDIAN));
    }

    public Path file() { return file; }

    public Kind kind() { return kind; }

    public long[] shape() { return shape.clone(); }

    /** Element {@code i} (row-major) as a double, which holds every float32, uint8 and int64 below 2^53 exactly. */
    public double get(long i) {
        int at = Math.toIntExact(i * kind.byteSize);
        return switch (kind) {
            case FLOAT32 -> elements.getFloat(at);
            case FLOAT64 -> elements.getDouble(at);
            case INT64 -> elements.getLong(at);
            case UINT8 -> elements.get(at) & 0xFF;
        };
    }

    /** Element {@code i} of an integer array. */
    public long getLong(long i) {
        int at = Math.toIntExact(i * kind.byteSize);
        return switch (kind) {
            case INT64 -> elements.getLong(at);
            case UINT8 -> elements.get(at) & 0xFF;
            case FLOAT32, FLOAT64 -> throw new IllegalStateException(file + " holds floating-point values");
        };
    }

    private static String field(Path file, String header, Pattern pattern, String key) {
        Matcher m = pattern.matcher(header);
        if (!m.find()) throw new ByodtException(file + ": the .npy header has no readable '" + key + "' entry: " + header.strip());
        return m.group(1);
    }

    private static Kind kind(Path file, String descr) {
        if (descr.length() == 3 && (descr.charAt(0) == '<' || descr.charAt(0) == '|')) {
            for (Kind k : Kind.values()) {
                if (k.code.equals(descr.substring(1))) return k;
            }
        }
        if (descr.startsWith(">")) throw new ByodtException(file + " holds big-endian data ('" + descr + "'); byodt reads little-endian .npy files");
        throw new ByodtException(file + " holds '" + descr + "' elements; byodt reads float32, float64, int64 and uint8 (<f4, <f8, <i8, |u1)");
    }

    private static long[] shape(Path file, String tuple) {
        String[] parts = tuple.split(",");
        int rank = parts.length;
        if (rank > 0 && parts[rank - 1].isBlank()) rank--;
        long[] shape = new long[rank];
        for (int d = 0; d < rank; d++) {
            try {
                shape[d] = Long.parseLong(parts[d].strip());
            } catch (NumberFormatException e) {
                throw new ByodtException(file + ": the .npy shape (" + tuple + ") is not a tuple of sizes");
            }
        }
        return shape;
    }
}
