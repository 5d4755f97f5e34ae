package dev.byodt.compiler.conformance;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.NamedTensor;
import dev.byodt.runtime.Tensor;
import dev.byodt.runtime.TensorProtos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestDataSourceTest {
    @TempDir
    Path dir;

    void writeSet(String name, float... values) throws IOException {
        Path set = Files.createDirectories(dir.resolve(name));
        TensorProtos.write(set.resolve("input_0.pb"), new NamedTensor("x", Tensor.ofFloats(new long[] {1, values.length}, values)));
    }

    @Test
    void eachDataSetIsOneWholeInput() throws IOException {
        writeSet("test_data_set_0", 1, 2, 3);
        writeSet("test_data_set_1", 4, 5, 6);
        TestDataSource source = TestDataSource.open(dir);
        assertEquals(2, source.size());
        assertArrayEquals(new long[] {1, 3}, source.itemShape());
        assertFalse(source.hasLabels());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment item = arena.allocate(12);
            source.readItem(1, item);
            assertArrayEquals(new float[] {4, 5, 6}, item.toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    @Test
    void setsOfDifferentShapesAreAnError() throws IOException {
        writeSet("test_data_set_0", 1, 2, 3);
        writeSet("test_data_set_1", 4, 5);
        String message = assertThrows(ByodtException.class, () -> TestDataSource.open(dir)).getMessage();
        assertTrue(message.contains("test_data_set_1") && message.contains("1x2") && message.contains("1x3"), message);
    }
}
