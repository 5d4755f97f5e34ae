package dev.byodt.runtime;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * How much memory one tensor, constant, buffer or file may take, checked before anything is allocated, read
 * or folded: a model or data file that asks for more gets a one-line error naming the tensor and its size
 * instead of an OutOfMemoryError, or of being killed by the system half-way through.
 *
 * <p>The limit is the machine's memory unless {@code --max-memory} lowers it. What byodt holds in its own
 * process (weights, folded constants, decoded data) is further bounded by the JVM's off-heap allowance,
 * which defaults to its heap size.
 */
public final class MemoryLimit {
    private static final double KIB = 1024.0;
    private static volatile long chosen = 0;

    private MemoryLimit() {}

    /** The limit for the model's own buffers at run time: the machine's memory, or --max-memory. */
    public static long bytes() {
        long limit = chosen;
        return limit > 0 ? limit : Machine.MEMORY;
    }

    /** The limit for a tensor byodt allocates in its own process. */
    public static long inProcessBytes() {
        return Math.min(bytes(), Runtime.getRuntime().maxMemory());
    }

    /** Lowers (or raises) the limit for the rest of this command; 0 restores the machine's memory. */
    public static void set(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("negative memory limit " + bytes);
        chosen = bytes;
    }

    /**
     * The bytes of a tensor of this shape, checked against the in-process limit without overflowing.
     *
     * @param what how the error names the tensor: "initializer 'w' of model.onnx", "output 'y' of Add node 'a'"
     */
    public static long requireTensor(long[] shape, int elementBytes, String what) {
        return require(shape, elementBytes, what, inProcessBytes());
    }

    /** The bytes of a buffer of compiled code (an input, output or intermediate), checked against {@link #bytes()}. */
    public static long requireBuffer(long[] shape, int elementBytes, String what) {
        return require(shape, elementBytes, what, bytes());
    }

    private static long require(long[] shape, int elementBytes, String what, long limit) {
        long bytes = elementBytes;
        for (long d : shape) {
            if (d < 0) throw new ByodtException(what + " has a negative dimension in shape " + Shapes.format(shape));
            try {
                bytes = Math.multiplyExact(bytes, d);
            } catch (ArithmeticException e) {
                throw new ByodtException(what + " of shape " + Shapes.format(shape) + " has more bytes than 64 bits count");
            }
        }
        require(bytes, what + " of shape " + Shapes.format(shape), limit);
        return bytes;
    }

    /** Checks that {@code bytes} fit the in-process limit; {@code what} names what needs them. */
    public static void requireBytes(long bytes, String what) {
        require(bytes, what, inProcessBytes());
    }

    private static void require(long bytes, String what, long limit) {
        if (bytes > limit) {
            throw new ByodtException(what + " needs " + format(bytes) + ", more than the memory limit of " + format(limit)
                + (chosen > 0 ? " (--max-memory)" : " (what this machine leaves byodt; see --max-memory)"));
        }
    }

    /** "1.5 GiB", "512 B": sizes as the errors show them. */
    public static String format(long bytes) {
        if (bytes < 1024) return bytes + " B";
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes / KIB;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /**
     * Parses a size as users write it: a number of bytes, or with a suffix K, M, G or T (powers of 1024,
     * an optional trailing "B" or "iB").
     *
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public static long parse(String text) {
        String s = text.strip().toUpperCase(Locale.ROOT);
        if (s.endsWith("IB")) s = s.substring(0, s.length() - 2);
        else if (s.endsWith("B")) s = s.substring(0, s.length() - 1);
        int shift = 0;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                case 'T' -> shift = 40;
                default -> { }
            }
        }
        if (shift > 0) s = s.substring(0, s.length() - 1);
        if (!s.matches("[0-9]{1,15}")) throw new IllegalArgumentException("not a size (examples: 4G, 512M, 1000000)");
        long value = Long.parseLong(s);
        if (value == 0) throw new IllegalArgumentException("a memory limit must be more than 0");
        if (value > (Long.MAX_VALUE >> shift)) throw new IllegalArgumentException("too large a size");
        return value << shift;
    }

    /**
     * The machine's memory, asked once: the JDK reads the container's control-group files for it on every call,
     * 0.1 to 0.7 ms, which every tensor allocated (each output of each inference) paid.
     */
    private static final class Machine {
        static final long MEMORY = physicalMemory();

        private static long physicalMemory() {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                return os.getTotalMemorySize();
            }
            return Runtime.getRuntime().maxMemory();
        }
    }
}
