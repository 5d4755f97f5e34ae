package dev.byodt.compiler.codegen;

import dev.byodt.runtime.StageTimes;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.llvm.LLVM.LLVMAttributeRef;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.bytedeco.llvm.global.LLVM.*;

/**
 * A datatype library's hand-vectorized functions: {@code f_x64}, defined beside {@code f}, computes f on each lane
 * of 64-element vectors (every parameter and the result a vector of f's type). LLVM's loop vectorizer calls such a
 * variant for 64 iterations of a loop that calls f where the call names it in a "vector-function-abi-variant"
 * attribute, and only if the call is still a call: f must not inline before the loops vectorize.
 *
 * <p>So the optimizer runs twice ({@link Optimizer#optimize}). {@link #offer} marks the calls of f in loops of
 * at least as many iterations as a variant has lanes (the code generator marks each library call in a loop with
 * the loop's trip count) to stay calls and to name the variants, for the first run, which vectorizes those loops
 * with calls to the variants. {@link #settle} lets every call inline again for the second run, which inlines the
 * variants into the kernels that call them and passes the other kernels by. Calls in shorter loops are left alone, to inline and vectorize with the scalar code as always: there
 * the vectorizer, finding no variant of the width it can use, would split its vector into one call per lane.
 */
public final class VectorVariants {
    static final String MAPPING = "vector-function-abi-variant";
    /** A call-site attribute: the trip count of the innermost loop around the call, or "?" when unknown. */
    static final String TRIP_COUNT = "byodt-loop-trip-count";
    private static final Pattern VARIANT = Pattern.compile("(.+)_x([0-9]+)");

    private VectorVariants() {}

