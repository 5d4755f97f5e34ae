package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The weights of grouped products as words, laid out at compile time. A group of G products inside loops
 * v1..vn takes G operands that are loads {@code W[i_0(v)] .. W[i_(G-1)(v)]} of a constant 16- or 8-bit buffer,
 * which are rarely neighbours (Conv's weights for consecutive input channels are a whole channel apart), so
 * they would be loaded one at a time and packed into a register with shifts. Instead a new constant holds,
 * for every value of the loop variables the indices use, those G elements side by side: the group's operand
 * is then one aligned load of a G-lane word (64 bits for 4 16-bit lanes or 8 8-bit ones, 32 for 2 or 4), at
 * {@code sum(v_m * stride_m)} with the variables in nesting order. The elements are those the loads would
 * read, so the products are the same.
 * <p>
 * A group is laid out only where every variable its indices use runs over a constant extent, the indices
 * are sums and products of those variables and constants, every index they reach is inside the buffer, and
 * the new constant is no larger than the buffer it reads (it may repeat an element only as often as it
 * leaves others out), so that weights never grow.
 */
final class ConstantWords {
    private final Map<Buffer, MemorySegment> constants;
    /** The words already laid out, by the loads they replace and the loops they run over. */
    private final Map<List<Object>, Buffer> laidOut = new HashMap<>();

    /** Lays out words from the {@code constants} of a program; {@link #constants()} adds the new ones. */
    ConstantWords(Map<Buffer, MemorySegment> constants) { this.constants = new LinkedHashMap<>(constants); }

    /** The program's constants and the words laid out so far. */
    Map<Buffer, MemorySegment> constants() { return constants; }

    /** Whether {@code e} loads one of the constants this lays out words from. */
    boolean loadsConstant(Expr e) {
        return e instanceof Expr.Load load && constants.containsKey(load.buffer()) && laneBits(load.buffer()) != 0;
    }

    /** 16 or 8 for the buffers whose elements this lays out as lanes, else 0. */
    private static int laneBits(Buffer buffer) {
        return buffer.elementType() == ScalarType.I16 ? 16 : buffer.elementType() == ScalarType.I8 ? 8 : 0;
    }

    /**
     * One load of a G-lane word holding the elements {@code members} load, G = members.size() (2 or 4 16-bit
     * lanes, 4 or 8 8-bit ones: a 32- or 64-bit word),
     * for a statement inside {@code loops} (each loop's variable and extent, outermost first); empty when
     * they cannot be laid out.
     */
    Optional<Expr> word(List<Expr> members, Map<LoopVar, Expr> loops) {
        if (!(members.getFirst() instanceof Expr.Load first) || !constants.containsKey(first.buffer())) return Optional.empty();
        int bits = laneBits(first.buffer()), wordBits = bits * members.size();
        if (bits == 0 || (wordBits != 32 && wordBits != 64)) return Optional.empty();
        List<Expr> indices = new ArrayList<>();
        for (Expr member : members) {
            if (!(member instanceof Expr.Load load) || load.buffer() != first.buffer()) return Optional.empty();
            indices.add(load.index());
        }
        List<LoopVar> vars = new ArrayList<>();
        List<Long> extents = new ArrayList<>();
        for (Map.Entry<LoopVar, Expr> loop : loops.entrySet()) {
            if (indices.stream().noneMatch(i -> LoopIndices.uses(i, loop.getKey()))) continue;
            if (!(loop.getValue() instanceof Expr.IntConst extent) || extent.value() < 1) return Optional.empty();
            vars.add(loop.getKey());
            extents.add(extent.value());
        }
        MemorySegment source = constants.get(first.buffer());
        long elements = source.byteSize() / (bits / 8);
        long words = 1;
        for (long extent : extents) {
            words *= extent;
            if (words * members.size() > elements) return Optional.empty();
        }
        List<Object> key = List.of(first.buffer(), indices, vars, extents);
        Buffer buffer = laidOut.get(key);
        if (buffer == null) {
            Optional<MemorySegment> contents = gathered(source, bits, elements, indices, vars, extents, words);
            if (contents.isEmpty()) return Optional.empty();
            buffer = new Buffer(first.buffer().name() + "_words" + laidOut.size(), first.buffer().elementType(), new long[]{words * members.size()});
            constants.put(buffer, contents.get());
            laidOut.put(key, buffer);
        }
        Expr at = new Expr.IntConst(ScalarType.I64, 0);
        long stride = words;
        for (int m = 0; m < vars.size(); m++) {
            stride /= extents.get(m);
            Expr term = new Expr.Op(ScalarOp.MUL, ScalarType.I64, List.of(new Expr.Var(vars.get(m)), new Expr.IntConst(ScalarType.I64, stride)));
            at = new Expr.Op(ScalarOp.ADD, ScalarType.I64, List.of(at, term));
        }
        ScalarType word = wordBits == 64 ? ScalarType.I64 : ScalarType.I32;
        return Optional.of(new Expr.Load(buffer.view(word, words), at));
    }

    /** Word after word (the last variable fastest), the elements at {@code indices}; empty if one is outside the buffer. */
    private static Optional<MemorySegment> gathered(MemorySegment source, int bits, long elements, List<Expr> indices, List<LoopVar> vars,
                                                    List<Long> extents, long words) {
        // A heap segment over bytes: the code generator bakes constants from byte arrays.
        MemorySegment out = MemorySegment.ofArray(new byte[Math.toIntExact(bits / 8 * words * indices.size())]);
        Map<LoopVar, Long> values = new HashMap<>();
        for (long w = 0; w < words; w++) {
            long rest = w;
            for (int m = vars.size() - 1; m >= 0; m--) {
                values.put(vars.get(m), rest % extents.get(m));
                rest /= extents.get(m);
            }
            for (int lane = 0; lane < indices.size(); lane++) {
                Long index = value(indices.get(lane), values);
                if (index == null || index < 0 || index >= elements) return Optional.empty();
                long at = w * indices.size() + lane;
                if (bits == 16) out.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, at, source.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, index));
                else out.set(ValueLayout.JAVA_BYTE, at, source.get(ValueLayout.JAVA_BYTE, index));
            }
        }
        return Optional.of(out);
    }

    /** The value of an index built of constants, loop variables, sums, differences and products; null for anything else. */
    private static Long value(Expr e, Map<LoopVar, Long> values) {
        return switch (e) {
            case Expr.IntConst c -> c.value();
            case Expr.Var v -> values.get(v.var());
            case Expr.Op o when o.args().size() == 2 && (o.op() == ScalarOp.ADD || o.op() == ScalarOp.SUB || o.op() == ScalarOp.MUL) -> {
                Long x = value(o.arg(0), values), y = value(o.arg(1), values);
                yield x == null || y == null ? null
                    : o.op() == ScalarOp.ADD ? x + y : o.op() == ScalarOp.SUB ? x - y : x * y;
            }
            default -> null;
        };
    }
}
