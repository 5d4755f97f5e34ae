package dev.byodt.compiler.dtype;

import dev.byodt.compiler.codegen.HostConversion;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How each datatype lowers a mean's division by its count: the datatypes that hold their counts lower it to
 * exactly the code every mean compiled to before (a division by the count's constant, or by the count
 * converted at run time), so their results keep their bits; fixed point divides the counts it does not hold as
 * an integer; any other count a datatype does not hold becomes a product with 1/n. MeanInFixedPointTest checks fixed point's results bit for
 * bit against exact arithmetic.
 */
class CountDivisionTest {
    private static final Local VALUE = new Local("sum", ScalarType.REAL);
    private static final Local COUNT = new Local("count", ScalarType.I64);

    private static RegisteredDatatype datatype(String name) {
        DatatypeChoice choice = DatatypeChoice.float32().withDatatype(name);
        DatatypeInstance instance = choice.registry().instance(name, choice.options());
        return new RegisteredDatatype(instance, choice.accumulationOf(instance), LoweringTarget.ANY, Optional.empty(),
            new LoweringLog(), (i, fromF64, toF32) -> HostConversion.of(i.library().orElseThrow(), fromF64, toF32, i.storage(), 0));
    }

    /** {@code op} lowered by {@code d}, the value local's lowered form {@code value}. */
    private static Expr lowered(RegisteredDatatype d, Expr.Op op, Expr value) {
        List<Expr> args = op.args().stream().map(a -> switch (a) {
            case Expr.LocalRef l when l.local() == VALUE -> value;
            case Expr.RealConst c -> d.constant(c.value());
            case Expr.Op cast when cast.op() == ScalarOp.CAST -> d.lower(cast, List.of(cast.arg(0)));
            default -> a;
        }).toList();
        return d.lower(op, args);
    }

    private static Expr.Op op(Expr e) { return (Expr.Op) e; }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "custom[posit]16", "bfloat16", "float16"})
    void datatypesHoldingTheCountDivideAsBefore(String name) {
        RegisteredDatatype d = datatype(name);
        Expr sum = new Expr.LocalRef(VALUE), value = new Expr.LocalRef(new Local("sum", d.storageType()));
        for (long n = 1; n <= 256; n++) {
            assertTrue(d.holdsExactly(n), name + " holds " + n);
            assertEquals(lowered(d, op(Exprs.div(sum, Exprs.real(n))), value), lowered(d, op(Exprs.divideByCount(sum, n)), value),
                name + ", the mean of " + n);
        }
        Expr count = new Expr.LocalRef(COUNT);
        assertEquals(lowered(d, op(Exprs.div(sum, Exprs.cast(ScalarType.REAL, count))), value),
            lowered(d, op(Exprs.divideByCount(sum, count, 9)), value), name + ", a mean of a count known at run time");
    }

    /** bfloat16 holds 256 and 258 but not 257: the mean of 257 multiplies by bfloat16's nearest 1/257. */
    @Test
    void aCountTheDatatypeDoesNotHoldMultipliesByItsReciprocal() {
        RegisteredDatatype bfloat16 = datatype("bfloat16");
        assertFalse(bfloat16.holdsExactly(257));
        Expr sum = new Expr.LocalRef(VALUE), value = new Expr.LocalRef(new Local("sum", bfloat16.storageType()));
        assertEquals(lowered(bfloat16, op(Exprs.mul(sum, Exprs.real(1.0 / 257))), value),
            lowered(bfloat16, op(Exprs.divideByCount(sum, 257)), value));
    }

    /**
     * fxp16_13 holds 1 to 3, which divide as before, and no integer from 4 on: those divide the stored integer
     * (div_i32), and so does a count known at run time that may be 4 or more.
     */
    @Test
    void fixedPointDividesByTheIntegerCountItDoesNotHold() {
        RegisteredDatatype fxp = datatype("fxp16_13");
        Expr sum = new Expr.LocalRef(VALUE), value = new Expr.LocalRef(new Local("sum", fxp.storageType()));
        for (long n = 1; n <= 3; n++) {
            assertTrue(fxp.holdsExactly(n));
            assertEquals(lowered(fxp, op(Exprs.div(sum, Exprs.real(n))), value), lowered(fxp, op(Exprs.divideByCount(sum, n)), value));
        }
        for (long n : new long[] {4, 9, 1000}) {
            assertFalse(fxp.holdsExactly(n));
            assertCallsDivI32(lowered(fxp, op(Exprs.divideByCount(sum, n)), value));
        }
        assertCallsDivI32(lowered(fxp, op(Exprs.divideByCount(sum, new Expr.LocalRef(COUNT), 4)), value));
    }

    private static void assertCallsDivI32(Expr mean) {
        assertTrue(mean instanceof Expr.Call call && call.function().equals("fxp16_13_div_i32"), mean.toString());
    }
}
