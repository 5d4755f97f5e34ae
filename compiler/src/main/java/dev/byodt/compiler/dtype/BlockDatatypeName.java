package dev.byodt.compiler.dtype;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A block datatype as users write it: blocks of {@code blockSize} values of the element datatype share one
 * value of the scale datatype, chosen by {@code rule}, optionally under a float32 scale for the whole tensor.
 * {@link DatatypeName#parseBlock} parses the spellings: a built-in name, or block[ELEMENT,SIZE,SCALE,RULE[,tensor]].
 */
public record BlockDatatypeName(DatatypeName element, int blockSize, DatatypeName scale, ScaleRule rule, boolean tensorScale) {
    static final String PREFIX = "block[";
    static final String TENSOR_SCALE = "tensor";

    /**
     * The built-in block datatypes: the OCP Microscaling formats v1.0 (32 elements under an E8M0 scale, the
     * spec's floor rule; MXINT8's elements are int8 with 6 fraction bits, fxp8_6) and NVIDIA's NVFP4 (16 FP4
     * elements under a UE4M3 scale rounded to nearest, under a float32 tensor scale).
     */
    public static Map<String, BlockDatatypeName> builtIns() { return BuiltIns.NAMES; }

    /** Built when first asked for, as they are spelled with DatatypeName, whose messages list them. */
    private static final class BuiltIns {
        static final Map<String, BlockDatatypeName> NAMES = Collections.unmodifiableMap(names());
    }

    private static Map<String, BlockDatatypeName> names() {
        Map<String, BlockDatatypeName> names = new LinkedHashMap<>();
        names.put("mxfp8e4m3", mx("custom[fp8e4m3]8"));
        names.put("mxfp8e5m2", mx("custom[fp8e5m2]8"));
        names.put("mxfp6e3m2", mx("custom[fp6e3m2]6"));
        names.put("mxfp6e2m3", mx("custom[fp6e2m3]6"));
        names.put("mxfp4", mx("custom[fp4e2m1]4"));
        names.put("mxint8", mx("fxp8_6"));
        names.put("nvfp4", new BlockDatatypeName(DatatypeName.parse("custom[fp4e2m1]4"), 16, DatatypeName.parse("custom[ue4m3]8"),
            ScaleRule.NEAREST, true));
        return names;
    }

    private static BlockDatatypeName mx(String element) {
        return new BlockDatatypeName(DatatypeName.parse(element), 32, DatatypeName.parse("custom[e8m0]8"), ScaleRule.FLOOR, false);
    }

    public BlockDatatypeName {
        if (blockSize < 1) throw new IllegalArgumentException("a block holds at least 1 element, not " + blockSize);
    }

    /** The built-in name when this is one, else the general spelling. */
    @Override
    public String toString() {
        for (Map.Entry<String, BlockDatatypeName> builtIn : builtIns().entrySet()) {
            if (builtIn.getValue().equals(this)) return builtIn.getKey();
        }
        return PREFIX + element + "," + blockSize + "," + scale + "," + rule.optionName() + (tensorScale ? "," + TENSOR_SCALE : "") + "]";
    }
}
