package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The full Fashion-MNIST test set (10,000 images in IDX files) as Debian's dataset-fashion-mnist installs it.
 * Where the package is missing, asking for it is one line naming the package to install.
 */
public final class DebianFashionMnist {
    /** Where dataset-fashion-mnist puts its IDX files. */
    public static final Path FOLDER = Path.of("/usr/share/datasets/fashion-mnist");

    private DebianFashionMnist() {}

    /** {@link #FOLDER}, once it is known to exist. */
    public static Path folder() { return folder(FOLDER); }

    /**
     * {@code folder}, the place the package's files are looked for, once it is known to exist.
     *
     * @throws ByodtException naming the package when it does not
     */
    public static Path folder(Path folder) {
        if (!Files.isDirectory(folder)) {
            throw new ByodtException(folder + " not found: install Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist)");
        }
        return folder;
    }
}
