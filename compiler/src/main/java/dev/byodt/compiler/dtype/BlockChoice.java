package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Which MatMul, Gemm and Conv nodes compute their dot products in a block datatype, and how the blocks' results
 * are summed: --dtype's block datatype for every node, unless a --dtype-map entry matches the node first (its
 * block datatype, or none when it names a scalar datatype: the first match wins, as for scalar datatypes).
 *
 * @param everywhere   --dtype when it names a block datatype, else empty
 * @param map          every --dtype-map entry, in order, block and scalar datatypes alike
 * @param accumulation how each dot product adds its blocks' results
 */
public record BlockChoice(Optional<BlockDatatypeName> everywhere, List<DatatypeChoice.Override> map, Accumulation accumulation) {
    /**
     * How the blocks' results are added: each block's exact sum of products times both scales, rounded once to
     * float32, then added from +0 in the order of the blocks in float32 (the default) or, converted to it, in the
     * vector datatype (--accumulate dtype); or every block's exact sum times its scales added exactly across the
     * whole reduction and rounded once to float32 (--accumulate exact).
     */
    public enum Accumulation {
        FLOAT32, DTYPE, EXACT;

        /** What --accumulate says: float32 or dtype. */
        public String optionName() { return name().toLowerCase(Locale.ROOT); }

        public static Accumulation parse(String text) {
            for (Accumulation a : values()) {
                if (a.optionName().equals(text)) return a;
            }
            throw new ByodtException("--accumulate " + text + ": a block datatype's dot products add their blocks' results in float32 "
                + "(the default), dtype (the vector datatype) or exact (rounded once)");
        }
    }

    public BlockChoice {
        map = List.copyOf(map);
    }

    /** No block datatype anywhere. */
    public static BlockChoice none() { return new BlockChoice(Optional.empty(), List.of(), Accumulation.FLOAT32); }

    /** {@code block} for every dot product, its blocks added in float32. */
    public static BlockChoice everywhere(Optional<BlockDatatypeName> block) { return new BlockChoice(block, List.of(), Accumulation.FLOAT32); }

    /** The block datatype of the node named {@code node} with these outputs, or empty when it computes in a scalar datatype. */
    public Optional<BlockDatatypeName> forNode(String node, List<String> outputs) {
        for (DatatypeChoice.Override o : map) {
            if (o.matches(node) || outputs.stream().anyMatch(o::matches)) return DatatypeName.parseBlock(o.datatype());
        }
        return everywhere;
    }

    /** Whether any node may compute in a block datatype. */
    public boolean any() { return everywhere.isPresent() || !blockNames().isEmpty(); }

    /** The block datatypes named, --dtype's first, then --dtype-map's in order. */
    public List<BlockDatatypeName> blockNames() {
        return Stream.concat(everywhere.stream(), map.stream().flatMap(o -> DatatypeName.parseBlock(o.datatype()).stream()))
            .distinct().toList();
    }
}
