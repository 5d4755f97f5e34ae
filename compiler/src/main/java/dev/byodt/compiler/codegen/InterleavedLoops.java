package dev.byodt.compiler.codegen;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.Stmt;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;

import java.util.List;

/**
 * Where a module is optimized without interleaving (an emulated datatype's, see
 * {@link dev.byodt.compiler.Compiler}), the innermost loops that call no library function are interleaved all the
 * same, as float32's own would be: they are machine arithmetic, a few instructions an iteration, such as a dot
 * product on operands decoded ahead of its loops (--accumulate float32), and run at float32's speed only with
 * several vectors of sums in flight (posit16's 256^3 MatMul: 1.8 times float32's time without, 1.1 with).
 * Loops that call the library keep one vector of emulated operations an iteration.
 */
final class InterleavedLoops {
    /** Vectors of iterations interleaved: what LLVM's cost model picks for float32's dot products on x86-64. */
    private static final int COUNT = 4;
    /** Copies of the interleaved body an iteration of the unrolled loop runs. */
    private static final int UNROLLED = 4;

    private InterleavedLoops() {}

    /** Whether {@code loop} contains no loop and no library call. */
    static boolean interleaves(Stmt.For loop) {
        boolean[] plain = {true};
        loop.body().forEach(s -> check(s, plain));
        return plain[0];
    }

    private static void check(Stmt s, boolean[] plain) {
        switch (s) {
            case Stmt.For f -> plain[0] = false;
            case Stmt.If i -> {
                KernelWalker.visit(i.condition(), e -> plain[0] &= !(e instanceof Expr.Call));
                i.then().forEach(t -> check(t, plain));
                i.otherwise().forEach(t -> check(t, plain));
            }
            default -> KernelWalker.forEachExpr(List.of(s), e -> plain[0] &= !(e instanceof Expr.Call));
        }
    }

    /**
     * Marks the loop whose latch is {@code backEdge} to be interleaved (llvm.loop.interleave.count) and unrolled
     * {@value #UNROLLED} times (llvm.loop.unroll.count, which the vectorized loop keeps). A count, not
     * llvm.loop.unroll.enable: that lifts LLVM's unrolling thresholds to the pragma's, and unrolled a training
     * step's float32 kernels beside an emulated node until its compilation took 33 s instead of 1.5; the count
     * runs posit16's decoded 256^3 MatMul as fast (1.09 times float32's time; 1.6 with a count of 2).
     */
    static void mark(LLVMContextRef context, LLVMValueRef backEdge) {
        LoopHints.mark(context, backEdge, LoopHints.hint(context, "llvm.loop.interleave.count", COUNT),
            LoopHints.hint(context, "llvm.loop.unroll.count", UNROLLED));
    }
}
