package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.exactMac;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.le;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * --accumulate exact for MatMul, Gemm, Conv and ConvTranspose in a datatype whose values are float32s of at most p
 * significand bits ({@link dev.byodt.compiler.dtype.Datatype#exactSumSignificandBits}): the kernel checks, as it
 * starts, whether a sum in double of its products is exact, and then sums them in double (its operands decoded once,
 * {@link DecodedOperands}, into doubles) and rounds each output once by from_f64; otherwise it runs its loops as they are, in the
 * datatype's exact accumulator (a quire of up to 1024 bits, updated through every word for each product).
 *
 * <p>Why the check proves the sum exact. A nonzero value x of p significand bits has its lowest set bit at or
 * above 2^(floor(log2 |x|) - p + 1) > |x| 2^-p (a subnormal's bits are a subset of that grid). So with A the
 * first operands of the products and B the second, every product is an integer multiple of
 * u = min|A| min|B| 2^-2p (least nonzero magnitudes; the lowest set bit of a product is the product of its
 * factors' lowest set bits), and it is exact in double (at most 2 x 24 significand bits, magnitudes within
 * 2^-298 .. 2^256). Every partial sum of at most K products (K the terms of one output) is then a multiple of u of
 * magnitude at most K max|A| max|B|; a double holds each such multiple exactly up to 2^53 u, so every addition is
 * exact, in any order, when K max|A| max|B| <= 2^(53 - 2p) min|A| min|B|. The kernel evaluates that in double with
 * a factor 2 to spare for the rounding of its left side (the right side is exact). A NaN or infinity (a posit's
 * NaR decodes to NaN) makes the comparison false, so such operands take the accumulator, which treats them as the
 * library says. The exact sum, +0 when it is zero (the accumulator has no -0), rounds by from_f64 as acc_round
 * would round the accumulator (the definition declares it), so both branches give the same bits.
 *
 * <p>min and max are taken over each operand's whole tensor: weights decoded at compile time, activations by a loop
 * over them as the kernel starts. The kernel sums in double when each side's magnitudes span less than about
 * 2^((52 - 2p - log2 K) / 2): for K = 576, 2^9.4 in posit16, 2^13.4 in bfloat16, 2^10.4 in float16, 2^17.4 in the
 * 8-bit formats.
 */
final class DoubleSums {
    private final Kernel kernel;
    private final DecodedOperands.Decoding decoding;
    private final Map<Buffer, MemorySegment> constants;

    private DoubleSums(Kernel kernel, DecodedOperands.Decoding decoding, Map<Buffer, MemorySegment> constants) {
        this.kernel = kernel;
        this.decoding = decoding;
        this.constants = constants;
    }

    /**
     * {@code kernel} with a branch that sums in double when its operands allow it, or empty when its shape is not
     * one this knows ({@code decoding} is its operands decoded, {@code constants} the program's, decoded ones with them).
     */
    static Optional<Kernel> of(Kernel kernel, DecodedOperands.Decoding decoding, int significandBits, Map<Buffer, MemorySegment> constants) {
        OptionalLong terms = DotProductKernels.termsPerSum(kernel);
        if (terms.isEmpty()) return Optional.empty();
        return new DoubleSums(kernel, widened(decoding, constants), constants).build(terms.getAsLong(), significandBits);
    }

    /**
     * {@code d} with its float32 copies widened to double (constants as they are put in {@code constants}), so that a
     * product multiplies two doubles loaded as they are: a conversion per product took as long as the product.
     */
    private static DecodedOperands.Decoding widened(DecodedOperands.Decoding d, Map<Buffer, MemorySegment> constants) {
        Map<Buffer, Buffer> wide = new HashMap<>();
        for (Buffer copy : d.copies().values()) {
            Buffer w = new Buffer(copy.name() + ".double", ScalarType.F64, copy.shape());
            wide.put(copy, w);
            MemorySegment floats = constants.get(copy);
            if (floats != null) constants.put(w, doubles(floats));
        }
        KernelRewriter widening = new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) {
                if (s instanceof Stmt.Store store && wide.containsKey(store.buffer())) {
                    return List.of(new Stmt.Store(wide.get(store.buffer()), expr(store.index()), cast(ScalarType.F64, expr(store.value()))));
                }
                return super.stmt(s);
            }

            @Override
            public Buffer buffer(Buffer b) { return wide.getOrDefault(b, b); }
        };
        Map<Buffer, Buffer> copies = new LinkedHashMap<>();
        d.copies().forEach((original, copy) -> copies.put(original, wide.get(copy)));
        return new DecodedOperands.Decoding(widening.body(d.loops()), widening.body(d.body()),
            d.scratch().stream().map(widening::buffer).toList(), copies, d.filledDecoded());
    }

    private static MemorySegment doubles(MemorySegment floats) {
        long count = floats.byteSize() / Float.BYTES;
        MemorySegment values = Arena.ofAuto().allocate(Math.max(1, count * Double.BYTES), 64).asSlice(0, count * Double.BYTES);
        for (long i = 0; i < count; i++) values.setAtIndex(ValueLayout.JAVA_DOUBLE, i, floats.getAtIndex(ValueLayout.JAVA_FLOAT, i));
        return values;
    }

    private Optional<Kernel> build(long terms, int significandBits) {
        InDouble inDouble = new InDouble();
        RowPairs rowPairs = new RowPairs();
        RowTiles rowTiles = new RowTiles();
        List<Stmt> doubleBody = rowPairs.body(new ColumnTiles().body(rowTiles.body(inDouble.body(decoding.body()))));
        if (inDouble.unsupported) return Optional.empty();
        Optional<OperandExtremes> extremes = OperandExtremes.of(kernel, decoding, constants);
        if (extremes.isEmpty()) return Optional.empty();
        OperandExtremes.Extremes a = extremes.get().a(), b = extremes.get().b();
        Expr bound = mul(mul(f64(2.0 * terms), a.largest()), b.largest());
        Expr grid = mul(mul(f64(Math.scalb(1.0, 53 - 2 * significandBits)), a.least()), b.least());
        List<Stmt> body = new ArrayList<>(decoding.loops());
        body.addAll(extremes.get().statistics());
        body.add(new Stmt.If(le(bound, grid), doubleBody, kernel.body()));
        Set<Buffer> scratch = new LinkedHashSet<>(kernel.scratch());
        scratch.addAll(decoding.scratch());
        scratch.addAll(extremes.get().scratch());
        scratch.addAll(inDouble.accumulators.values());
        scratch.addAll(rowPairs.secondRows);
        scratch.addAll(rowTiles.tiles);
        return Optional.of(new Kernel(kernel.name(), kernel.opType(), kernel.inputs(), kernel.outputs(), new ArrayList<>(scratch),
            kernel.constants(), body));
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }

    /**
     * A row of sums (a loop over terms k around a loop over columns j that adds term k to acc[j], {@link
     * dev.byodt.compiler.ops.RowOfSums}) taken {@value #TILE} columns at a time, the loop over k inside: float32's
     * rows of 256 sums stay in 16 vector registers across k, where 256 doubles would not fit and went through
     * memory at every term (4.7 times float32's time per product rather than about 2). Each column still sums its
     * own terms in the order of k (in double, exact here, any order would do).
     */
    private static final class ColumnTiles extends KernelRewriter {
        /** Columns a tile: 8 vectors of AVX-512's doubles, 16 of AVX2's. */
        static final long TILE = 64;

        @Override
        public List<Stmt> stmt(Stmt s) {
            if (!(s instanceof Stmt.For terms) || terms.body().size() != 1 || !(terms.body().getFirst() instanceof Stmt.For columns)
                || !(columns.extent() instanceof Expr.IntConst n) || n.value() <= TILE || n.value() % TILE != 0
                || !updatesOnlyItsColumn(columns)) {
                return super.stmt(s);
            }
            LoopVar tile = new LoopVar(columns.var().name() + ".tile"), within = new LoopVar(columns.var().name() + ".within");
            Expr column = add(mul(new Expr.Var(tile), TILE), new Expr.Var(within));
            KernelRewriter renamed = new KernelRewriter() {
                @Override
                public Expr expr(Expr e) { return e instanceof Expr.Var v && v.var() == columns.var() ? column : rebuilt(e); }
            };
            return List.of(new Stmt.For(tile, idx(n.value() / TILE), List.of(new Stmt.For(terms.var(), terms.extent(),
                List.of(new Stmt.For(within, idx(TILE), renamed.body(columns.body())))))));
        }

        /** Whether {@code columns}' body is one store to acc[j] of a value that reads acc at j only (j its variable). */
        private static boolean updatesOnlyItsColumn(Stmt.For columns) {
            if (columns.body().size() != 1 || !(columns.body().getFirst() instanceof Stmt.Store store)
                || store.buffer().elementType() != ScalarType.F64 || !isVar(store.index(), columns.var())) {
                return false;
            }
            boolean[] only = {true};
            KernelWalker.visit(store.value(), e -> {
                if (e instanceof Expr.Load l && l.buffer() == store.buffer()) only[0] &= isVar(l.index(), columns.var());
            });
            return only[0];
        }

        private static boolean isVar(Expr e, LoopVar v) { return e instanceof Expr.Var var && var.var() == v; }
    }

    /**
     * Rows of sums two at a time: a loop over rows whose body starts by zeroing a whole row of accumulators (then
     * sums into it and stores the outputs) runs the bodies of rows 2r and 2r + 1 jammed, loop in loop, the second
     * row in a row of accumulators of its own. Each term of B a tile loads then serves two rows (with {@link
     * ColumnTiles}, 16 vectors of sums stay in registers): loads of B bounded the loop, 8 bytes a product. The rows
     * share nothing but their operands (the body writes no buffer it reads, but its row of accumulators, which it
     * zeroes first), so any order of their statements gives the same sums.
     */
    private static final class RowPairs extends KernelRewriter {
        final List<Buffer> secondRows = new ArrayList<>();

        @Override
        public List<Stmt> stmt(Stmt s) {
            if (!(s instanceof Stmt.For rows) || !(rows.extent() instanceof Expr.IntConst m) || m.value() < 2) return super.stmt(s);
            Optional<Buffer> accumulators = zeroedRow(rows.body());
            if (accumulators.isEmpty() || !independent(rows.body(), accumulators.get())) return super.stmt(s);
            Buffer acc = accumulators.get();
            Buffer second = new Buffer(acc.name() + ".second", ScalarType.F64, acc.shape());
            secondRows.add(second);
            LoopVar pair = new LoopVar(rows.var().name() + ".pair");
            List<Stmt> first = substituted(rows.body(), rows.var(), mul(new Expr.Var(pair), 2), acc, acc);
            List<Stmt> next = substituted(rows.body(), rows.var(), add(mul(new Expr.Var(pair), 2), idx(1)), acc, second);
            List<Stmt> out = new ArrayList<>(List.of(new Stmt.For(pair, idx(m.value() / 2), jammedNests(first, next, acc))));
            if (m.value() % 2 == 1) out.addAll(substituted(rows.body(), rows.var(), idx(m.value() - 1), acc, acc));
            return out;
        }

        /**
         * The F64 buffer, one row, the body's first statement zeroes whole (for j < its size: acc[j] = 0), if it does. A
         * register tile's block of rows (RegisterTile, or rows tiled by {@link RowTiles}) fills the registers alone.
         */
        private static Optional<Buffer> zeroedRow(List<Stmt> body) {
            if (body.isEmpty() || !(body.getFirst() instanceof Stmt.For zero) || zero.body().size() != 1
                || !(zero.body().getFirst() instanceof Stmt.Store store) || store.buffer().elementType() != ScalarType.F64
                || store.buffer().rank() != 1
                || !(store.index() instanceof Expr.Var v) || v.var() != zero.var() || !(store.value() instanceof Expr.RealConst c)
                || c.value() != 0 || !(zero.extent() instanceof Expr.IntConst n) || n.value() != store.buffer().size()) {
                return Optional.empty();
            }
            return Optional.of(store.buffer());
        }

        /** Whether the body loads no buffer it stores but {@code acc}, and its loops' extents are constants. */
        private static boolean independent(List<Stmt> body, Buffer acc) {
            Set<Buffer> stored = DecodedOperands.writtenBuffers(body);
            boolean[] ok = {true};
            new KernelRewriter() {
                @Override
                public List<Stmt> stmt(Stmt s) {
                    if (s instanceof Stmt.For f) ok[0] &= f.extent() instanceof Expr.IntConst;
                    return super.stmt(s);
                }
            }.body(body);
            KernelWalker.forEachExpr(body, e -> {
                if (e instanceof Expr.Load l && l.buffer() != acc) ok[0] &= !stored.contains(l.buffer());
            });
            return ok[0];
        }

        /**
         * {@code body} for the row {@code at}, summing into {@code into} rather than {@code acc}; the second row's
         * copy ({@code into} not {@code acc}) has locals of its own (a bias each row reads), since the rows' statements interleave.
         */
        private static List<Stmt> substituted(List<Stmt> body, LoopVar row, Expr at, Buffer acc, Buffer into) {
            Map<Local, Local> locals = new HashMap<>();
            return new KernelRewriter() {
                @Override
                public Expr expr(Expr e) { return e instanceof Expr.Var v && v.var() == row ? at : rebuilt(e); }

                @Override
                public Buffer buffer(Buffer b) { return b == acc ? into : b; }

                @Override
                public Local local(Local l) {
                    return into == acc ? l : locals.computeIfAbsent(l, own -> new Local(own.name() + ".second", own.type()));
                }
            }.body(body);
        }

        /**
         * The two rows' bodies ({@code a}'s accumulators {@code acc}), their loop nests that write nothing but the
         * accumulators jammed, and the rest one after the other: a single loop of two rows' outputs vectorized two
         * lanes wide where each alone takes the whole vector, and the rows' stores elsewhere keep their order.
         */
        private static List<Stmt> jammedNests(List<Stmt> a, List<Stmt> b, Buffer acc) {
            List<Stmt> out = new ArrayList<>();
            for (int n = 0; n < a.size(); n++) {
                boolean nest = a.get(n) instanceof Stmt.For x && x.body().stream().anyMatch(t -> t instanceof Stmt.For)
                    && DecodedOperands.writtenBuffers(List.of(x)).equals(Set.of(acc));
                if (nest) out.addAll(jammed(List.of(a.get(n)), List.of(b.get(n))));
                else out.addAll(List.of(a.get(n), b.get(n)));
            }
            return out;
        }

        /** Two bodies of the same shape as one: loops over the same variable merged, other statements one after the other. */
        private static List<Stmt> jammed(List<Stmt> a, List<Stmt> b) {
            if (a.size() != b.size()) {
                List<Stmt> both = new ArrayList<>(a);
                both.addAll(b);
                return both;
            }
            List<Stmt> out = new ArrayList<>();
            for (int n = 0; n < a.size(); n++) {
                if (a.get(n) instanceof Stmt.For x && b.get(n) instanceof Stmt.For y && x.var() == y.var()) {
                    out.add(new Stmt.For(x.var(), x.extent(), jammed(x.body(), y.body())));
                } else {
                    out.add(a.get(n));
                    out.add(b.get(n));
                }
            }
            return out;
        }
    }

    /**
     * The decoded body with its accumulators in double: a mac adds the double product of its decoded operands, and
     * an output is the sum plus +0 (so that -0 becomes +0) rounded by the datatype's from_f64.
     */
    private static final class InDouble extends RetypedAccumulators {
        InDouble() { super(ScalarType.F64, ".double"); }

        @Override
        Expr mac(Expr acc, Expr a, Expr b) {
            return exactMac(acc, toDouble(a), toDouble(b));
        }

        @Override
        Expr output(Expr acc) { return op(ScalarOp.CAST, ScalarType.REAL, op(ScalarOp.ADD, ScalarType.F64, acc, f64(0))); }

        private static Expr toDouble(Expr operand) {
            return operand.type() == ScalarType.F64 ? operand : new Expr.Op(ScalarOp.CAST, ScalarType.F64, List.of(operand));
        }
    }
}
