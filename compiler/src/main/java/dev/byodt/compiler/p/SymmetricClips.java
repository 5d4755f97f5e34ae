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
 * Finds Clip's {@code min(max(x, lo), hi)} on N-bit values (the type of the min and max functions: 16 or 8 bits)
 * whose bounds are the symmetric saturation range {@code lo = -2^k, hi = 2^k - 1} (raw values, k = 0..N-1) and
 * makes it one call of {@code clip(k)(x)}, the RISC-V P extension's SCLIP16 or SCLIP8, which clamps to exactly
 * that range. The bounds are constants: Clip's
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
        if (min.result() != ScalarType.I16 && min.result() != ScalarType.I8) throw new IllegalArgumentException("clips of 16- or 8-bit values, not " + min);
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
                for (int k = 0; k < bits(min.result()) && low.isPresent() && high.isPresent(); k++) {
                    if (low.getAsLong() == -(1L << k) && high.getAsLong() == (1L << k) - 1) {
                        return clip.apply(k).call(inner.args().get(0));
                    }
                }
            }
            return new Expr.Call(call.function(), call.type(), args, call.passing());
        }
    }

    private static int bits(ScalarType type) { return type == ScalarType.I16 ? 16 : 8; }

    /** The signed value of a constant bound of the clipped values' type, if it is one. */
    private OptionalLong value(Expr e, Map<Buffer, MemorySegment> constants) {
        ScalarType type = min.result();
        if (e instanceof Expr.IntConst c && c.type() == type) return OptionalLong.of(type == ScalarType.I16 ? (short) c.value() : (byte) c.value());
        if (e instanceof Expr.Load load && load.type() == type && load.index() instanceof Expr.IntConst index
            && constants.containsKey(load.buffer())) {
            MemorySegment bound = constants.get(load.buffer());
            return OptionalLong.of(type == ScalarType.I16 ? bound.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, index.value())
                : bound.get(ValueLayout.JAVA_BYTE, index.value()));
        }
        return OptionalLong.empty();
    }
}
