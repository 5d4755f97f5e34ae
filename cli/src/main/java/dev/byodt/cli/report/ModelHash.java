package dev.byodt.cli.report;

import dev.byodt.runtime.InputFiles;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The SHA-256 of a model file, which reports record so a result names the exact model it came from. */
public final class ModelHash {
    private ModelHash() {}

    public static String sha256(Path model) { return sha256(InputFiles.readAllBytes(model)); }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
