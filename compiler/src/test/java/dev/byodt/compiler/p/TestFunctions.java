package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.LibraryFunction;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Library functions with short names, for the P passes' tests: what the passes match and call, not fixed_p.c's. */
final class TestFunctions {
    private TestFunctions() {}

    /** mac (one product), macG (G products): 16-bit products into a 64-bit accumulator updated in place. */
    static LibraryFunction mac(int products) {
        List<ScalarType> parameters = new ArrayList<>(List.of(ScalarType.I64));
        parameters.addAll(Collections.nCopies(2 * products, ScalarType.I16));
        return new LibraryFunction("mac" + (products == 1 ? "" : products), ScalarType.I64, parameters, Expr.Call.Passing.UPDATES_FIRST_IN_PLACE);
    }

    /** macG_word: G products whose b operands come as one word. */
    static LibraryFunction macWord(int products) {
        List<ScalarType> parameters = new ArrayList<>(List.of(ScalarType.I64));
        parameters.addAll(Collections.nCopies(products, ScalarType.I16));
        parameters.add(ScalarType.integerOfBits(16 * products));
        return new LibraryFunction("mac" + products + "_word", ScalarType.I64, parameters, Expr.Call.Passing.UPDATES_FIRST_IN_PLACE);
    }

    /** pBITS_add on one value. */
    static LibraryFunction add(int bits) {
        ScalarType t = ScalarType.integerOfBits(bits);
        return new LibraryFunction("p" + bits + "_add", t, List.of(t, t));
    }

    /** pBITSxL_add on words of L lanes. */
    static LibraryFunction packedAdd(int bits, int lanes) {
        ScalarType word = ScalarType.integerOfBits(bits * lanes);
        return new LibraryFunction("p" + bits + "x" + lanes + "_add", word, List.of(word, word));
    }

    /** pBITS_mul (lanes 1) or pBITSxL_mul: a product of two values, or words, and an int32 parameter that every lane shares. */
    static LibraryFunction mul(int bits, int lanes) {
        ScalarType word = ScalarType.integerOfBits(bits * lanes);
        return new LibraryFunction("p" + bits + (lanes == 1 ? "" : "x" + lanes) + "_mul", word, List.of(word, word, ScalarType.I32));
    }

    /** pBITSxL_pack: L values as one word. */
    static LibraryFunction pack(int bits, int lanes) {
        return new LibraryFunction("p" + bits + "x" + lanes + "_pack", ScalarType.integerOfBits(bits * lanes),
            Collections.nCopies(lanes, ScalarType.integerOfBits(bits)));
    }

    /** min, max and clipK on 16-bit values. */
    static LibraryFunction min16() { return new LibraryFunction("min", ScalarType.I16, List.of(ScalarType.I16, ScalarType.I16)); }

    static LibraryFunction max16() { return new LibraryFunction("max", ScalarType.I16, List.of(ScalarType.I16, ScalarType.I16)); }

    static LibraryFunction clip16(int k) { return new LibraryFunction("clip" + k, ScalarType.I16, List.of(ScalarType.I16)); }
}
