package dev.byodt.cli.sweep;

import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of n parts of a sweep (--shard i/n), numbered from 1 as CI matrix indices usually are: shard i of n
 * takes the configurations at positions i-1, i-1+n, i-1+2n, ... of the full sweep. Dealing them out in turn
 * (rather than in blocks) spreads each datatype family, and so the work, evenly over the shards; every
 * configuration lands in exactly one shard, and the same sweep always splits the same way.
 */
public record Shard(int index, int count) {
    private static final Pattern SPEC = Pattern.compile("(\\d{1,6})/(\\d{1,6})");

    public static final Shard WHOLE = new Shard(1, 1);

    public Shard {
        if (count < 1 || index < 1 || index > count) throw new ByodtException("--shard " + index + "/" + count + ": expected i/n with 1 <= i <= n");
    }

    public static Shard parse(String spec) {
        Matcher m = SPEC.matcher(spec.strip());
        if (!m.matches()) throw new ByodtException("--shard '" + spec + "': expected i/n, such as 2/4 (shards count from 1)");
        return new Shard(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }

    public <T> List<T> select(List<T> all) {
        List<T> mine = new ArrayList<>();
        for (int p = index - 1; p < all.size(); p += count) mine.add(all.get(p));
        return mine;
    }

    @Override
    public String toString() { return index + "/" + count; }
}
