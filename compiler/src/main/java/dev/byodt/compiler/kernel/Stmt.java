package dev.byodt.compiler.kernel;

import java.util.List;

/** Kernel statements: loops, stores and assignments to locals. */
public sealed interface Stmt {
    /** for (var = 0; var < extent; var++) body */
    record For(LoopVar var, Expr extent, List<Stmt> body) implements Stmt {
        public For {
            body = List.copyOf(body);
        }
    }

    /** buffer[index] = value */
    record Store(Buffer buffer, Expr index, Expr value) implements Stmt {}

    /** local = value */
    record Assign(Local local, Expr value) implements Stmt {}

    /** if (condition) then else otherwise */
    record If(Expr condition, List<Stmt> then, List<Stmt> otherwise) implements Stmt {
        public If {
            then = List.copyOf(then);
            otherwise = List.copyOf(otherwise);
        }
    }
}
