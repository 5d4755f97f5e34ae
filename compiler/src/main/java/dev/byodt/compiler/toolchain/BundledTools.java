package dev.byodt.compiler.toolchain;

import dev.byodt.runtime.AtomicFiles;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.TemporaryFolder;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.llvm.global.LLVM;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The clang and ld.lld executables that ship inside bytedeco's LLVM jar, so byodt needs no system compiler.
 *
 * <p>JavaCPP extracts them (with the whole native directory, about 500 MB, once per machine) into its cache,
 * but the executables are linked against {@code libLLVM.so.MAJOR.MINOR} and {@code libclang-cpp.so.MAJOR.MINOR}
 * while the cache holds only {@code libLLVM.so} and {@code libclang-cpp.so}. So a private directory under
 * byodt's cache holds links with the soname-versioned names, and every child process gets it on
 * {@code LD_LIBRARY_PATH}.
 *
 * <p>Compiled bitcode is cached by content: see {@link #compileToBitcode(String, String, String, List)}.
 */
public final class BundledTools {
    /** Flags every C source gets: code that must run without a C library on any target. */
    private static final List<String> FREESTANDING_FLAGS =
        List.of("-O2", "-emit-llvm", "-c", "-ffreestanding", "-fno-builtin", "-nostdlib");

    private static volatile BundledTools shared;

    private final Path clang;
    private final Path lld;
    private final Path libraryLinks;
    private final Path cacheDirectory;
    private volatile String clangVersion;
    /** Locks of the bitcode files being compiled in this JVM, by path. */
    private final Map<Path, Object> compiling = new ConcurrentHashMap<>();

    private BundledTools(Path clang, Path lld, Path libraryLinks, Path cacheDirectory) {
        this.clang = clang;
        this.lld = lld;
        this.libraryLinks = libraryLinks;
        this.cacheDirectory = cacheDirectory;
    }

    /** The tools with byodt's default cache directory ($XDG_CACHE_HOME/byodt or ~/.cache/byodt). */
    public static BundledTools get() {
        BundledTools tools = shared;
        if (tools == null) {
            synchronized (BundledTools.class) {
                if (shared == null) shared = locate(defaultCacheDirectory());
                tools = shared;
            }
        }
        return tools;
    }

    /** The tools, caching compiled bitcode and the library links under {@code cacheDirectory}. */
    public static BundledTools locate(Path cacheDirectory) {
        Path clang = Path.of(Loader.load(org.bytedeco.llvm.program.clang.class));
        // JavaCPP extracts lld under its flavour names beside clang (the jar declares "lld#ld.lld").
        Path lld = clang.resolveSibling("ld.lld");
        if (!Files.isExecutable(clang) || !Files.isExecutable(lld)) {
            throw new ByodtException("the LLVM jar did not provide clang and ld.lld: looked for " + clang + " and " + lld);
        }
        try {
            Path links = linkVersionedLibraries(clang.getParent(), cacheDirectory);
            return new BundledTools(clang, lld, links, cacheDirectory);
        } catch (IOException e) {
            throw new ByodtException("cannot prepare the bundled LLVM tools in " + cacheDirectory + ": " + e.getMessage(), e);
        }
    }

    public static Path defaultCacheDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("byodt");
    }

    public Path clang() { return clang; }

    /** The GNU-flavoured lld driver. */
    public Path lld() { return lld; }

    public Path cacheDirectory() { return cacheDirectory; }

    /** Runs a command (its first element normally {@link #clang()} or {@link #lld()}) in the current directory. */
    public ProcessResult run(List<String> command) {
        return run(command, null);
    }

    /** The first line of {@code clang --version}, e.g. "clang version 20.1.7": part of every bitcode cache key. */
    public String clangVersion() {
        String version = clangVersion;
        if (version == null) {
            ProcessResult result = run(List.of(clang.toString(), "--version"));
            if (!result.succeeded()) {
                throw new ByodtException("the bundled clang does not run: " + result.firstErrorLine());
            }
            version = result.stdout().lines().findFirst().orElse("").strip();
            clangVersion = version;
        }
        return version;
    }

    /**
     * Compiles C source text to LLVM bitcode for {@code targetTriple}, freestanding (no C library, no builtin
     * assumptions), at -O2; {@code extraFlags} come after byodt's flags so they can override them.
     * The result is cached under the cache directory by a SHA-256 of the source, triple, flags and clang version,
     * so an unchanged library compiles once. {@code displayName} names the source in clang's diagnostics
     * (it is the file name clang sees); the source must be self-contained apart from clang's own headers,
     * because included files are not part of the cache key.
     *
     * @return the cached bitcode file (do not modify it)
     * @throws ByodtException with clang's first error line (file:line:column) when the source does not compile
     */
    public Path compileToBitcode(String sourceText, String displayName, String targetTriple, List<String> extraFlags) {
        Path cached = cachedBitcode(sourceText, targetTriple, extraFlags);
        return compileOnce(cached, () -> compileText(cached, sourceText, displayName, targetTriple, extraFlags));
    }

    private void compileText(Path cached, String sourceText, String displayName, String targetTriple, List<String> extraFlags) {
        try (TemporaryFolder work = TemporaryFolder.create(Files.createDirectories(cacheDirectory.resolve("tmp")), "clang-")) {
            Path workDirectory = work.path();
            Path sourceName = sourceFileName(displayName);
            Path sourceFile = workDirectory.resolve(sourceName);
            Files.createDirectories(sourceFile.getParent());
            Files.writeString(sourceFile, sourceText);
            compileInto(cached, sourceName.toString(), displayName, targetTriple, extraFlags, workDirectory);
        } catch (IOException e) {
            throw new ByodtException("cannot compile " + displayName + ": " + e.getMessage(), e);
        }
    }

    /** {@link #compileToBitcode(String, String, String, List)} for a C file; diagnostics name {@code source}. */
    public Path compileToBitcode(Path source, String targetTriple, List<String> extraFlags) {
        String sourceText;
        try {
            sourceText = Files.readString(source);
        } catch (IOException e) {
            throw new ByodtException("cannot read " + source + ": " + e.getMessage(), e);
        }
        Path cached = cachedBitcode(sourceText, targetTriple, extraFlags);
        return compileOnce(cached, () -> {
            try {
                compileInto(cached, source.toString(), source.toString(), targetTriple, extraFlags, null);
            } catch (IOException e) {
                throw new ByodtException("cannot compile " + source + ": " + e.getMessage(), e);
            }
        });
    }

    /**
     * The cached file, compiled by {@code compile} unless it exists. Threads asking for the same file at once
     * (test classes and a model's nodes run concurrently) wait for one compile instead of each running clang.
     */
    private Path compileOnce(Path cached, Runnable compile) {
        if (Files.exists(cached)) return cached;
        Object lock = compiling.computeIfAbsent(cached, path -> new Object());
        try {
            synchronized (lock) {
                if (!Files.exists(cached)) compile.run();
            }
            return cached;
        } finally {
            compiling.remove(cached, lock);
        }
    }

    private void compileInto(Path cached, String sourceArgument, String displayName, String targetTriple,
                             List<String> extraFlags, Path workDirectory) throws IOException {
        AtomicFiles.write(cached, temporary -> {
            List<String> command = new ArrayList<>();
            command.add(clang.toString());
            command.add("--target=" + targetTriple);
            command.addAll(FREESTANDING_FLAGS);
            command.addAll(extraFlags);
            command.addAll(List.of("-x", "c", sourceArgument, "-o", temporary.toString()));
            ProcessResult result = run(command, workDirectory);
            if (!result.succeeded()) {
                throw new ByodtException("clang cannot compile " + displayName + ": " + result.firstErrorLine());
            }
        });
    }

    private Path cachedBitcode(String sourceText, String targetTriple, List<String> extraFlags) {
        StringBuilder key = new StringBuilder();
        // NUL separators keep the parts from running into each other ("a" + "bc" vs "ab" + "c").
        key.append("source\0").append(sourceText).append("\0triple\0").append(targetTriple).append("\0flags");
        for (String flag : FREESTANDING_FLAGS) key.append('\0').append(flag);
        key.append("\0extra");
        for (String flag : extraFlags) key.append('\0').append(flag);
        key.append("\0clang\0").append(clangVersion());
        return cacheDirectory.resolve("bitcode").resolve(sha256(key.toString()) + ".bc");
    }

    /** Runs a command in {@code workDirectory} (the current directory when null). */
    public ProcessResult run(List<String> command, Path workDirectory) {
        ProcessBuilder builder = new ProcessBuilder(command);
        if (workDirectory != null) builder.directory(workDirectory.toFile());
        String inherited = builder.environment().get("LD_LIBRARY_PATH");
        builder.environment().put("LD_LIBRARY_PATH",
            inherited == null || inherited.isEmpty() ? libraryLinks.toString() : libraryLinks + ":" + inherited);
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> stdout = OutputReaders.readAll(process.getInputStream());
            String stderr = OutputReaders.readAll(process.getErrorStream()).join();
            int exitCode = process.waitFor();
            return new ProcessResult(command, exitCode, stdout.join(), stderr);
        } catch (IOException e) {
            throw new ByodtException("cannot run " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ByodtException("interrupted while running " + command.getFirst(), e);
        }
    }

    /**
     * Creates (once) the directory of soname-versioned links to the extracted libraries. It is keyed by the
     * extraction directory, so two LLVM versions never share links; each link is made under a temporary name
     * and renamed into place, so concurrent byodt processes never see a half-made directory.
     */
    private static Path linkVersionedLibraries(Path nativeDirectory, Path cacheDirectory) throws IOException {
        int[] major = new int[1], minor = new int[1], patch = new int[1];
        LLVM.LLVMGetVersion(major, minor, patch);
        String soVersion = major[0] + "." + minor[0];
        String directoryKey = sha256(nativeDirectory.toAbsolutePath().toString()).substring(0, 16);
        Path links = Files.createDirectories(cacheDirectory.resolve("toolchain").resolve("llvm-" + soVersion + "-" + directoryKey));
        for (String library : List.of("libLLVM.so", "libclang-cpp.so")) {
            Path link = links.resolve(library + "." + soVersion);
            Path target = nativeDirectory.resolve(library);
            if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target)) continue;
            Path temporary = links.resolve("." + library + "." + ProcessHandle.current().pid() + ".tmp");
            Files.deleteIfExists(temporary);
            Files.createSymbolicLink(temporary, target);
            Files.move(temporary, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return links;
    }

    /** The relative file name clang compiles, the display name when it is a plain relative path. */
    private static Path sourceFileName(String displayName) {
        Path name = Path.of(displayName).normalize();
        if (name.isAbsolute() || name.startsWith("..")) name = name.getFileName();
        return name == null || name.toString().isEmpty() ? Path.of("source.c") : name;
    }

    static String sha256(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
