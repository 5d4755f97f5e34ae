package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * AveragePool's 2x2 windows with stride 2 in fxp16_P or fxp8_P, summed exactly (--accumulate exact), four outputs
 * per P call ({@code byodt_p16x4_mean2x2_MODE}, {@code byodt_p8x4_mean2x2_MODE}): fixed.c's sum of each window,
 * fitted once, divided by 4, bit for bit.
 * <p>
 * The pooling kernel runs over the outputs flattened, {@code y[i] = div(acc_round(sum of acc_add(x[...]))), 4)},
 * so no group of its iterations reads words. Where the kernel is exactly that, without padding (the input's rows
 * and columns twice the output's; each window's element index checked for every output and tap), it becomes a
 * loop along output rows: four adjacent outputs of a row read two words of 4 values (64 bits of fxp16, 32 of
 * fxp8) of each of their two input rows and store one word. A word must be aligned: rows of an odd length do not
 * pack (LeNet-5's pool2, 5 outputs a row, whose input rows start 20 bytes apart in fxp16); rows of a length 2
 * mod 4 (pool1's 14) start every other one 2 outputs into a word, so those two, and the last outputs of a row,
 * are computed one at a time as before.
 * Not the caller's tensors, whose alignment byodt cannot rely on (a fixed-point model's are float32 anyway).
 */
final class PackedMeans {
    /** An fxp16_P or fxp8_P datatype's width, fraction bits and mode (its library functions' prefix names it: {@code fxp16_13}). */
    record Datatype(int bits, int fraction, String mode) {}

    private static final int LANES = 4;

    private final Map<String, Datatype> datatypes;

    /**
     * @param datatypes the fxp16_P and fxp8_P datatypes of the program by library prefix; the target's registers
     *                  hold 4 16-bit lanes
     */
    PackedMeans(Map<String, Datatype> datatypes) {
        this.datatypes = Map.copyOf(datatypes);
    }

    Program apply(Program program) {
        Set<Buffer> callers = new HashSet<>(program.inputs());
        callers.addAll(program.outputs());
        return program.withKernelBodies(body -> new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) {
                if (s instanceof Stmt.For f) {
                    Pool pool = pool(f, callers);
                    if (pool != null) return pool.rows();
                }
                return List.of(rebuilt(s));
            }
        }.body(body));
    }

    /**
     * The pooling kernel {@code f} computes, or null when it is not one of 2x2 windows that packs. Its four taps are
     * written out, top left to bottom right ({@code WindowGeometry.forEachTapUnrolled}).
     */
    private Pool pool(Stmt.For f, Set<Buffer> callers) {
        int taps = 4;
        if (!(f.extent() instanceof Expr.IntConst total) || f.body().size() != taps + 2
            || !(f.body().getFirst() instanceof Stmt.Assign zero) || !(zero.value() instanceof Expr.IntConst z) || z.value() != 0
            || !(f.body().getLast() instanceof Stmt.Store store) || !(store.index() instanceof Expr.Var at) || at.var() != f.var()) return null;
        List<Expr.Load> loads = new ArrayList<>();
        String addFunction = null;
        for (Stmt s : f.body().subList(1, taps + 1)) {
            if (!(s instanceof Stmt.Assign add) || add.local() != zero.local()
                || !(add.value() instanceof Expr.Call addCall) || !addCall.function().endsWith("_acc_add") || addCall.args().size() != 2
                || addFunction != null && !addFunction.equals(addCall.function())
                || !(addCall.args().get(0) instanceof Expr.LocalRef summed) || summed.local() != zero.local()
                || !(addCall.args().get(1) instanceof Expr.Load tap) || !loads.isEmpty() && tap.buffer() != loads.getFirst().buffer()) return null;
            addFunction = addCall.function();
            loads.add(tap);
        }
        String prefix = addFunction.substring(0, addFunction.length() - "_acc_add".length());
        Datatype datatype = datatypes.get(prefix);
        if (datatype == null || !isQuarterOfSum(store.value(), prefix, datatype, zero)) return null;
        Buffer x = loads.getFirst().buffer(), y = store.buffer();
        ScalarType value = ScalarType.integerOfBits(datatype.bits());
        if (callers.contains(x) || callers.contains(y) || x.rank() != 4 || y.rank() != 4
            || x.elementType() != value || y.elementType() != value || y.size() != total.value()) return null;
        long outputRows = y.dim(0) * y.dim(1) * y.dim(2), width = y.dim(3);
        if (x.dim(0) != y.dim(0) || x.dim(1) != y.dim(1) || x.dim(2) != 2 * y.dim(2) || x.dim(3) != 2 * width
            || width % 2 != 0 || width < LANES || !readsWindows(loads, f.var(), total.value(), width)) return null;
        return new Pool(f, x, y, outputRows, width, PFunctions.means2x2(datatype.bits(), datatype.mode()));
    }

    /**
     * {@code div_i32(acc_round(sum), 4)}, or {@code div(acc_round(sum), 4)} with 4 a constant of the format (a
     * format that holds 4 divides by it: fixed.c's div by a power of two, the same shifts).
     */
    private static boolean isQuarterOfSum(Expr value, String prefix, Datatype datatype, Stmt.Assign zero) {
        if (!(value instanceof Expr.Call div) || div.args().size() != 2 || !(div.args().get(0) instanceof Expr.Call round)
            || !round.function().equals(prefix + "_acc_round") || round.args().size() != 1
            || !(round.args().getFirst() instanceof Expr.LocalRef sum) || sum.local() != zero.local()) return false;
        Expr count = div.args().get(1);
        if (div.function().equals(prefix + "_div_i32")) {
            if (count instanceof Expr.Op cast && cast.op() == ScalarOp.CAST && cast.args().size() == 1) count = cast.arg(0);
            return count instanceof Expr.IntConst n && n.value() == 4;
        }
        int unused = 64 - datatype.bits();
        return div.function().equals(prefix + "_div") && count instanceof Expr.IntConst n
            && datatype.fraction() <= datatype.bits() - 4 && n.value() << unused >> unused == 4L << datatype.fraction();
    }

    /**
     * Whether tap t (window row t / 2, column t % 2) of output i loads x's element ((2 oh + t / 2) W + 2 ow + t % 2) of
     * its plane, oh and ow the output's row and column (W = 2 width, an output plane row by row): evaluated for
     * every output and tap.
     */
    private static boolean readsWindows(List<Expr.Load> taps, LoopVar i, long total, long width) {
        Map<LoopVar, Long> at = new HashMap<>();
        for (long output = 0; output < total; output++) {
            long row = output / width, column = output % width;
            at.put(i, output);
            for (int t = 0; t < taps.size(); t++) {
                Long value = evaluate(taps.get(t).index(), at);
                if (value == null || value != (2 * row + t / 2) * 2 * width + 2 * column + t % 2) return false;
            }
        }
        return true;
    }

    /** An index expression's value for these loop variables, or null if it is not one of +, -, *, /, %. */
    private static Long evaluate(Expr e, Map<LoopVar, Long> at) {
        if (e instanceof Expr.IntConst c) return c.value();
        if (e instanceof Expr.Var v) return at.get(v.var());
        if (!(e instanceof Expr.Op o) || o.args().size() != 2) return null;
        Long a = evaluate(o.arg(0), at), b = evaluate(o.arg(1), at);
        if (a == null || b == null) return null;
        return switch (o.op()) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> b == 0 ? null : a / b;
            case REM -> b == 0 ? null : a % b;
            default -> null;
        };
    }

    /** A pooling kernel that packs, and what it becomes. */
    private record Pool(Stmt.For kernel, Buffer x, Buffer y, long outputRows, long width, LibraryFunction means) {
        /**
         * Its outputs along rows: rows in pairs when a row's length is 2 mod 4 (the second starts 2 outputs into
         * a word), a last unpaired row alone.
         */
        List<Stmt> rows() {
            long period = width % LANES == 0 ? 1 : 2;
            LoopVar block = new LoopVar(kernel.var().name() + "_rows");
            List<Stmt> paired = new ArrayList<>();
            for (long phase = 0; phase < period; phase++) paired.addAll(row(block, period, phase));
            List<Stmt> out = new ArrayList<>();
            out.add(new Stmt.For(block, index(outputRows / period), paired));
            for (long r = outputRows / period * period; r < outputRows; r++) out.addAll(row(block, 0, r));
            return out;
        }

        /**
         * Row r = {@code factor} block + {@code offset}: the outputs before its first aligned word, one at a time,
         * its words, then the outputs after them. factor W is a multiple of 4, so every such row starts as far
         * into a word as r = offset does.
         */
        private List<Stmt> row(LoopVar block, long factor, long offset) {
            long head = Math.floorMod(-offset * width, LANES), words = (width - head) / LANES, tail = width - head - LANES * words;
            List<Stmt> out = new ArrayList<>(oneAtATime(affine(block, factor * width, offset * width), head, "head"));
            LoopVar group = new LoopVar(kernel.var().name() + "_words");
            ScalarType wordType = means.result();
            Buffer xWords = x.view(wordType, x.size() / LANES), yWords = y.view(wordType, y.size() / LANES);
            // Word (2 r W + 2 (head + 4 g)) / 4 of x (x's rows are 2 W long): the window's first row; W / 2 words on, its second.
            long top = offset * width + head / 2;
            Expr value = means.call(load(xWords, block, factor * width, top, group), load(xWords, block, factor * width, top + 1, group),
                load(xWords, block, factor * width, top + width / 2, group), load(xWords, block, factor * width, top + width / 2 + 1, group));
            Expr word = add(affine(block, factor * width / LANES, (offset * width + head) / LANES), new Expr.Var(group));
            out.add(new Stmt.For(group, index(words), List.of(new Stmt.Store(yWords, word, value))));
            out.addAll(oneAtATime(affine(block, factor * width, offset * width + head + LANES * words), tail, "tail"));
            return out;
        }

        /** Word {@code coefficient} block + {@code constant} + 2 group of x. */
        private static Expr load(Buffer words, LoopVar block, long coefficient, long constant, LoopVar group) {
            return new Expr.Load(words, add(affine(block, coefficient, constant), mul(new Expr.Var(group), 2)));
        }

        /** {@code coefficient} block + {@code constant}. */
        private static Expr affine(LoopVar block, long coefficient, long constant) {
            return coefficient == 0 ? index(constant) : add(mul(new Expr.Var(block), coefficient), index(constant));
        }

        /** The kernel's own body for outputs first .. first + count - 1. */
        private List<Stmt> oneAtATime(Expr first, long count, String part) {
            if (count == 0) return List.of();
            LoopVar k = new LoopVar(kernel.var().name() + "_" + part);
            Expr output = add(first, new Expr.Var(k));
            List<Stmt> body = new KernelRewriter() {
                @Override
                public Expr expr(Expr e) { return e instanceof Expr.Var v && v.var() == kernel.var() ? output : rebuilt(e); }
            }.body(kernel.body());
            return List.of(new Stmt.For(k, index(count), body));
        }

        private static Expr index(long value) { return new Expr.IntConst(ScalarType.I64, value); }

        private static Expr add(Expr a, Expr b) { return new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(a, b)); }

        private static Expr mul(Expr a, long factor) { return new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(a, index(factor))); }
    }
}
