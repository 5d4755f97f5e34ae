package dev.byodt.cli.sweep;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The configurations of a sweep: every datatype crossed with every accumulation mode and every rounding
 * mode, in that nesting (datatype slowest, rounding fastest), numbered in that order.
 */
public final class SweepPlan {
    private SweepPlan() {}

    public static List<SweepPoint> cross(List<String> dtypes, List<String> accumulates, List<String> roundings) {
        List<SweepPoint> points = new ArrayList<>();
        for (String dtype : dtypes) {
            for (String accumulate : accumulates) {
                for (String rounding : roundings) points.add(new SweepPoint(points.size(), dtype, accumulate, rounding));
            }
        }
        return List.copyOf(points);
    }

    /**
     * The modes of {@code --accumulate float32,exact,fused:F=13,G=32,int:24}, each as --accumulate takes it and
     * checked by parsing it; a KEY=VALUE piece continues the fused mode before it (fused parameters are
     * comma-separated too). Repeats are dropped.
     */
    public static List<String> accumulations(String list) {
        List<String> modes = new ArrayList<>();
        for (String value : list.split(",", -1)) {
            String v = value.strip();
            if (v.isEmpty()) throw new ByodtException("--accumulate '" + list + "' has an empty entry");
            boolean parameter = !v.contains(":") && v.contains("=");
            if (parameter && (modes.isEmpty() || !modes.getLast().startsWith("fused:"))) {
                throw new ByodtException("--accumulate: '" + v + "' is a parameter of no fused: mode");
            }
            if (parameter) modes.set(modes.size() - 1, modes.getLast() + "," + v);
            else modes.add(v);
        }
        for (String mode : modes) AccumulationMode.parse(mode);
        return List.copyOf(new LinkedHashSet<>(modes));
    }

    /**
     * The values of a comma-separated list option such as {@code --rounding nearest,truncate}, each checked
     * against {@code allowed}; repeats are dropped.
     */
    public static List<String> choices(String option, String list, Collection<String> allowed) {
        Set<String> values = new LinkedHashSet<>();
        for (String value : list.split(",", -1)) {
            String v = value.strip();
            if (v.isEmpty()) throw new ByodtException(option + " '" + list + "' has an empty entry");
            if (!allowed.contains(v)) throw new ByodtException(option + ": '" + v + "' is not one of " + String.join(", ", allowed));
            values.add(v);
        }
        return List.copyOf(values);
    }
}
