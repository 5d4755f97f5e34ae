package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.Program;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/** Constant weights of grouped products laid out as words: which operands, where, and the elements in them. */
class ConstantWordsTest {
    /** Weights [channel][map], 4 x 3, element [c][m] = 100 + 3c + m. */
    private final Buffer weights = new Buffer("w", ScalarType.I16, new long[]{4, 3});
    private final Buffer activations = new Buffer("x", ScalarType.I16, new long[]{4});
    private final LoopVar m = new LoopVar("m");

    private static Expr i64(long v) { return new Expr.IntConst(ScalarType.I64, v); }

    private static Expr op(ScalarOp op, Expr a, Expr b) { return new Expr.Op(op, ScalarType.I64, List.of(a, b)); }

    private static MemorySegment shorts(int count, int first) {
        MemorySegment s = MemorySegment.ofArray(new byte[2 * count]);
        for (int i = 0; i < count; i++) s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (first + i));
        return s;
    }

    /** The loads w[c][m] for c = 0..3. */
    private List<Expr> channelsOfMap() {
        return List.of(0, 1, 2, 3).stream()
            .<Expr>map(c -> new Expr.Load(weights, op(ScalarOp.ADD, op(ScalarOp.MUL, i64(c), i64(3)), new Expr.Var(m)))).toList();
    }

    @Test
    void fourBytesOfEachMapBecomeOne32BitWordPerMap() {
        Buffer bytes = new Buffer("w8", ScalarType.I8, new long[]{4, 3});
        MemorySegment values = MemorySegment.ofArray(new byte[12]);
        for (int i = 0; i < 12; i++) values.set(ValueLayout.JAVA_BYTE, i, (byte) (-6 + i));
        List<Expr> channels = List.of(0, 1, 2, 3).stream()
            .<Expr>map(c -> new Expr.Load(bytes, op(ScalarOp.ADD, op(ScalarOp.MUL, i64(c), i64(3)), new Expr.Var(m)))).toList();
        ConstantWords words = new ConstantWords(Map.of(bytes, values));
        Expr.Load word = (Expr.Load) words.word(channels, Map.of(m, i64(3))).orElseThrow();
        assertEquals(ScalarType.I32, word.type());
        assertEquals(3, word.buffer().size());
        byte[] expected = {-6, -3, 0, 3, -5, -2, 1, 4, -4, -1, 2, 5};
        assertArrayEquals(expected, words.constants().get(word.buffer().storage()).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(Optional.empty(), words.word(channels.subList(0, 2), Map.of(m, i64(3))), "two bytes are no word");
    }

    @Test
    void fourChannelsOfEachMapBecomeOneWordPerMap() {
        ConstantWords words = new ConstantWords(Map.of(weights, shorts(12, 100)));
        Expr.Load word = (Expr.Load) words.word(channelsOfMap(), Map.of(m, i64(3))).orElseThrow();
        assertEquals(ScalarType.I64, word.type());
        assertEquals(3, word.buffer().size());
        assertEquals(op(ScalarOp.ADD, i64(0), op(ScalarOp.MUL, new Expr.Var(m), i64(1))), word.index());
        MemorySegment laidOut = words.constants().get(word.buffer().storage());
        short[] expected = {100, 103, 106, 109, 101, 104, 107, 110, 102, 105, 108, 111};
        assertArrayEquals(expected, laidOut.toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
    }

    @Test
    void operandsThatAreNotConstantsOrReachPastTheBufferStayLoads() {
        ConstantWords words = new ConstantWords(Map.of(weights, shorts(12, 100)));
        List<Expr> notConstant = List.of(0, 1, 2, 3).stream().<Expr>map(c -> new Expr.Load(activations, i64(c))).toList();
        assertEquals(Optional.empty(), words.word(notConstant, Map.of()));
        assertEquals(Optional.empty(), words.word(channelsOfMap(), Map.of(m, i64(4))), "a layout larger than the weights");
        List<Expr> pastTheEnd = List.of(10, 11, 12, 13).stream().<Expr>map(i -> new Expr.Load(weights, i64(i))).toList();
        assertEquals(Optional.empty(), words.word(pastTheEnd, Map.of()));
        LoopVar n = new LoopVar("n");
        Map<LoopVar, Expr> unknownExtent = Map.of(m, new Expr.Var(n));
        assertEquals(Optional.empty(), words.word(channelsOfMap(), unknownExtent));
    }

    @Test
    void aGroupedDotProductOverConstantWeightsCallsTheWordFunction() {
        Local acc = new Local("acc", ScalarType.I64);
        LoopVar c = new LoopVar("c");
        Expr wAt = new Expr.Load(weights, op(ScalarOp.ADD, op(ScalarOp.MUL, new Expr.Var(c), i64(3)), new Expr.Var(m)));
        Stmt product = new Stmt.Assign(acc, new Expr.Call("mac", ScalarType.I64, List.of(new Expr.LocalRef(acc),
            new Expr.Load(activations, new Expr.Var(c)), wAt), Expr.Call.Passing.UPDATES_FIRST_IN_PLACE));
        List<Stmt> body = List.of(new Stmt.For(m, i64(3), List.of(new Stmt.For(c, i64(4), List.of(product)))));
        Kernel kernel = new Kernel("k", "Gemm", List.of(activations, weights), List.of(), List.of(), Map.of(), body);
        Map<Buffer, MemorySegment> constants = new LinkedHashMap<>();
        constants.put(weights, shorts(12, 100));
        Program program = new Program("p", List.of(kernel), List.of(activations), List.of(), List.of(), List.of(), constants, List.of());
        Program grouped = new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, TestFunctions::macWord, List.of(4, 2)).apply(program);
        Stmt.For maps = (Stmt.For) grouped.kernels().getFirst().body().getFirst();
        Stmt.For groups = (Stmt.For) maps.body().getFirst();
        Expr.Call call = (Expr.Call) ((Stmt.Assign) groups.body().getFirst()).value();
        assertEquals("mac4_word", call.function());
        assertEquals(6, call.args().size(), "the accumulator, four activations, one word");
        Expr.Load word = assertInstanceOf(Expr.Load.class, call.args().get(5));
        assertTrue(grouped.constants().containsKey(word.buffer().storage()));
        assertEquals(2, grouped.constants().size());
    }

    @Test
    void loopsTheActivationsDoNotUseRunInsideThoseTheyUse() {
        // for k, for map, for p: acc[map][p] += planes[k][p] * w[map][k]; the activations do not use map.
        Buffer planes = new Buffer("planes", ScalarType.I16, new long[]{4, 3});
        Buffer w = new Buffer("w", ScalarType.I16, new long[]{2, 4});
        Buffer acc = new Buffer("acc", ScalarType.I64, new long[]{2, 3});
        LoopVar k = new LoopVar("k"), map = new LoopVar("map"), p = new LoopVar("p");
        Expr accAt = op(ScalarOp.ADD, op(ScalarOp.MUL, new Expr.Var(map), i64(3)), new Expr.Var(p));
        Expr product = new Expr.Call("mac", ScalarType.I64, List.of(new Expr.Load(acc, accAt),
            new Expr.Load(planes, op(ScalarOp.ADD, op(ScalarOp.MUL, new Expr.Var(k), i64(3)), new Expr.Var(p))),
            new Expr.Load(w, op(ScalarOp.ADD, op(ScalarOp.MUL, new Expr.Var(map), i64(4)), new Expr.Var(k)))),
            Expr.Call.Passing.UPDATES_FIRST_IN_PLACE);
        List<Stmt> body = List.of(new Stmt.For(k, i64(4), List.of(new Stmt.For(map, i64(2),
            List.of(new Stmt.For(p, i64(3), List.of(new Stmt.Store(acc, accAt, product))))))));
        Kernel kernel = new Kernel("k", "Conv", List.of(planes, w), List.of(), List.of(acc), Map.of(), body);
        Program program = new Program("p", List.of(kernel), List.of(planes), List.of(), List.of(), List.of(),
            Map.of(w, shorts(8, 100)), List.of());
        Stmt.For groups = (Stmt.For) new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, TestFunctions::macWord, List.of(4, 2))
            .apply(program).kernels().getFirst().body().getFirst();
        Stmt.For outer = (Stmt.For) groups.body().getFirst();
        Stmt.For inner = (Stmt.For) outer.body().getFirst();
        assertEquals(List.of(p, map), List.of(outer.var(), inner.var()));
        Expr.Call call = (Expr.Call) ((Stmt.Store) inner.body().getFirst()).value();
        assertEquals("mac4_word", call.function());
    }
}