    /** Marks a library call in a loop of {@code tripCount} iterations (negative: unknown). */
    static void markTripCount(LLVMContextRef context, LLVMValueRef call, long tripCount) {
        String value = tripCount < 0 ? "?" : Long.toString(tripCount);
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, stringAttribute(context, TRIP_COUNT, value));
    }

    /**
     * Offers the loop vectorizer the variants defined in {@code module} for the calls in long enough loops, and
     * keeps the variants alive until it has run. Returns their names, for {@link #settle}; empty when no call
     * was offered one.
     */
    public static List<String> offer(LLVMModuleRef module) {
        Map<String, TreeMap<Integer, String>> variantsOf = new HashMap<>();
        forEachFunction(module, fn -> {
            String name = LLVMGetValueName(fn).getString();
            Matcher variant = VARIANT.matcher(name);
            if (LLVMIsDeclaration(fn) != 0 || !variant.matches()) return;
            LLVMValueRef scalar = LLVMGetNamedFunction(module, variant.group(1));
            int lanes = Integer.parseInt(variant.group(2));
            if (scalar == null || scalar.isNull() || LLVMIsDeclaration(scalar) != 0 || !widens(scalar, fn, lanes)) return;
            variantsOf.computeIfAbsent(variant.group(1), s -> new TreeMap<>()).put(lanes, name);
        });
        if (variantsOf.isEmpty()) return List.of();
        LLVMContextRef context = LLVMGetModuleContext(module);
        boolean[] offered = {false};
        forEachCall(module, call -> {
            LLVMValueRef callee = LLVMGetCalledValue(call);
            TreeMap<Integer, String> variants = variantsOf.get(LLVMGetValueName(callee).getString());
            String tripCount = callSiteString(call, TRIP_COUNT);
            if (variants == null || tripCount == null) return;
            int fitting = tripCount.equals("?") ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, Long.parseLong(tripCount));
            List<String> mappings = new ArrayList<>();
            variants.headMap(fitting, true).forEach((lanes, variant) -> mappings.add(
                // The vector-function ABI's name of a variant: LLVM's own ISA token, unmasked, the lane count and a
                // "v" (vector) for each parameter; then the scalar's name and, in parentheses, the variant's.
                "_ZGV_LLVM_N" + lanes + "v".repeat(LLVMCountParams(callee)) + "_" + LLVMGetValueName(callee).getString() + "(" + variant + ")"));
            if (mappings.isEmpty()) return;
            LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, stringAttribute(context, MAPPING, String.join(",", mappings)));
            LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(context, kind("noinline"), 0));
            offered[0] = true;
        });
        if (!offered[0]) return List.of();
        List<String> names = new ArrayList<>();
        variantsOf.values().forEach(byLanes -> names.addAll(byLanes.values()));
        // Unreferenced internal functions would be deleted before the vectorizer looks for them.
        names.forEach(name -> LLVMSetLinkage(LLVMGetNamedFunction(module, name), LLVMExternalLinkage));
        return names;
    }

    /** Removes the code generator's trip-count marks, once {@link #offer} has read them: they mean nothing to LLVM. */
    public static void forgetTripCounts(LLVMModuleRef module) {
        forEachCall(module, call -> LLVMRemoveCallSiteStringAttribute(call, LLVMAttributeFunctionIndex, TRIP_COUNT, TRIP_COUNT.length()));
    }

    /**
     * Undoes {@link #offer} once the loops are vectorized: every call may inline, the variants are internal again.
     * The functions kept out of line (the kernels) that call no variant and held no offered call are finished
     * already: they are marked optnone, so that the second run passes them by (it re-optimized every kernel of a
     * model for the few that took a variant), and their names returned for {@link #release}: names, not
     * references, since the second run may delete a kernel its inlining left uncalled.
     */
    public static List<String> settle(LLVMModuleRef module, List<String> variants) {
        List<LLVMValueRef> finished = new ArrayList<>();
        forEachFunction(module, fn -> {
            if (LLVMIsDeclaration(fn) == 0 && hasAttribute(fn, "noinline") && !hasAttribute(fn, "optnone")
                && !callsVariantOrOffered(fn, variants)) finished.add(fn);
        });
        forEachCall(module, call -> {
            if (callSiteString(call, MAPPING) == null) return;
            LLVMRemoveCallSiteStringAttribute(call, LLVMAttributeFunctionIndex, MAPPING, MAPPING.length());
            LLVMRemoveCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind("noinline"));
        });
        for (String name : variants) {
            LLVMValueRef fn = LLVMGetNamedFunction(module, name);
            if (fn != null && !fn.isNull()) LLVMSetLinkage(fn, LLVMInternalLinkage);
        }
        LLVMContextRef context = LLVMGetModuleContext(module);
        finished.forEach(fn -> LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(context, kind("optnone"), 0)));
        List<String> again = new ArrayList<>();
        forEachFunction(module, fn -> {
            if (LLVMIsDeclaration(fn) == 0 && !hasAttribute(fn, "optnone")) again.add(LLVMGetValueName(fn).getString());
        });
        StageTimes.note("the second O3 optimizes " + again.size() + " functions (" + finished.size() + " kernels set aside): " + String.join(" ", again));
        return finished.stream().map(fn -> LLVMGetValueName(fn).getString()).toList();
    }

    /**
     * Lets the functions {@link #settle} set aside, those the second run kept, be compiled as usual again:
     * optnone also holds back the backend.
     */
    public static void release(LLVMModuleRef module, List<String> finished) {
        for (String name : finished) {
            LLVMValueRef fn = LLVMGetNamedFunction(module, name);
            if (fn != null && !fn.isNull()) LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind("optnone"));
        }
    }

    private static boolean callsVariantOrOffered(LLVMValueRef fn, List<String> variants) {
        boolean[] found = {false};
        forEachCallIn(fn, call -> found[0] |= callSiteString(call, MAPPING) != null
            || variants.contains(LLVMGetValueName(LLVMGetCalledValue(call)).getString()));
        return found[0];
    }

    private static boolean hasAttribute(LLVMValueRef fn, String attribute) {
        LLVMAttributeRef found = LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind(attribute));
        return found != null && !found.isNull();
    }

    /** Whether {@code variant}'s type is {@code scalar}'s with each type a vector of {@code lanes} of it. */
    private static boolean widens(LLVMValueRef scalar, LLVMValueRef variant, int lanes) {
        LLVMTypeRef s = LLVMGlobalGetValueType(scalar), v = LLVMGlobalGetValueType(variant);
        int parameters = LLVMCountParamTypes(s);
        if (parameters != LLVMCountParamTypes(v) || !isVectorOf(LLVMGetReturnType(v), LLVMGetReturnType(s), lanes)) return false;
        PointerPointer<LLVMTypeRef> scalarTypes = new PointerPointer<>(parameters), variantTypes = new PointerPointer<>(parameters);
        LLVMGetParamTypes(s, scalarTypes);
        LLVMGetParamTypes(v, variantTypes);
        for (int i = 0; i < parameters; i++) {
            if (!isVectorOf(variantTypes.get(LLVMTypeRef.class, i), scalarTypes.get(LLVMTypeRef.class, i), lanes)) return false;
        }
        return true;
    }

    private static boolean isVectorOf(LLVMTypeRef vector, LLVMTypeRef element, int lanes) {
        return LLVMGetTypeKind(vector) == LLVMVectorTypeKind && LLVMGetVectorSize(vector) == lanes
            && LLVMGetElementType(vector).equals(element);
    }

    private static void forEachFunction(LLVMModuleRef module, Consumer<LLVMValueRef> action) {
        List<LLVMValueRef> functions = new ArrayList<>();
        for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn != null && !fn.isNull(); fn = LLVMGetNextFunction(fn)) {
            functions.add(fn);
        }
        functions.forEach(action);
    }

    /** Every direct call in the module's function bodies. */
    private static void forEachCall(LLVMModuleRef module, Consumer<LLVMValueRef> action) {
        forEachFunction(module, fn -> forEachCallIn(fn, action));
    }

    private static void forEachCallIn(LLVMValueRef fn, Consumer<LLVMValueRef> action) {
        for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(fn); block != null && !block.isNull(); block = LLVMGetNextBasicBlock(block)) {
            for (LLVMValueRef inst = LLVMGetFirstInstruction(block); inst != null && !inst.isNull(); inst = LLVMGetNextInstruction(inst)) {
                if (LLVMIsACallInst(inst) == null || LLVMIsACallInst(inst).isNull()) continue;
                LLVMValueRef callee = LLVMGetCalledValue(inst);
                if (LLVMIsAFunction(callee) != null && !LLVMIsAFunction(callee).isNull()) action.accept(inst);
            }
        }
    }

    private static String callSiteString(LLVMValueRef call, String key) {
        LLVMAttributeRef attribute = LLVMGetCallSiteStringAttribute(call, LLVMAttributeFunctionIndex, key, key.length());
        if (attribute == null || attribute.isNull()) return null;
        int[] length = new int[1];
        return LLVMGetStringAttributeValue(attribute, length).limit(length[0]).getString();
    }

    private static LLVMAttributeRef stringAttribute(LLVMContextRef context, String key, String value) {
        return LLVMCreateStringAttribute(context, key, key.length(), value, value.length());
    }

    private static int kind(String attribute) {
        return LLVMGetEnumAttributeKindForName(attribute, attribute.length());
    }
}
