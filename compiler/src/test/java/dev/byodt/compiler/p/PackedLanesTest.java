package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** Which loops PackedLanes packs, into how many lanes, and the words it loads and stores. */
class PackedLanesTest {
    private static final PackedLanes FOUR = lanes(16, 4);
    private static final PackedLanes EIGHT_BYTES = lanes(8, 8);
    private final Buffer a = new Buffer("a", ScalarType.I16, new long[]{3, 12});
    private final Buffer out = new Buffer("out", ScalarType.I16, new long[]{3, 12});

    /** Packs pBITS_add into pBITSxL_add, registers of {@code lanes} lanes. */
    private static PackedLanes lanes(int bits, int lanes) {
        return new PackedLanes(Map.of(TestFunctions.add(bits).name(), l -> TestFunctions.packedAdd(bits, l)), l -> TestFunctions.pack(bits, l), bits, lanes);
    }

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

    /** for r: for c < width: out8[r * stride + c] = add(a8[r * stride + c], 3), 8-bit elements */
    private static List<Stmt> byteRows(Buffer in, Buffer stored, long width, long stride) {
        LoopVar r = new LoopVar("r"), c = new LoopVar("c");
        Expr index = plus(times(new Expr.Var(r), stride), new Expr.Var(c));
        Expr value = new Expr.Call("p8_add", ScalarType.I8, List.of(new Expr.Load(in, index), new Expr.IntConst(ScalarType.I8, 3)));
        return List.of(new Stmt.For(r, i64(3), List.of(new Stmt.For(c, i64(width), List.of(new Stmt.Store(stored, index, value))))));
    }

    @Test
    void rowsOfNineteenBytesAlignedByEightBecomeTwoWordsOfEightLanesAndThreeSingleElements() {
        Buffer a8 = new Buffer("a8", ScalarType.I8, new long[]{3, 24}), out8 = new Buffer("out8", ScalarType.I8, new long[]{3, 24});
        List<Stmt> body = inner(EIGHT_BYTES.rewrite(byteRows(a8, out8, 19, 24), Set.of()));
        assertEquals(4, body.size());
        Stmt.For words = assertInstanceOf(Stmt.For.class, body.getFirst());
        assertEquals(i64(2), words.extent());
        Stmt.Store store = assertInstanceOf(Stmt.Store.class, words.body().getFirst());
        assertEquals(ScalarType.I64, store.buffer().elementType());
        Expr.Call add = assertInstanceOf(Expr.Call.class, store.value());
        assertEquals("p8x8_add", add.function());
        Expr.Call pack = assertInstanceOf(Expr.Call.class, add.args().get(1));
        assertEquals("p8x8_pack", pack.function());
        assertEquals(8, pack.args().size());
        for (Stmt single : body.subList(1, 4)) assertSame(out8, assertInstanceOf(Stmt.Store.class, single).buffer());
    }

    @Test
    void byteRowsWhoseOffsetsAreMultiplesOfFourButNotEightPackFourLanesInA32BitWord() {
        Buffer a8 = new Buffer("a8", ScalarType.I8, new long[]{3, 12}), out8 = new Buffer("out8", ScalarType.I8, new long[]{3, 12});
        Stmt.For words = (Stmt.For) inner(EIGHT_BYTES.rewrite(byteRows(a8, out8, 12, 12), Set.of())).getFirst();
        assertEquals(i64(3), words.extent());
        Stmt.Store store = (Stmt.Store) words.body().getFirst();
        assertEquals(ScalarType.I32, store.buffer().elementType());
        assertEquals("p8x4_add", ((Expr.Call) store.value()).function());
    }

    @Test
    void eachPassPacksItsOwnLaneWidthOnly() {
        Buffer a8 = new Buffer("a8", ScalarType.I8, new long[]{3, 12}), out8 = new Buffer("out8", ScalarType.I8, new long[]{3, 12});
        List<Stmt> bytes = byteRows(a8, out8, 12, 12), halves = rows(12, 12);
        assertEquals(bytes, FOUR.rewrite(bytes, Set.of()));
        assertEquals(halves, EIGHT_BYTES.rewrite(halves, Set.of()));
        // Rows of 6 bytes: offsets even but not multiples of 4, fewer than a 32-bit word's lanes.
        List<Stmt> six = byteRows(a8, out8, 6, 6);
        assertEquals(six, EIGHT_BYTES.rewrite(six, Set.of()));
    }

    /** Packs pBITS_mul into pBITSxL_mul, gathering its operands, and pBITS_add into pBITSxL_add without. */
    private static final PackedLanes PRODUCTS = new PackedLanes(
        Map.of(TestFunctions.mul(16, 1).name(), l -> TestFunctions.mul(16, l), TestFunctions.add(16).name(), l -> TestFunctions.packedAdd(16, l)),
        l -> TestFunctions.pack(16, l), Set.of(TestFunctions.mul(16, 1).name()), 16, 4);

    /** for c < 8: out[c] = f(in[c + 1], a[0]) (with the parameter 13 for mul): the load of in starts at an odd element. */
    private List<Stmt> shifted(Buffer in, boolean product) {
        LoopVar c = new LoopVar("c");
        Expr x = new Expr.Load(in, plus(new Expr.Var(c), i64(1))), y = new Expr.Load(a, i64(0));
        Expr value = product ? TestFunctions.mul(16, 1).call(x, y, new Expr.IntConst(ScalarType.I32, 13)) : TestFunctions.add(16).call(x, y);
        return List.of(new Stmt.For(c, i64(8), List.of(new Stmt.Store(out, new Expr.Var(c), value))));
    }

    @Test
    void productsGatherOperandsThatAreNoAlignedWordAndPassTheirParameterAlong() {
        Buffer in = new Buffer("in", ScalarType.I16, new long[]{12});
        Stmt.For words = (Stmt.For) PRODUCTS.rewrite(shifted(in, true), Set.of()).getFirst();
        assertEquals(i64(2), words.extent());
        Expr.Call mul = assertInstanceOf(Expr.Call.class, ((Stmt.Store) words.body().getFirst()).value());
        assertEquals("p16x4_mul", mul.function());
        Expr.Call gathered = assertInstanceOf(Expr.Call.class, mul.args().get(0));
        assertEquals("p16x4_pack", gathered.function());
        for (Expr element : gathered.args()) assertSame(in, assertInstanceOf(Expr.Load.class, element).buffer());
        assertEquals(new Expr.IntConst(ScalarType.I32, 13), mul.args().get(2));
        // Without a product the same loop does not pack; nor does a product that would gather from the buffer it stores.
        List<Stmt> sum = shifted(in, false), overlapping = shifted(out, true);
        assertEquals(sum, PRODUCTS.rewrite(sum, Set.of()));
        assertEquals(overlapping, PRODUCTS.rewrite(overlapping, Set.of()));
    }

    @Test
    void lanesMustFillA32Or64BitWord() {
        assertThrows(IllegalArgumentException.class, () -> lanes(8, 2));
        assertThrows(IllegalArgumentException.class, () -> lanes(16, 8));
        assertThrows(IllegalArgumentException.class, () -> lanes(32, 2));
    }

    @Test
    void oddRowOffsetsAndTheCallersTensorsStayAsTheyAre() {
        List<Stmt> odd = rows(9, 9), aligned = rows(12, 12);
        assertEquals(odd, FOUR.rewrite(odd, Set.of()));
        assertEquals(aligned, FOUR.rewrite(aligned, Set.of(a)));
    }
}
