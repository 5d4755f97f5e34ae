package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

/**
 * One operation to lower, as a {@link LowerFunc} sees it: which operation, on which datatype instance, with
 * which operands (machine types: the storage integer for values, F32/F64/I32 for conversions, the wide
 * integer for an exact accumulator).
 */
public record LoweringSite(DatatypeOp op, DatatypeInstance instance, List<Expr> args) {
    public LoweringSite {
        args = List.copyOf(args);
        if (args.size() != op.arity()) throw new IllegalArgumentException(op + " takes " + op.arity() + " operands, not " + args.size());
    }

    public Expr arg(int i) { return args.get(i); }

    /** The machine type holding a value of the instance. */
    public ScalarType storage() { return instance.storage(); }

    /**
     * A call of {@code function} with the operation's C signature: a comparison's int result becomes a
     * BOOL, and an accumulator goes by pointer.
     */
    public Expr call(String function) {
        ScalarType result = switch (op.result()) {
            case VALUE -> instance.storage();
            case FLOAT -> ScalarType.F32;
            case DOUBLE -> ScalarType.F64;
            case INT32 -> ScalarType.I32;
            case ACCUMULATOR, NOTHING -> args.getFirst().type();
        };
        Expr.Call.Passing passing = switch (op.result()) {
            case NOTHING -> Expr.Call.Passing.UPDATES_FIRST_IN_PLACE;
            default -> op.params().contains(DatatypeOp.Kind.ACCUMULATOR) ? Expr.Call.Passing.READS_FIRST_BY_POINTER : Expr.Call.Passing.BY_VALUE;
        };
        Expr call = new Expr.Call(function, result, args, passing);
        return op.isComparison() ? Exprs.ne(call, new Expr.IntConst(ScalarType.I32, 0)) : call;
    }
}
