package dev.byodt.cli;

import dev.byodt.runtime.Tensor;

/** The first few elements of a tensor, for printing a result on the terminal. */
final class Preview {
    private static final int SHOWN = 10;

    private Preview() {}

    static String of(Tensor t) {
        StringBuilder sb = new StringBuilder("[");
        long n = Math.min(SHOWN, t.elementCount());
        for (long i = 0; i < n; i++) {
            if (i > 0) sb.append(", ");
            sb.append(element(t, i));
        }
        if (t.elementCount() > n) sb.append(", ... (").append(t.elementCount()).append(" elements)");
        return sb.append(']').toString();
    }

    private static String element(Tensor t, long i) {
        return switch (t.type()) {
            case BOOL -> t.getLong(i) != 0 ? "true" : "false";
            case UINT64 -> Long.toUnsignedString(t.getLong(i));
            case DOUBLE -> Double.toString(t.getDouble(i));
            default -> t.type().isInteger() ? Long.toString(t.getLong(i)) : Float.toString(t.getFloat(i));
        };
    }
}
