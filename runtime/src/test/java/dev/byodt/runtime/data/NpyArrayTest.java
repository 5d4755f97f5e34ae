package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NpyArrayTest {
    @TempDir
    Path dir;

    /** A .npy file as NumPy writes it: header padded with spaces and ended by a newline to a multiple of 64. */
    static byte[] npy(int major, String header, byte[] data) {
        int prefix = major == 1 ? 10 : 12;
        StringBuilder text = new StringBuilder(header);
        while ((prefix + text.length() + 1) % 64 != 0) text.append(' ');
        text.append('\n');
        byte[] headerBytes = text.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(prefix + headerBytes.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) major).put((byte) 0);
        if (major == 1) out.putShort((short) headerBytes.length);
        else out.putInt(headerBytes.length);
        return out.put(headerBytes).put(data).array();
    }

    static byte[] floats(float... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) b.putFloat(v);
        return b.array();
    }

    static byte[] longs(long... values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) b.putLong(v);
        return b.array();
    }

    Path write(String name, byte[] bytes) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, bytes);
        return file;
    }

    @Test
    void readsFloat32InVersion1() throws IOException {
        Path file = write("a.npy", npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", floats(1, 2, 3, 4, 5, -6.5f)));
        NpyArray a = NpyArray.read(file);
        assertEquals(NpyArray.Kind.FLOAT32, a.kind());
        assertArrayEquals(new long[] {2, 3}, a.shape());
        assertEquals(-6.5, a.get(5));
        assertEquals(2.0, a.get(1));
    }

    @Test
    void readsFloat64Int64AndUint8InVersions2And3() throws IOException {
        ByteBuffer doubles = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putDouble(0.1).putDouble(-2);
        NpyArray d = NpyArray.read(write("d.npy", npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", doubles.array())));
        assertEquals(0.1, d.get(0));
        NpyArray l = NpyArray.read(write("l.npy", npy(3, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", longs(7, -1, 1L << 40))));
        assertEquals(1L << 40, l.getLong(2));
        assertEquals(-1, l.getLong(1));
        NpyArray u = NpyArray.read(write("u.npy", npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }", new byte[] {(byte) 255, 3})));
        assertEquals(255, u.getLong(0));
        assertEquals(3.0, u.get(1));
        assertTrue(u.kind().isInteger());
    }

    @Test
    void refusesWhatItCannotRead() throws IOException {
        Path big = write("big.npy", npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", floats(1)));
        assertTrue(assertThrows(ByodtException.class, () -> NpyArray.read(big)).getMessage().contains("big-endian"));
        Path fortran = write("f.npy", npy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }", floats(1)));
        assertTrue(assertThrows(ByodtException.class, () -> NpyArray.read(fortran)).getMessage().contains("Fortran order"));
        Path half = write("h.npy", npy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", new byte[2]));
        assertTrue(assertThrows(ByodtException.class, () -> NpyArray.read(half)).getMessage().contains("'<f2'"));
        Path truncated = write("t.npy", npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", floats(1, 2)));
        String message = assertThrows(ByodtException.class, () -> NpyArray.read(truncated)).getMessage();
        assertTrue(message.contains("truncated") && message.contains("t.npy"), message);
        Path text = write("x.npy", "not numpy at all".getBytes(StandardCharsets.US_ASCII));
        assertTrue(assertThrows(ByodtException.class, () -> NpyArray.read(text)).getMessage().contains("not a NumPy"));
    }

    @Test
    void npySourceSplitsTheBatchAndChecksLabels() throws IOException {
        Path data = write("x.npy", npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 1, 2), }", new byte[] {0, 1, 2, 3, 4, (byte) 200}));
        Path labels = write("y.npy", npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", longs(2, 0, 1)));
        NpySource source = NpySource.open(data, labels);
        assertArrayEquals(new long[] {1, 2}, source.itemShape());
        assertEquals(3, source.size());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment item = arena.allocate(8);
            source.readItem(2, item);
            assertEquals(4f, item.getAtIndex(ValueLayout.JAVA_FLOAT, 0));
            assertEquals(200f, item.getAtIndex(ValueLayout.JAVA_FLOAT, 1));
        }
        assertEquals(1, source.label(2));
        source.requireLabelsBelow(3);
        String outOfRange = assertThrows(ByodtException.class, () -> source.requireLabelsBelow(2)).getMessage();
        assertTrue(outOfRange.contains("item 0 has label 2") && outOfRange.contains("x.npy"), outOfRange);
        assertFalse(NpySource.open(data, null).hasLabels());

        Path twoLabels = write("y2.npy", npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", longs(0, 1)));
        assertTrue(assertThrows(ByodtException.class, () -> NpySource.open(data, twoLabels)).getMessage().contains("needs 3 labels"));
        Path empty = write("e.npy", npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", new byte[0]));
        assertTrue(assertThrows(ByodtException.class, () -> NpySource.open(empty, null)).getMessage().contains("e.npy holds no items"));
    }
}
