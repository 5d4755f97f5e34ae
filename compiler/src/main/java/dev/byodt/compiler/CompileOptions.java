package dev.byodt.compiler;

import dev.byodt.compiler.dtype.BlockChoice;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.codegen.SplitCost;
import dev.byodt.compiler.kernel.MultiplyAdd;

import java.util.Optional;
import dev.byodt.compiler.target.Target;

/**
 * How to compile a model.
 *
 * @param target          the machine to generate code for
 * @param entrySymbol     the name of the exported C function that runs the model
 * @param datatypes       the datatype of every real-valued tensor, per-node overrides, accumulation and fallback
 * @param optimize        run LLVM's O3 pipeline; without it the module is left as generated, for reading
 * @param inlineLibraries let datatype library functions inline into the kernels (off: every call stays a call,
 *                        to read what a datatype was lowered to, or to measure calls as TVM makes them)
 * @param blocks          the block datatypes of MatMul, Gemm and Conv nodes, whose other operations compute in
 *                        {@code datatypes} (the vector datatype)
 * @param threads         how many threads run each call: above 1, the threads divide the loops operators declare
 *                        independent (convolutions' output maps, matrix products' rows) among themselves and the
 *                        entry function is the one {@link dev.byodt.compiler.codegen.HostModel} calls from each
 *                        (in this process only)
 * @param callCounter     where some kernel rounds stochastically, the entry takes the call's number as its last
 *                        input, and each call rounds with other random bits
 *                        ({@link dev.byodt.compiler.lower.RandomCounters#CALL_INPUT}): what a training step needs
 * @param multiplyAdd     how each float32 multiply-add of a sum rounds: twice (ONNX's reference) or once (fused)
 * @param leastSplitWork  with several threads, the least work (in {@link SplitCost}'s operations) of a run of a loop
 *                        for the threads to divide it; a run with less runs on the caller's thread alone
 * @param fuseChains      float32 element-wise nodes computed by the kernel before them as it stores
 *                        ({@link dev.byodt.compiler.lower.ActivationChains}); off, every node has its own kernel, as
 *                        in an emulated datatype (bench-dtypes compares element-wise operations pass for pass)
 * @param convAlgorithm   how float32 3x3 convolutions of stride 1 compute: as the reference does, or by Winograd's
 *                        transforms where those are faster
 */
public record CompileOptions(Target target, String entrySymbol, DatatypeChoice datatypes, boolean optimize,
                             boolean inlineLibraries, BlockChoice blocks, int threads, boolean callCounter,
                             MultiplyAdd multiplyAdd, long leastSplitWork, boolean fuseChains, ConvAlgorithm convAlgorithm) {
    public static final String DEFAULT_ENTRY = "byodt_model";

    public CompileOptions {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, not " + threads);
        if (leastSplitWork < 0) throw new IllegalArgumentException("the least work to split must not be negative");
    }

    /**
     * float32, optimized, for this machine, entry {@value #DEFAULT_ENTRY}, one thread, no call counter, multiply-adds
     * rounded twice, element-wise chains fused, convolutions direct.
     */
    public static CompileOptions host() {
        return new CompileOptions(Target.host(), DEFAULT_ENTRY, DatatypeChoice.float32(), true, true, BlockChoice.none(), 1, false, MultiplyAdd.SEPARATE,
            SplitCost.LEAST_WORK, true, ConvAlgorithm.DIRECT);
    }

    /** Each call run by {@code n} threads (1: by the caller's thread alone). */
    public CompileOptions withThreads(int n) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, blocks, n, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm);
    }

    public CompileOptions withTarget(Target t) { return new CompileOptions(t, entrySymbol, datatypes, optimize, inlineLibraries, blocks, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm); }

    public CompileOptions withEntrySymbol(String s) { return new CompileOptions(target, s, datatypes, optimize, inlineLibraries, blocks, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm); }

    public CompileOptions withDatatypes(DatatypeChoice d) { return new CompileOptions(target, entrySymbol, d, optimize, inlineLibraries, blocks, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm); }

    /** Every float tensor in {@code datatype} (a --dtype name), the rest of the choice unchanged. */
    public CompileOptions withDatatype(String datatype) { return withDatatypes(datatypes.withDatatype(datatype)); }

    public CompileOptions withOptimize(boolean o) { return new CompileOptions(target, entrySymbol, datatypes, o, inlineLibraries, blocks, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm); }

    public CompileOptions withInlineLibraries(boolean i) { return new CompileOptions(target, entrySymbol, datatypes, optimize, i, blocks, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm); }

    /** MatMul, Gemm and Conv in the block datatype {@code b}, everything else in the datatypes chosen. */
    public CompileOptions withBlock(Optional<BlockDatatypeName> b) { return withBlocks(BlockChoice.everywhere(b)); }

    public CompileOptions withBlocks(BlockChoice b) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, b, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm);
    }

    /** With {@code c}, each call's stochastic rounding moves on to other random bits (see {@code callCounter}). */
    public CompileOptions withCallCounter(boolean c) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, blocks, threads, c, multiplyAdd, leastSplitWork, fuseChains, convAlgorithm);
    }

    /**
     * Threads divide only the runs of a split loop with at least {@code operations} operations: 0 has them divide
     * every one (the tests that check the bits on several threads do).
     */
    public CompileOptions withLeastSplitWork(long operations) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, blocks, threads, callCounter, multiplyAdd, operations, fuseChains, convAlgorithm);
    }

    /** Each float32 multiply-add of a sum rounded as {@code m} says. */
    public CompileOptions withMultiplyAdd(MultiplyAdd m) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, blocks, threads, callCounter, m, leastSplitWork, fuseChains, convAlgorithm);
    }

    /** With {@code f} false, no element-wise chain is fused: every node has its own kernel (see {@code fuseChains}). */
    public CompileOptions withFusedChains(boolean f) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, blocks, threads, callCounter, multiplyAdd, leastSplitWork, f, convAlgorithm);
    }

    /** float32 3x3 convolutions of stride 1 computed as {@code a} says. */
    public CompileOptions withConvAlgorithm(ConvAlgorithm a) {
        return new CompileOptions(target, entrySymbol, datatypes, optimize, inlineLibraries, blocks, threads, callCounter, multiplyAdd, leastSplitWork, fuseChains, a);
    }
}
