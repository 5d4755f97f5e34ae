package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Which loops GroupedProducts groups, and what it makes of them. */
class GroupedProductsTest {
    private static final GroupedProducts PAIRING = new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, List.of(2));
    private static final GroupedProducts FOURS = new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, List.of(4));
    private static final GroupedProducts FOURS_THEN_PAIRS = new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, List.of(4, 2));
    private static final GroupedProducts EIGHTS_THEN_FOURS = new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, List.of(8, 4));
    private static final Expr.Call.Passing IN_PLACE = Expr.Call.Passing.UPDATES_FIRST_IN_PLACE;
    private final Buffer a = new Buffer("a", ScalarType.I16, new long[]{5});
    private final Buffer b = new Buffer("b", ScalarType.I16, new long[]{5});
    private final Local acc = new Local("acc", ScalarType.I64);

    private static Expr i64(long v) { return new Expr.IntConst(ScalarType.I64, v); }

    private Stmt.Assign product(Expr k) {
        return new Stmt.Assign(acc, new Expr.Call("mac", ScalarType.I64,
            List.of(new Expr.LocalRef(acc), new Expr.Load(a, k), new Expr.Load(b, k)), IN_PLACE));
    }

    @Test
    void anOddDotProductBecomesPairsAndOneSingleStep() {
        LoopVar k = new LoopVar("k");
        List<Stmt> paired = PAIRING.rewrite(List.of(new Stmt.For(k, i64(5), List.of(product(new Expr.Var(k))))));
        assertEquals(2, paired.size());
        Stmt.For pairs = assertInstanceOf(Stmt.For.class, paired.get(0));
        assertEquals(i64(2), pairs.extent());
        Expr.Call both = (Expr.Call) ((Stmt.Assign) pairs.body().getFirst()).value();
        assertEquals("mac2", both.function());
        Expr twoJ = new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(pairs.var()), i64(2)));
        Expr twoJPlusOne = new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(twoJ, i64(1)));
        assertEquals(List.of(new Expr.LocalRef(acc), new Expr.Load(a, twoJ), new Expr.Load(a, twoJPlusOne),
            new Expr.Load(b, twoJ), new Expr.Load(b, twoJPlusOne)), both.args());
        assertEquals(product(i64(4)), paired.get(1));
    }

    @Test
    void sevenProductsBecomeOneGroupOfFourAndThreeSingleSteps() {
        LoopVar k = new LoopVar("k");
        List<Stmt> grouped = FOURS.rewrite(List.of(new Stmt.For(k, i64(7), List.of(product(new Expr.Var(k))))));
        assertEquals(4, grouped.size());
        Stmt.For fours = assertInstanceOf(Stmt.For.class, grouped.get(0));
        assertEquals(i64(1), fours.extent());
        Expr.Call four = (Expr.Call) ((Stmt.Assign) fours.body().getFirst()).value();
        assertEquals("mac4", four.function());
        Expr fourJ = new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(fours.var()), i64(4)));
        List<Expr> at = List.of(fourJ, plus(fourJ, 1), plus(fourJ, 2), plus(fourJ, 3));
        assertEquals(List.of(new Expr.LocalRef(acc), new Expr.Load(a, at.get(0)), new Expr.Load(a, at.get(1)), new Expr.Load(a, at.get(2)),
            new Expr.Load(a, at.get(3)), new Expr.Load(b, at.get(0)), new Expr.Load(b, at.get(1)), new Expr.Load(b, at.get(2)),
            new Expr.Load(b, at.get(3))), four.args());
        assertEquals(List.of(product(i64(4)), product(i64(5)), product(i64(6))), grouped.subList(1, 4));
    }

    @Test
    void sevenProductsInFoursAndPairsBecomeAGroupOfFourAPairAndASingleStep() {
        LoopVar k = new LoopVar("k");
        List<Stmt> grouped = FOURS_THEN_PAIRS.rewrite(List.of(new Stmt.For(k, i64(7), List.of(product(new Expr.Var(k))))));
        assertEquals(3, grouped.size());
        Stmt.For fours = assertInstanceOf(Stmt.For.class, grouped.get(0));
        assertEquals(i64(1), fours.extent());
        assertEquals("mac4", ((Expr.Call) ((Stmt.Assign) fours.body().getFirst()).value()).function());
        Stmt.Assign pair = assertInstanceOf(Stmt.Assign.class, grouped.get(1));
        assertEquals(new Expr.Call("mac2", ScalarType.I64, List.of(new Expr.LocalRef(acc), new Expr.Load(a, i64(4)),
            new Expr.Load(a, i64(5)), new Expr.Load(b, i64(4)), new Expr.Load(b, i64(5))), IN_PLACE), pair.value());
        assertEquals(product(i64(6)), grouped.get(2));
    }

    @Test
    void sixProductsInFoursAndPairsLeaveNoSingleStep() {
        LoopVar k = new LoopVar("k");
        List<Stmt> grouped = FOURS_THEN_PAIRS.rewrite(List.of(new Stmt.For(k, i64(6), List.of(product(new Expr.Var(k))))));
        assertEquals(2, grouped.size());
        assertEquals("mac2", ((Expr.Call) assertInstanceOf(Stmt.Assign.class, grouped.get(1)).value()).function());
    }

    @Test
    void fiveProductsInEightsAndFoursBecomeAGroupOfFourAndASingleStep() {
        LoopVar k = new LoopVar("k");
        GroupedProducts eightsThenFours = new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, List.of(8, 4));
        List<Stmt> grouped = eightsThenFours.rewrite(List.of(new Stmt.For(k, i64(5), List.of(product(new Expr.Var(k))))));
        assertEquals(2, grouped.size());
        Stmt.For fours = assertInstanceOf(Stmt.For.class, grouped.get(0));
        assertEquals(i64(1), fours.extent());
        assertEquals("mac4", ((Expr.Call) ((Stmt.Assign) fours.body().getFirst()).value()).function());
        assertEquals(product(i64(4)), grouped.get(1));
    }

    @Test
    void aFiveByFiveWindowGroupsItsFifthRowToo() {
        LoopVar row = new LoopVar("row"), column = new LoopVar("column");
        Buffer window = new Buffer("window", ScalarType.I16, new long[]{25});
        Expr at = new Expr.Op(ScalarOp.ADD, ScalarType.I64,
            List.of(new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(row), i64(5))), new Expr.Var(column)));
        Stmt.Assign tap = new Stmt.Assign(acc, new Expr.Call("mac", ScalarType.I64,
            List.of(new Expr.LocalRef(acc), new Expr.Load(window, at), new Expr.Load(b, new Expr.Var(column))), IN_PLACE));
        List<Stmt> grouped = FOURS.rewrite(List.of(new Stmt.For(row, i64(5), List.of(new Stmt.For(column, i64(5), List.of(tap))))));
        assertEquals(3, grouped.size());
        Stmt.For rows = assertInstanceOf(Stmt.For.class, grouped.get(0));
        Stmt.For columns = assertInstanceOf(Stmt.For.class, rows.body().getFirst());
        assertEquals(i64(5), columns.extent());
        assertEquals("mac4", ((Expr.Call) ((Stmt.Assign) columns.body().getFirst()).value()).function());
        Stmt.For fifthRow = assertInstanceOf(Stmt.For.class, grouped.get(1));
        assertEquals(i64(1), fifthRow.extent());
        assertEquals("mac4", ((Expr.Call) ((Stmt.Assign) fifthRow.body().getFirst()).value()).function());
        assertEquals("mac", ((Expr.Call) assertInstanceOf(Stmt.Assign.class, grouped.get(2)).value()).function());
    }

    @Test
    void aFiveByFiveWindowInEightsAndFoursBecomesThreeGroupsOfEightAcrossRowsAndASingleStep() {
        LoopVar row = new LoopVar("row"), column = new LoopVar("column");
        Buffer window = new Buffer("window", ScalarType.I16, new long[]{25});
        Stmt.Assign tap = new Stmt.Assign(acc, new Expr.Call("mac", ScalarType.I64,
            List.of(new Expr.LocalRef(acc), new Expr.Load(window, windowIndex(new Expr.Var(row), new Expr.Var(column))),
                new Expr.Load(b, new Expr.Var(column))), IN_PLACE));
        List<Stmt> grouped = EIGHTS_THEN_FOURS.rewrite(List.of(new Stmt.For(row, i64(5), List.of(new Stmt.For(column, i64(5), List.of(tap))))));
        assertEquals(4, grouped.size());
        Expr.Call first = (Expr.Call) assertInstanceOf(Stmt.Assign.class, grouped.getFirst()).value();
        assertEquals("mac8", first.function());
        // Row 0's five taps, then row 1's first three: the unrolled products in order, the outer loop slowest.
        long[][] taps = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 0}, {1, 1}, {1, 2}};
        for (int x = 0; x < 8; x++) {
            assertEquals(new Expr.Load(window, windowIndex(i64(taps[x][0]), i64(taps[x][1]))), first.args().get(1 + x));
            assertEquals(new Expr.Load(b, i64(taps[x][1])), first.args().get(9 + x));
        }
        assertEquals("mac8", ((Expr.Call) ((Stmt.Assign) grouped.get(1)).value()).function());
        assertEquals("mac8", ((Expr.Call) ((Stmt.Assign) grouped.get(2)).value()).function());
        Expr.Call last = (Expr.Call) ((Stmt.Assign) grouped.get(3)).value();
        assertEquals(List.of(new Expr.LocalRef(acc), new Expr.Load(window, windowIndex(i64(4), i64(4))), new Expr.Load(b, i64(4))), last.args());
    }

    @Test
    void reductionLoopsOnBothSidesOfAnOutputLoopAreUnrolledTogetherAroundIt() {
        LoopVar row = new LoopVar("row"), column = new LoopVar("column"), output = new LoopVar("output");
        Buffer window = new Buffer("window", ScalarType.I16, new long[]{25});
        Buffer sums = new Buffer("sums", ScalarType.I64, new long[]{3});
        Expr sum = new Expr.Load(sums, new Expr.Var(output));
        Stmt.Store tap = new Stmt.Store(sums, new Expr.Var(output), new Expr.Call("mac", ScalarType.I64,
            List.of(sum, new Expr.Load(window, windowIndex(new Expr.Var(row), new Expr.Var(column))), new Expr.Load(b, new Expr.Var(output))), IN_PLACE));
        List<Stmt> grouped = EIGHTS_THEN_FOURS.rewrite(List.of(new Stmt.For(row, i64(5),
            List.of(new Stmt.For(output, i64(3), List.of(new Stmt.For(column, i64(5), List.of(tap))))))));
        assertEquals(4, grouped.size());
        for (int g = 0; g < 4; g++) {
            Stmt.For outputs = assertInstanceOf(Stmt.For.class, grouped.get(g));
            assertEquals(i64(3), outputs.extent());
            Stmt.Store update = assertInstanceOf(Stmt.Store.class, outputs.body().getFirst());
            assertEquals(g < 3 ? "mac8" : "mac", ((Expr.Call) update.value()).function());
        }
    }

    @Test
    void aNestOfShortLoopsWithTooManyProductsIsGroupedLoopByLoop() {
        LoopVar outer = new LoopVar("outer"), inner = new LoopVar("inner");
        Buffer many = new Buffer("many", ScalarType.I16, new long[]{5 * 100});
        Expr at = new Expr.Op(ScalarOp.ADD, ScalarType.I64,
            List.of(new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(outer), i64(100))), new Expr.Var(inner)));
        Stmt.Assign tap = new Stmt.Assign(acc, new Expr.Call("mac", ScalarType.I64,
            List.of(new Expr.LocalRef(acc), new Expr.Load(many, at), new Expr.Load(many, at)), IN_PLACE));
        List<Stmt> grouped = EIGHTS_THEN_FOURS.rewrite(List.of(new Stmt.For(outer, i64(5), List.of(new Stmt.For(inner, i64(100), List.of(tap))))));
        Stmt.For outers = assertInstanceOf(Stmt.For.class, grouped.getFirst());
        assertEquals(i64(5), outers.extent());
    }

    private static Expr windowIndex(Expr row, Expr column) {
        return new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(row, i64(5))), column));
    }

    @Test
    void groupSizesMustDecrease() {
        assertThrows(IllegalArgumentException.class, () -> new GroupedProducts(TestFunctions.mac(1), TestFunctions::mac, List.of(2, 4)));
    }

    @Test
    void aLoopShorterThanAGroupIsLeftAlone() {
        LoopVar k = new LoopVar("k");
        List<Stmt> loops = List.of(new Stmt.For(k, i64(3), List.of(product(new Expr.Var(k)))));
        assertEquals(loops, FOURS.rewrite(loops));
    }

    private static Expr plus(Expr e, long v) { return new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(e, i64(v))); }

    @Test
    void aNestWhoseInnerExtentDependsOnTheReductionIsLeftAlone() {
        LoopVar k = new LoopVar("k"), j = new LoopVar("j");
        Expr triangle = new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(new Expr.Var(k), i64(1)));
        List<Stmt> loops = List.of(new Stmt.For(k, i64(4), List.of(new Stmt.For(j, triangle, List.of(product(new Expr.Var(j)))))));
        assertEquals(loops, PAIRING.rewrite(loops));
    }

    @Test
    void aLoopWithMoreThanTheProductIsLeftAlone() {
        LoopVar k = new LoopVar("k");
        List<Stmt> loops = List.of(new Stmt.For(k, i64(4), List.of(product(new Expr.Var(k)), product(new Expr.Var(k)))));
        assertEquals(loops, PAIRING.rewrite(loops));
    }
}
