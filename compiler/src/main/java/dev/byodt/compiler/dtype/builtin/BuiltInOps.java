package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.DatatypeOp;

import java.util.List;

import static dev.byodt.compiler.dtype.DatatypeOp.*;

/** The groups of library functions the built-in C libraries define (docs/bring-your-own-datatype.md, "The C library"). */
final class BuiltInOps {
    private BuiltInOps() {}

    /** Arithmetic, real functions and rounding: every operation on values but the comparisons. */
    static final List<DatatypeOp> ARITHMETIC = valueOps().stream().filter(op -> !op.isComparison()).toList();

    static final List<DatatypeOp> COMPARISONS = valueOps().stream().filter(DatatypeOp::isComparison).toList();

    static final List<DatatypeOp> CONVERSIONS = List.of(FROM_F32, TO_F32, FROM_I32, TO_I32, FROM_F64, LOWEST);

    static final List<DatatypeOp> EXACT_ACCUMULATION = List.of(ACC_MAC, ACC_ADD, ACC_ROUND);
}
