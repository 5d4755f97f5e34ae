package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;

import java.util.Map;

/**
 * Where a temporary of a {@link Program} lives when it has no bytes of its own: its elements are those of
 * {@code whole} from element {@code offset} on, so that a kernel writing it writes into {@code whole}
 * ({@link ConcatsInPlace}). The two have one element type.
 */
public record Slice(Buffer whole, long offset) {
    public Slice {
        if (offset < 0) throw new IllegalArgumentException("a slice of " + whole + " at element " + offset);
    }

    /** Where {@code b}'s elements are in the buffer that holds it and is none of {@code slices} (itself, at 0, if it is none). */
    public static Slice outermost(Buffer b, Map<Buffer, Slice> slices) {
        long offset = 0;
        for (; slices.containsKey(b); b = slices.get(b).whole()) offset += slices.get(b).offset();
        return new Slice(b, offset);
    }
}
