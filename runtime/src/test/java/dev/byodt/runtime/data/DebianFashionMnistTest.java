package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The tests that read the full test set (IdxReaderTest, LeNetAccuracyTest) find it through DebianFashionMnist,
 * so that where the package is missing they fail with this one line naming it, not with a missing IDX file.
 */
class DebianFashionMnistTest {
    @Test
    void aMissingFolderNamesThePackageToInstall(@TempDir Path dir) {
        Path missing = dir.resolve("fashion-mnist");
        ByodtException e = assertThrows(ByodtException.class, () -> DebianFashionMnist.folder(missing));
        assertEquals(missing + " not found: install Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist)",
            e.getMessage());
    }

    @Test
    void anExistingFolderIsReturned(@TempDir Path dir) {
        assertEquals(dir, DebianFashionMnist.folder(dir));
    }
}
