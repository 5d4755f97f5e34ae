package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What datatype lowering found while it rewrote a program: operations a datatype has no lowering for
 * (collected, so that one error lists them all), operations computed in float32 instead (--fallback),
 * and which datatype operation each library call implements (for errors about the library).
 */
public final class LoweringLog {
    /** datatype name -> operation -> the kernels that need it ("Softmax 'sm'"). */
    private final Map<String, Map<String, Set<String>>> missing = new LinkedHashMap<>();
    private final Map<String, Map<String, Set<String>>> fellBack = new LinkedHashMap<>();
    private final Map<String, Purpose> purposeOfFunction = new LinkedHashMap<>();
    private String currentKernel = "the program";

    /** Later entries are attributed to this kernel. */
    public void enterKernel(Kernel kernel) {
        currentKernel = kernel.opType() + " '" + kernel.name() + "'";
    }

    void missing(String datatype, String operation) {
        missing.computeIfAbsent(datatype, d -> new LinkedHashMap<>()).computeIfAbsent(operation, o -> new LinkedHashSet<>()).add(currentKernel);
    }

    void fellBack(String datatype, String operation) {
        fellBack.computeIfAbsent(datatype, d -> new LinkedHashMap<>()).computeIfAbsent(operation, o -> new LinkedHashSet<>()).add(currentKernel);
    }

    /** Notes the library calls in {@code lowered} as implementing {@code operation} of {@code datatype}. */
    void lowered(String datatype, String operation, Expr lowered) {
        KernelWalker.visit(lowered, e -> {
            if (e instanceof Expr.Call c) purposeOfFunction.putIfAbsent(c.function(), new Purpose(operation, datatype));
        });
    }

    /** What a library function is called for: an operation of a datatype. */
    public record Purpose(String operation, String datatype) {
        @Override
        public String toString() { return operation + " of " + datatype; }
    }

    /** What a library function was called for, or null for a function no datatype lowering produced. */
    public Purpose purposeOf(String function) { return purposeOfFunction.get(function); }

    public boolean usedFallback() { return !fellBack.isEmpty(); }

    /**
     * Throws one error naming every missing lowering, per datatype:
     * "custom[lns]16 has no lowering for: exp (used by Softmax 'sm'), tanh (used by Tanh 't1')".
     */
    public void checkComplete() {
        if (missing.isEmpty()) return;
        List<String> parts = new ArrayList<>();
        missing.forEach((datatype, ops) -> parts.add(datatype + " has no lowering for: " + describe(ops)));
        throw new ByodtException(String.join("; ", parts)
            + " (register them, or compute them in float32 with --fallback float32)");
    }

    /** "custom[lns]16: exp (Softmax 'sm')" per datatype, or empty when nothing fell back. */
    public List<String> fallbacks() {
        List<String> lines = new ArrayList<>();
        fellBack.forEach((datatype, ops) -> lines.add(datatype + ": " + describe(ops)));
        return lines;
    }

    private static String describe(Map<String, Set<String>> ops) {
        return ops.entrySet().stream()
            .map(e -> e.getKey() + " (used by " + String.join(", ", e.getValue()) + ")")
            .collect(Collectors.joining(", "));
    }
}
