package dev.byodt.compiler.dtype;

import dev.byodt.runtime.ByodtException;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Fused dot-product units with published parameters, --accumulate fused:NAME. Each says where its numbers come
 * from; docs/datatypes.md cites the sources in full and says which parameter is an assumption.
 */
public enum FusedPreset {
    /**
     * NVIDIA Hopper FP8 tensor cores: about 14 bits of accumulation precision measured on H800 (DeepSeek-V3
     * technical report, section 3.3.2), taken as 13 fraction bits below the leading bit, truncated; 32 products
     * per group, the K of one FP8 wgmma instruction (PTX ISA).
     */
    HOPPER_FP8("hopper-fp8", 13, 32, AccumulationMode.Rounding.RZ,
        "DeepSeek-V3 report 3.3.2: ~14 bits on H800; G = K of an FP8 wgmma (assumed)"),
    /**
     * NVIDIA Volta V100 tensor cores in binary32 accumulation: d = c + four products in one operation
     * (Fasi, Higham, Mikaitis, Pranesh 2021, equation 1); binary32's 24 bits kept, truncated, as byodt reads
     * the paper's findings (docs/datatypes.md says what is cited and what is read).
     */
    VOLTA_FP16("volta-fp16", 23, 4, AccumulationMode.Rounding.RZ,
        "Fasi, Higham, Mikaitis, Pranesh 2021, eq. 1: c + 4 products; F = 23, rz: byodt's reading");

    private final String presetName;
    private final int fractionBits;
    private final int group;
    private final AccumulationMode.Rounding rounding;
    private final String source;

    FusedPreset(String presetName, int fractionBits, int group, AccumulationMode.Rounding rounding, String source) {
        this.presetName = presetName;
        this.fractionBits = fractionBits;
        this.group = group;
        this.rounding = rounding;
        this.source = source;
    }

    /** The preset as --accumulate names it: fused:hopper-fp8. */
    public AccumulationMode.Fused mode() { return new AccumulationMode.Fused("fused:" + presetName, fractionBits, group, rounding); }

    /** Where the parameters come from, in one line (`byodt dtypes` shows it). */
    public String source() { return source; }

    static FusedPreset named(String name) {
        for (FusedPreset p : values()) {
            if (p.presetName.equals(name)) return p;
        }
        throw new ByodtException("--accumulate fused:" + name + ": no such preset (" + Arrays.stream(values())
            .map(p -> p.presetName).collect(Collectors.joining(", ")) + ", or F=<bits>,G=<group>[,rounding=rz|rne])");
    }
}
