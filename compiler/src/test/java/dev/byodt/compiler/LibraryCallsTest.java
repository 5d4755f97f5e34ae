package dev.byodt.compiler;

import dev.byodt.compiler.dtype.LoweringLog;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.LibraryFunction;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Calls of a function the target's extension declares are checked against its declared type. */
class LibraryCallsTest {
    private static final LibraryFunction MAX = new LibraryFunction("ext_max", ScalarType.I16, List.of(ScalarType.I16, ScalarType.I16));

    private static Program calling(Expr.Call call) {
        Buffer in = new Buffer("in", call.args().getFirst().type(), new long[]{1});
        Buffer out = new Buffer("out", call.type(), new long[]{1});
        Kernel kernel = new Kernel("k0.Max.m", "Max", List.of(in), List.of(out), List.of(), Map.of(),
            List.of(new Stmt.Store(out, new Expr.IntConst(ScalarType.I64, 0), call)));
        return new Program("p", List.of(kernel), List.of(in), List.of(), List.of(out), List.of(), Map.of(), List.of());
    }

    @Test
    void aCallThatGivesADeclaredFunctionAnotherTypeIsAnError() {
        Expr x = new Expr.IntConst(ScalarType.I32, 1);
        LibraryCalls calls = LibraryCalls.of(calling(new Expr.Call("ext_max", ScalarType.I32, List.of(x, x))), List.of(MAX));
        String message = assertThrows(ByodtException.class, () -> calls.check(List.of(), new LoweringLog(), Map.of())).getMessage();
        assertTrue(message.startsWith("ext_max is declared as i16 (i16, i16), but k0.Max.m calls it as i32 (i32, i32); "), message);
    }

    @Test
    void aCallBuiltFromTheDeclarationExpectsTheDeclaredType() {
        Expr x = new Expr.IntConst(ScalarType.I16, 1);
        LibraryCalls calls = LibraryCalls.of(calling(MAX.call(x, x)), List.of(MAX));
        String message = assertThrows(ByodtException.class, () -> calls.check(List.of(), new LoweringLog(), Map.of())).getMessage();
        assertEquals("the datatype libraries defines no function ext_max", message);
    }
}
