package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** Which loops PackedLanes packs, into how many lanes, and the words it loads and stores. */
class PackedLanesTest {
    private static final PackedLanes FOUR = new PackedLanes("p16_", "p16x", Set.of("add"), 4);
    private final Buffer a = new Buffer("a", ScalarType.I16, new long[]{3, 12});
    private final Buffer out = new Buffer("out", ScalarType.I16, new long[]{3, 12});

    private static Expr i64(long v) { return new Expr.IntConst(ScalarType.I64, v); }

    private static Expr plus(Expr x, Expr y) { return new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(x, y)); }

    private static Expr times(Expr x, long c) { return new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(x, i64(c))); }

    /** for r: for c < width: out[r * stride + c] = add(a[r * stride + c], 3) */
    private List<Stmt> rows(long width, long stride) {
        LoopVar r = new LoopVar("r"), c = new LoopVar("c");
        Expr index = plus(times(new Expr.Var(r), stride), new Expr.Var(c));
        Expr value = new Expr.Call("p16_add", ScalarType.I16, List.of(new Expr.Load(a, index), new Expr.IntConst(ScalarType.I16, 3)));
        return List.of(new Stmt.For(r, i64(3), List.of(new Stmt.For(c, i64(width), List.of(new Stmt.Store(out, index, value))))));
    }

    private static List<Stmt> inner(List<Stmt> packed) { return ((Stmt.For) packed.getFirst()).body(); }

    @Test
    void rowsOfElevenAlignedByFourBecomeTwoWordsAndThreeSingleElements() {
        List<Stmt> body = inner(FOUR.rewrite(rows(11, 12), Set.of()));
        assertEquals(4, body.size());
        Stmt.For words = assertInstanceOf(Stmt.For.class, body.getFirst());
        assertEquals(i64(2), words.extent());
        Stmt.Store store = assertInstanceOf(Stmt.Store.class, words.body().getFirst());
        assertSame(out, store.buffer().storage());
        assertEquals(ScalarType.I64, store.buffer().elementType());
        Expr.Call add = assertInstanceOf(Expr.Call.class, store.value());
        assertEquals("p16x4_add", add.function());
        Expr.Load word = assertInstanceOf(Expr.Load.class, add.args().get(0));
        assertSame(a, word.buffer().storage());
        assertEquals("p16x4_pack", ((Expr.Call) add.args().get(1)).function());
        // Word r * 12 / 4 + group: the row's offset counted in words.
        assertTrue(mentionsTimesThree(store.index()), "index " + store.index() + " scales the row by 12 / 4 = 3");
        for (Stmt single : body.subList(1, 4)) assertSame(out, assertInstanceOf(Stmt.Store.class, single).buffer());
    }

    private static boolean mentionsTimesThree(Expr e) {
        return e instanceof Expr.Op o && (o.op() == ScalarOp.MUL && o.arg(1).equals(i64(3)) || o.args().stream().anyMatch(PackedLanesTest::mentionsTimesThree));
    }

    @Test
    void rowsWhoseOffsetsAreEvenButNotMultiplesOfFourPackTwoLanes() {
        Stmt.For words = (Stmt.For) inner(FOUR.rewrite(rows(6, 6), Set.of())).getFirst();
        assertEquals(i64(3), words.extent());
        assertEquals(ScalarType.I32, ((Stmt.Store) words.body().getFirst()).buffer().elementType());
    }

    @Test
    void aLoopReadingOneElementOfTheBufferItStoresToStaysAsItIs() {
        LoopVar c = new LoopVar("c");
        Expr value = new Expr.Call("p16_add", ScalarType.I16, List.of(new Expr.Load(out, i64(0)), new Expr.Load(a, new Expr.Var(c))));
        List<Stmt> loop = List.of(new Stmt.For(c, i64(8), List.of(new Stmt.Store(out, new Expr.Var(c), value))));
        assertEquals(loop, FOUR.rewrite(loop, Set.of()));
    }

    @Test
    void oddRowOffsetsAndTheCallersTensorsStayAsTheyAre() {
        List<Stmt> odd = rows(9, 9), aligned = rows(12, 12);
        assertEquals(odd, FOUR.rewrite(odd, Set.of()));
        assertEquals(aligned, FOUR.rewrite(aligned, Set.of(a)));
    }
}
