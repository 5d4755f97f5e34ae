package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Exprs;

import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.select;

/** The arithmetic of two broadcast tensors; on integers Div truncates toward zero, as ONNX's reference does. */
final class BinaryArithmetic {
    private BinaryArithmetic() {}

    static void registerAll() {
        Operators.register("Add", new ElementwiseBinary(Exprs::add));
        Operators.register("Sub", new ElementwiseBinary(Exprs::sub));
        Operators.register("Mul", new ElementwiseBinary(Exprs::mul));
        Operators.register("Div", new ElementwiseBinary(Exprs::div));
        // PRelu: the slope tensor broadcasts to x; integer tensors are allowed from opset 16.
        Operators.register("PRelu", ElementwiseBinary.slopeBroadcasting((x, slope) -> select(lt(x, constant(x.type(), 0)), mul(slope, x), x)));
    }
}
