package dev.byodt.runtime.data;

import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.InputFiles;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * PNG and JPEG images, preprocessed as {@link ImagePreprocessing} documents, decoded when an item is read.
 * Where they come from, and their labels:
 * <ul>
 *   <li>a single image file: one unlabeled item;</li>
 *   <li>a folder with a labels file: exactly the images the file lists, in its order, one per line as
 *       {@code PATH LABEL} (PATH relative to the folder, separated by whitespace or a comma; blank lines
 *       and lines starting with # are skipped);</li>
 *   <li>a folder of class folders: every image in each class folder; when all class folder names are
 *       integers they are the labels, otherwise the labels are the folders' positions in name order
 *       (as torchvision's ImageFolder numbers them);</li>
 *   <li>a folder of images: every image, by name, unlabeled.</li>
 * </ul>
 */
public final class ImageFolderSource implements DataSource {
    private final List<Path> files;
    private final int[] labels;
    private final ImagePreprocessing preprocessing;
    private final String description;

    private ImageFolderSource(List<Path> files, int[] labels, ImagePreprocessing preprocessing, String layout) {
        this.files = List.copyOf(files);
        this.labels = labels;
        this.preprocessing = preprocessing;
        this.description = layout + " (" + files.size() + " images to " + preprocessing.describe() + ")";
    }

    /** Images at {@code path} (a file or a folder), labelled by {@code labelsFile} when it is not null. */
    public static ImageFolderSource open(Path path, Path labelsFile, ImagePreprocessing preprocessing) {
        if (Files.isRegularFile(path)) {
            if (labelsFile != null) throw new ByodtException("a labels file goes with a folder of images, not the single image " + path);
            return new ImageFolderSource(List.of(path), null, preprocessing, "image " + path);
        }
        if (!Files.isDirectory(path)) throw new ByodtException("no such image file or folder: " + path);
        if (labelsFile != null) return fromLabelsFile(path, labelsFile, preprocessing);
        List<Path> classFolders = list(path).stream().filter(Files::isDirectory).toList();
        List<Path> looseImages = images(path);
        if (classFolders.isEmpty()) {
            if (looseImages.isEmpty()) throw new ByodtException(path + " holds no PNG or JPEG images");
            return new ImageFolderSource(looseImages, null, preprocessing, "images in " + path + ", unlabeled");
        }
        if (!looseImages.isEmpty()) {
            throw new ByodtException(path + " holds class folders and also images beside them, such as " + looseImages.get(0).getFileName());
        }
        return fromClassFolders(path, classFolders, preprocessing);
    }

    private static ImageFolderSource fromClassFolders(Path root, List<Path> classFolders, ImagePreprocessing preprocessing) {
        boolean numbered = classFolders.stream().allMatch(f -> f.getFileName().toString().matches("\\d{1,9}"));
        List<Path> files = new ArrayList<>();
        List<Integer> labels = new ArrayList<>();
        for (int position = 0; position < classFolders.size(); position++) {
            Path folder = classFolders.get(position);
            int label = numbered ? Integer.parseInt(folder.getFileName().toString()) : position;
            for (Path image : images(folder)) {
                files.add(image);
                labels.add(label);
            }
        }
        if (files.isEmpty()) throw new ByodtException(root + " has class folders but no PNG or JPEG images in them");
        String naming = numbered ? "labels from folder numbers" : "labels from folder name order";
        return new ImageFolderSource(files, labels.stream().mapToInt(Integer::intValue).toArray(), preprocessing,
            "images in class folders of " + root + ", " + naming);
    }

    private static ImageFolderSource fromLabelsFile(Path root, Path labelsFile, ImagePreprocessing preprocessing) {
        List<String> lines;
        try {
            lines = new String(InputFiles.readAllBytes(labelsFile), StandardCharsets.UTF_8).lines().toList();
        } catch (IllegalArgumentException e) {
            throw new ByodtException(labelsFile + " is not UTF-8 text");
        }
        List<Path> files = new ArrayList<>();
        List<Integer> labels = new ArrayList<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String where = labelsFile + " line " + (n + 1);
            int split = Math.max(line.lastIndexOf(','), Math.max(line.lastIndexOf(' '), line.lastIndexOf('\t')));
            if (split <= 0) throw new ByodtException(where + ": expected 'PATH LABEL', found '" + line + "'");
            String name = line.substring(0, split).strip();
            int label;
            try {
                label = Integer.parseInt(line.substring(split + 1).strip());
            } catch (NumberFormatException e) {
                throw new ByodtException(where + ": the label '" + line.substring(split + 1).strip() + "' is not an integer");
            }
            if (label < 0) throw new ByodtException(where + ": the label " + label + " is negative");
            Path image = root.resolve(name);
            if (!Files.isRegularFile(image)) throw new ByodtException(where + ": no such image " + image);
            files.add(image);
            labels.add(label);
        }
        if (files.isEmpty()) throw new ByodtException(labelsFile + " lists no images");
        return new ImageFolderSource(files, labels.stream().mapToInt(Integer::intValue).toArray(), preprocessing,
            "images in " + root + ", labels " + labelsFile);
    }

    private static List<Path> images(Path folder) {
        return list(folder).stream().filter(ImageFolderSource::isImage).toList();
    }

    private static boolean isImage(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return Files.isRegularFile(file) && (name.endsWith(".png") || name.endsWith(".jpg") || name.endsWith(".jpeg"));
    }

    private static List<Path> list(Path folder) {
        try (Stream<Path> entries = Files.list(folder)) {
            return entries.sorted().toList();
        } catch (IOException e) {
            throw new ByodtException("cannot list the folder " + folder + " (" + e.getMessage() + ")");
        }
    }

    @Override
    public String description() { return description; }

    @Override
    public long[] itemShape() { return new long[] {preprocessing.channels(), preprocessing.height(), preprocessing.width()}; }

    @Override
    public int size() { return files.size(); }

    @Override
    public void readItem(int index, MemorySegment target) {
        float[] item = preprocessing.read(files.get(index));
        MemorySegment.copy(item, 0, target, ValueLayout.JAVA_FLOAT, 0, item.length);
    }

    @Override
    public boolean hasLabels() { return labels != null; }

    @Override
    public int label(int index) { return labels[index]; }
}
