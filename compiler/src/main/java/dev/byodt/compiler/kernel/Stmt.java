package dev.byodt.compiler.kernel;

import java.util.List;

/** Kernel statements: loops, stores, assignments to locals, and hints to the cache. */
public sealed interface Stmt {
    /** for (var = 0; var < extent; var++) body */
    record For(LoopVar var, Expr extent, List<Stmt> body) implements Stmt {
        public For {
            body = List.copyOf(body);
        }
    }

    /** buffer[index] = value */
    record Store(Buffer buffer, Expr index, Expr value) implements Stmt {}

    /**
     * A hint that buffer[index] will be read soon: the machine may bring its cache line into the first-level cache
     * (x86's prefetcht0). It changes no value; targets without the instruction ignore it.
     */
    record Prefetch(Buffer buffer, Expr index) implements Stmt {}

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
