package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.Program;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Which min(max(x, lo), hi) SymmetricClips makes one clip, wherever it is in a kernel. */
class SymmetricClipsTest {
    private static final SymmetricClips CLIPS = new SymmetricClips(TestFunctions.min16(), TestFunctions.max16(), TestFunctions::clip16);
    private final Buffer x = new Buffer("x", ScalarType.I16, new long[]{4});
    private final Buffer out = new Buffer("out", ScalarType.I16, new long[]{4});

    private static Expr i16(long v) { return new Expr.IntConst(ScalarType.I16, v); }

    private Expr clip(long low, long high) {
        Expr element = new Expr.Load(x, new Expr.IntConst(ScalarType.I64, 0));
        Expr atLeast = new Expr.Call("max", ScalarType.I16, List.of(element, i16(low)));
        return new Expr.Call("min", ScalarType.I16, List.of(atLeast, i16(high)));
    }

    private Expr stored(Expr value) {
        Kernel kernel = new Kernel("k", "Clip", List.of(x), List.of(out), List.of(), Map.of(),
            List.of(new Stmt.Store(out, new Expr.IntConst(ScalarType.I64, 0), value)));
        Program program = new Program("p", List.of(kernel), List.of(x), List.of(), List.of(out), List.of(), Map.of(), List.of());
        return ((Stmt.Store) CLIPS.apply(program).kernels().getFirst().body().getFirst()).value();
    }

    @Test
    void theSymmetricRangeOfKBitsIsOneClip() {
        Expr.Call clip = assertInstanceOf(Expr.Call.class, stored(clip(-8192, 8191)));
        assertEquals("clip13", clip.function());
        assertEquals(List.of(new Expr.Load(x, new Expr.IntConst(ScalarType.I64, 0))), clip.args());
    }

    @Test
    void otherBoundsKeepMaxAndMin() {
        assertEquals(clip(0, 8191), stored(clip(0, 8191)));
        assertEquals(clip(-8192, 8192), stored(clip(-8192, 8192)));
    }

    @Test
    void aClipInsideAnotherOperationIsFoundToo() {
        Expr.Op sum = assertInstanceOf(Expr.Op.class, stored(new Expr.Op(ScalarOp.ADD, ScalarType.I16, List.of(clip(-2, 1), i16(1)))));
        assertEquals("clip1", assertInstanceOf(Expr.Call.class, sum.arg(0)).function());
    }
}
