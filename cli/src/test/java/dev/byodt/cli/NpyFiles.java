package dev.byodt.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/** Writes small NumPy .npy files (format version 1.0) for command-line tests. */
final class NpyFiles {
    private NpyFiles() {}

    static Path floats(Path file, long[] shape, float[] values) throws IOException {
        ByteBuffer data = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) data.putFloat(v);
        return write(file, "<f4", shape, data.array());
    }

    static Path longs(Path file, long... values) throws IOException {
        return longs(file, new long[] {values.length}, values);
    }

    static Path longs(Path file, long[] shape, long[] values) throws IOException {
        ByteBuffer data = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) data.putLong(v);
        return write(file, "<i8", shape, data.array());
    }

    private static Path write(Path file, String descr, long[] shape, byte[] data) throws IOException {
        String dims = Arrays.stream(shape).mapToObj(Long::toString).collect(Collectors.joining(", ")) + (shape.length == 1 ? "," : "");
        StringBuilder header = new StringBuilder("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }");
        while ((10 + header.length() + 1) % 64 != 0) header.append(' ');
        header.append('\n');
        byte[] h = header.toString().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer out = ByteBuffer.allocate(10 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) h.length).put(h).put(data);
        return Files.write(file, out.array());
    }
}
