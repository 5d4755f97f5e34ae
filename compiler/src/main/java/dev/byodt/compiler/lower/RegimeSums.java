package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.PositScales;
import dev.byodt.compiler.dtype.RoundingWithinScales;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.le;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * --accumulate dtype for MatMul, Gemm, Conv and ConvTranspose in a posit whose sums run in float32 registers
 * ({@link dev.byodt.compiler.dtype.Datatype#roundingWithinScales}): the kernel checks, as it starts, whether its
 * operands' magnitudes keep every product and partial sum at scales where the posit has a fraction bit
 * ({@link PositScales} says which check and proves it), and then rounds each of them with the library's
 * rounded_f32_with_fraction, about half rounded_f32's instructions; otherwise it runs its decoded loops as they are,
 * rounding with rounded_f32. Both round every value to the same posit, in the same order, so the bits are the same.
 * The extremes are {@link OperandExtremes}', over each operand's whole tensor (DoubleSums does the same for exact sums),
 * and the least product, where the kernel's products pair items ({@link DotProductKernels#pairedItems}), item by item.
 */
final class RegimeSums {
    private RegimeSums() {}

    /**
     * The decoded kernel ({@code decoding} of {@code kernel}) with a branch that rounds within the posit's scales where
     * its operands allow it, or empty when its shape is not one this knows or its sums have too many terms for any.
     */
    static Optional<Kernel> of(Kernel kernel, DecodedOperands.Decoding decoding, RoundingWithinScales rounding,
                               Map<Buffer, MemorySegment> constants) {
        OptionalLong terms = DotProductKernels.termsPerSum(kernel);
        if (terms.isEmpty()) return Optional.empty();
        OptionalDouble largestProduct = rounding.scales().largestProduct(terms.getAsLong());
        if (largestProduct.isEmpty()) return Optional.empty();
        WithinScales within = new WithinScales(rounding);
        List<Stmt> fastBody = within.body(decoding.body());
        if (within.unsupported) return Optional.empty();
        Optional<OperandExtremes> extremes = OperandExtremes.of(kernel, decoding, constants);
        if (extremes.isEmpty()) return Optional.empty();
        OperandExtremes.Extremes a = extremes.get().a(), b = extremes.get().b();
        Expr sumsFit = le(mul(a.largest(), b.largest()), f64(largestProduct.getAsDouble()));
        Expr productsFit = le(f64(rounding.scales().leastProduct()), extremes.get().leastProduct());
        List<Stmt> body = new ArrayList<>(decoding.loops());
        body.addAll(extremes.get().statistics());
        body.add(new Stmt.If(and(sumsFit, productsFit), fastBody, decoding.body()));
        Set<Buffer> scratch = new LinkedHashSet<>(decoding.scratch());
        scratch.addAll(extremes.get().scratch());
        scratch.addAll(within.accumulators.values());
        return Optional.of(new Kernel(kernel.name(), kernel.opType(), kernel.inputs(), kernel.outputs(), new ArrayList<>(scratch),
            kernel.constants(), body));
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }

    /**
     * The decoded body with its accumulators in float32: a mac of decoded operands rounds their float32 product, then
     * the float32 sum, by rounded_f32_with_fraction, as RoundedFloat32Accumulator does by rounded_f32, and an output is
     * the sum converted by from_f32, as its round. A mac of operands not decoded is marked unsupported.
     */
    private static final class WithinScales extends RetypedAccumulators {
        private final RoundingWithinScales rounding;

        WithinScales(RoundingWithinScales rounding) {
            super(ScalarType.F32, ".within");
            this.rounding = rounding;
        }

        @Override
        Expr mac(Expr acc, Expr a, Expr b) {
            unsupported |= a.type() != ScalarType.F32 || b.type() != ScalarType.F32;
            return rounded(ScalarOp.ADD, acc, rounded(ScalarOp.MUL, a, b));
        }

        @Override
        Expr output(Expr acc) { return op(ScalarOp.CAST, ScalarType.REAL, acc); }

        private Expr rounded(ScalarOp op, Expr x, Expr y) { return rounding.rounded().apply(op(op, ScalarType.F32, x, y)); }
    }
}
