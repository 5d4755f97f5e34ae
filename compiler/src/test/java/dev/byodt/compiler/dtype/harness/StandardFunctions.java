package dev.byodt.compiler.dtype.harness;

import dev.byodt.compiler.dtype.DatatypeOp;

import java.util.LinkedHashMap;
import java.util.Map;

/** The operations every datatype library defines (docs/bring-your-own-datatype.md, "The C library"), by shape. */
public final class StandardFunctions {
    private StandardFunctions() {}

    /** Operation name (the function name after {@code <prefix>_}) to shape, in the contract's order. */
    public static Map<String, FunctionShape> all() {
        Map<String, FunctionShape> ops = new LinkedHashMap<>();
        for (DatatypeOp op : DatatypeOp.valueOps()) {
            ops.put(op.functionSuffix(), op.isComparison() ? FunctionShape.COMPARE : op.arity() == 2 ? FunctionShape.BINARY : FunctionShape.UNARY);
        }
        ops.put("from_f32", FunctionShape.FROM_F32);
        ops.put("to_f32", FunctionShape.TO_F32);
        ops.put("from_f64", FunctionShape.FROM_F64);
        ops.put("from_i32", FunctionShape.FROM_I32);
        ops.put("to_i32", FunctionShape.TO_I32);
        ops.put("lowest", FunctionShape.CONSTANT);
        return ops;
    }
}
