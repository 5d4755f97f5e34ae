package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.IntFunction;

/**
 * Finds Clip's {@code min(max(x, lo), hi)} on 16-bit values whose bounds are the symmetric saturation range
 * {@code lo = -2^k, hi = 2^k - 1} (raw values, k = 0..15) and makes it one call of {@code clip(k)(x)}, the
 * RISC-V P extension's SCLIP16, which clamps to exactly that range. The bounds are constants: Clip's
 * attributes before opset 11, its constant inputs after (a load of a weight at a constant index). Other
 * bounds keep max and min. Clips are found wherever they are: in a store's value, an assignment, or inside
 * another operation or call.
 */
final class SymmetricClips {
    private final LibraryFunction min;
    private final LibraryFunction max;
    private final IntFunction<LibraryFunction> clip;

    /** Rewrites {@code min(max(x, lo), hi)} calls into calls of {@code clip.apply(k)}. */
    SymmetricClips(LibraryFunction min, LibraryFunction max, IntFunction<LibraryFunction> clip) {
        this.min = min;
        this.max = max;
        this.clip = clip;
    }

    Program apply(Program program) {
        return program.withKernelBodies(body -> new Rewrite(program.constants()).body(body));
    }

    /** The rewrite of one program's kernels, whose constant bounds are those of {@code constants}. */
    private final class Rewrite extends KernelRewriter {
        private final Map<Buffer, MemorySegment> constants;

        Rewrite(Map<Buffer, MemorySegment> constants) { this.constants = constants; }

        @Override
        public Expr expr(Expr e) {
            if (!(e instanceof Expr.Call call)) return rebuilt(e);
            List<Expr> args = args(call.args());
            if (min.isCalledBy(call) && args.get(0) instanceof Expr.Call inner && max.isCalledBy(inner)) {
                OptionalLong low = value(inner.args().get(1), constants), high = value(args.get(1), constants);
                for (int k = 0; k <= 15 && low.isPresent() && high.isPresent(); k++) {
                    if (low.getAsLong() == -(1L << k) && high.getAsLong() == (1L << k) - 1) {
                        return clip.apply(k).call(inner.args().get(0));
                    }
                }
            }
            return new Expr.Call(call.function(), call.type(), args, call.passing());
        }
    }

    /** The signed 16-bit value of a constant bound, if it is one. */
    private static OptionalLong value(Expr e, Map<Buffer, MemorySegment> constants) {
        if (e instanceof Expr.IntConst c && c.type() == ScalarType.I16) return OptionalLong.of((short) c.value());
        if (e instanceof Expr.Load load && load.type() == ScalarType.I16 && load.index() instanceof Expr.IntConst index
            && constants.containsKey(load.buffer())) {
            return OptionalLong.of(constants.get(load.buffer()).getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, index.value()));
        }
        return OptionalLong.empty();
    }
}
