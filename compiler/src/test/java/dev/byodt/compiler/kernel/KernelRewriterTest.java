package dev.byodt.compiler.kernel;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The rewriter passes build on: the identity as it stands, and hooks that reach every node. */
class KernelRewriterTest {
    private final Buffer in = new Buffer("in", ScalarType.REAL, new long[]{4});
    private final Buffer out = new Buffer("out", ScalarType.REAL, new long[]{4});
    private final Local acc = new Local("acc", ScalarType.ACC);
    private final LoopVar i = new LoopVar("i");

    private static Expr i64(long v) { return new Expr.IntConst(ScalarType.I64, v); }

    /** for i < 4: if (in[i] < 0.5) acc = f(acc, in[i] * 2) else out[i + 0] = cast(acc) */
    private List<Stmt> body() {
        Expr x = new Expr.Load(in, new Expr.Var(i));
        Expr doubled = new Expr.Op(ScalarOp.MUL, ScalarType.REAL, List.of(x, new Expr.RealConst(ScalarType.REAL, 2)));
        Stmt update = new Stmt.Assign(acc, new Expr.Call("f", ScalarType.ACC, List.of(new Expr.LocalRef(acc), doubled)));
        Stmt store = new Stmt.Store(out, new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(new Expr.Var(i), i64(0))),
            new Expr.Op(ScalarOp.CAST, ScalarType.REAL, List.of(new Expr.LocalRef(acc))));
        Expr condition = new Expr.Op(ScalarOp.LT, ScalarType.BOOL, List.of(x, new Expr.RealConst(ScalarType.REAL, 0.5)));
        return List.of(new Stmt.For(i, i64(4), List.of(new Stmt.If(condition, List.of(update), List.of(store)))));
    }

    @Test
    void withoutOverridesItRebuildsEveryNodeAsItWas() {
        List<Stmt> body = body();
        assertEquals(body, new KernelRewriter().body(body));
    }

    @Test
    void theBufferAndLocalHooksReachLoadsAndStoresInsideOperationsCallsConditionsAndLoops() {
        Buffer otherIn = new Buffer("in2", ScalarType.REAL, new long[]{4});
        Buffer otherOut = new Buffer("out2", ScalarType.REAL, new long[]{4});
        Local otherAcc = new Local("acc2", ScalarType.ACC);
        List<Stmt> rewritten = new KernelRewriter() {
            @Override
            public Buffer buffer(Buffer b) { return b == in ? otherIn : otherOut; }

            @Override
            public Local local(Local l) { return otherAcc; }
        }.body(body());
        List<Object> named = new ArrayList<>();
        KernelWalker.forEachExpr(rewritten, e -> {
            if (e instanceof Expr.Load load) named.add(load.buffer());
            if (e instanceof Expr.LocalRef ref) named.add(ref.local());
        });
        assertEquals(List.of(otherIn, otherAcc, otherIn, otherAcc), named);
        Stmt.If branch = (Stmt.If) ((Stmt.For) rewritten.getFirst()).body().getFirst();
        assertSame(otherAcc, ((Stmt.Assign) branch.then().getFirst()).local());
        assertSame(otherOut, ((Stmt.Store) branch.otherwise().getFirst()).buffer());
    }

    @Test
    void aStatementMayBecomeSeveralAndAnExpressionAnother() {
        List<Stmt> rewritten = new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) { return s instanceof Stmt.Store ? List.of(rebuilt(s), rebuilt(s)) : List.of(rebuilt(s)); }

            @Override
            public Expr expr(Expr e) { return e instanceof Expr.RealConst c ? new Expr.RealConst(c.type(), -c.value()) : rebuilt(e); }
        }.body(body());
        Stmt.If branch = (Stmt.If) ((Stmt.For) rewritten.getFirst()).body().getFirst();
        assertEquals(2, branch.otherwise().size());
        List<Double> constants = new ArrayList<>();
        KernelWalker.forEachExpr(rewritten, e -> {
            if (e instanceof Expr.RealConst c) constants.add(c.value());
        });
        assertEquals(List.of(-0.5, -2.0), constants);
    }
}
