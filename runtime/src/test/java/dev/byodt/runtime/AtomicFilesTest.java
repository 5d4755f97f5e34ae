package dev.byodt.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AtomicFilesTest {
    @TempDir
    Path dir;

    private List<String> namesIn(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aWriteReplacesTheWholeFileMakesItsFolderAndLeavesNoTemporaries() throws IOException {
        Path file = dir.resolve("out/deeper/results.csv");
        AtomicFiles.writeString(file, "first, a longer line\n");
        AtomicFiles.writeString(file, "second\n");
        assertEquals("second\n", Files.readString(file));
        AtomicFiles.write(file, new byte[] {1, 2, 3});
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(file));
        assertEquals(List.of("results.csv"), namesIn(file.getParent()));
    }

    @Test
    void filesAreReadableByAllAndExecutablesRunnable() throws IOException {
        Path report = dir.resolve("r.json"), program = dir.resolve("model");
        AtomicFiles.writeString(report, "{}");
        AtomicFiles.writeExecutable(program, temporary -> Files.writeString(temporary, "#!/bin/sh\n"));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(report)));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(program)));
    }

    @Test
    void aProducerThatReplacesItsFileByRenameIsKept() throws IOException {
        Path file = dir.resolve("linked");
        AtomicFiles.write(file, temporary -> {
            Path own = Files.writeString(dir.resolve("tool-output"), "linked by a tool");
            Files.move(own, temporary, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        });
        assertEquals("linked by a tool", Files.readString(file));
        assertEquals(List.of("linked"), namesIn(dir));
    }

    @Test
    void aFailingProducerLeavesTheOldFileAndNoTemporary() throws IOException {
        Path file = dir.resolve("model.o");
        AtomicFiles.writeString(file, "old");
        ByodtException fromTool = new ByodtException("cannot link model.o: undefined symbol");
        ByodtException thrown = assertThrows(ByodtException.class, () -> AtomicFiles.write(file, temporary -> {
            Files.writeString(temporary, "half");
            throw fromTool;
        }));
        assertSame(fromTool, thrown, "the producer's own error passes unchanged");
        IOException diskFull = new IOException("No space left on device");
        String message = assertThrows(ByodtException.class, () -> AtomicFiles.write(file, temporary -> {
            throw diskFull;
        })).getMessage();
        assertEquals("cannot write " + file + ": No space left on device", message);
        assertEquals("old", Files.readString(file));
        assertEquals(List.of("model.o"), namesIn(dir));
    }

    @Test
    void placesThatCannotHoldTheFileAreOneLineErrors() throws IOException {
        Path plain = Files.writeString(dir.resolve("plain"), "x");
        String underAFile = assertThrows(ByodtException.class, () -> AtomicFiles.writeString(plain.resolve("r.json"), "{}")).getMessage();
        assertEquals("cannot write " + plain.resolve("r.json") + ": " + plain + " is in the way (not a folder)", underAFile);
        Path folder = Files.createDirectory(dir.resolve("out"));
        String onAFolder = assertThrows(ByodtException.class, () -> AtomicFiles.writeString(folder, "{}")).getMessage();
        assertEquals("cannot write " + folder + ": it is a folder", onAFolder);
        assertTrue(Files.isDirectory(folder));
    }
}
