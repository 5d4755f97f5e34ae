package dev.byodt.cli.microbench;

import dev.byodt.compiler.dtype.DatatypeName;

import java.util.Optional;

/**
 * The speed issue 4 ("Performance") sets for the datatypes it names, posit16, posit8, fxp16, bfloat16 and
 * float16: element-wise add and multiply within a factor of float32's time, and each of these operations at
 * least ten times faster inlined than as out-of-line scalar calls. The matrix product and the other datatypes
 * are measured too, without a target (but for block datatypes, whose matrix product issue 15 bounds): fxp32_16's inlined add, for one, already runs at float32's memory-bound
 * speed, so its speedup only measures the calls.
 */
public final class PerformanceTargets {
    /** Inlined code against the same library functions called one element at a time (see hasSpeedupTarget). */
    public static final double MIN_SPEEDUP_OVER_SCALAR_LIBRARY = 10;

    private PerformanceTargets() {}

    /** Whether the issue asks {@code op} ("add", "mul", "matmul") of {@code datatype} to be ten times faster inlined. */
    public static boolean hasSpeedupTarget(String datatype, String op) {
        return (op.equals("add") || op.equals("mul")) && maxRatioToFloat32(datatype).isPresent();
    }

    /** How many times float32's matrix product time a block datatype's (issue 15: 3) may take; empty for scalar datatypes. */
    public static Optional<Double> maxMatMulRatioToFloat32(String datatype) {
        return DatatypeName.parseBlock(datatype).map(block -> 3.0);
    }

    /** How many times float32's add and mul time the datatype may take, if the issue sets a bound for it. */
    public static Optional<Double> maxRatioToFloat32(String datatype) {
        String name = datatype.replace(" ", "");
        if (name.equals("custom[posit]16")) return Optional.of(4.0);
        if (name.equals("custom[posit]8")) return Optional.of(2.0);
        if (name.startsWith("fxp16_")) return Optional.of(1.5);
        if (name.equals("float16") || name.equals("bfloat16") || name.equals("custom[bfloat]16")) return Optional.of(2.0);
        return Optional.empty();
    }
}
