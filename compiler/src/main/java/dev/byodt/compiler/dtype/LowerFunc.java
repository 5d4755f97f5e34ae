package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;

import java.util.Map;

/**
 * How one operation of a datatype is computed: a plain Java value that rewrites the operation, given its
 * operands already in the datatype's storage integers, into a scalar expression. Usually a call of a library
 * function ({@link #createLowerFunc}, {@link #libraryFunction}); any expression of machine types will do, so
 * a datatype can compute an operation inline (a posit comparison is a signed integer comparison).
 * Returning null means "no lowering for this instance" (a width the function table does not cover).
 */
@FunctionalInterface
public interface LowerFunc {
    Expr lower(LoweringSite site);

    /**
     * TVM's create_lower_func: the library function per width, {@code Map.of(16, "posit16_add", 32, "posit32_add")}.
     * The call has the operation's C signature (see {@link DatatypeOp}); a width missing from the map has no lowering.
     */
    static LowerFunc createLowerFunc(Map<Integer, String> functionByBits) {
        Map<Integer, String> table = Map.copyOf(functionByBits);
        return site -> {
            String function = table.get(site.instance().bits());
            return function == null ? null : site.call(function);
        };
    }

    /** The library function named PREFIX_SUFFIX, PREFIX being the instance's (posit16es2_add for suffix "add"). */
    static LowerFunc libraryFunction(String suffix) {
        return site -> site.call(site.instance().prefix() + "_" + suffix);
    }
}
