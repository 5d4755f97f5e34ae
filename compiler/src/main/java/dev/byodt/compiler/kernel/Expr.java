package dev.byodt.compiler.kernel;

import java.util.List;

/** Kernel expressions: side-effect free scalar values. Build them with {@link Exprs}. */
public sealed interface Expr {
    ScalarType type();

    /** An integer or boolean constant (BOOL: 0 or 1). */
    record IntConst(ScalarType type, long value) implements Expr {}

    /** A real constant (ONNX's FloatImm): a REAL or ACC value the datatype converts from this double. */
    record RealConst(ScalarType type, double value) implements Expr {}

    /** The current value of a loop's induction variable. */
    record Var(LoopVar var) implements Expr {
        public ScalarType type() { return ScalarType.I64; }
    }

    record LocalRef(Local local) implements Expr {
        public ScalarType type() { return local.type(); }
    }

    /** buffer[index], index an I64 flat element offset. */
    record Load(Buffer buffer, Expr index) implements Expr {
        public ScalarType type() { return buffer.elementType(); }
    }

    /** A scalar operation; type is its result type. */
    record Op(ScalarOp op, ScalarType type, List<Expr> args) implements Expr {
        public Op {
            args = List.copyOf(args);
        }

        public Expr arg(int i) { return args.get(i); }
    }

    /**
     * A call to a datatype library function; only datatype lowering creates these. {@code passing} says how
     * the first argument travels: by value (every ordinary function), or, for an exact accumulator too wide
     * for registers, by pointer to a copy, as C libraries take {@code uint64_t *acc}.
     */
    record Call(String function, ScalarType type, List<Expr> args, Passing passing) implements Expr {
        public Call {
            args = List.copyOf(args);
            if (passing != Passing.BY_VALUE && (args.isEmpty() || !args.getFirst().type().isInteger())) {
                throw new IllegalArgumentException(function + ": an accumulator passed by pointer must be the first argument");
            }
        }

        /** A call whose arguments are all passed by value. */
        public Call(String function, ScalarType type, List<Expr> args) {
            this(function, type, args, Passing.BY_VALUE);
        }

        public enum Passing {
            BY_VALUE,
            /** {@code void f(uint64_t *acc, ...)} updates the accumulator in place; the call's value is the updated accumulator. */
            UPDATES_FIRST_IN_PLACE,
            /** {@code T f(const uint64_t *acc)} reads the accumulator; the call's value is what f returns. */
            READS_FIRST_BY_POINTER
        }
    }
}
