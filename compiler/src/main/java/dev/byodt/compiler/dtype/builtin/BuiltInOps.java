package dev.byodt.compiler.dtype.builtin;

import dev.byodt.compiler.dtype.DatatypeOp;

import static dev.byodt.compiler.dtype.DatatypeOp.*;

/** The groups of library functions the built-in C libraries define (docs/bring-your-own-datatype.md, "The C library"). */
final class BuiltInOps {
    private BuiltInOps() {}

    static final DatatypeOp[] ARITHMETIC = {ADD, SUB, MUL, DIV, MIN, MAX, POW, NEG, ABS, SQRT, EXP, LOG, TANH, SIGMOID, ERF};

    static final DatatypeOp[] COMPARISONS = {LT, LE, GT, GE, EQ, NE};

    static final DatatypeOp[] CONVERSIONS = {FROM_F32, TO_F32, FROM_I32, TO_I32, FROM_F64, LOWEST};

    static final DatatypeOp[] EXACT_ACCUMULATION = {ACC_MAC, ACC_ADD, ACC_ROUND};
}
