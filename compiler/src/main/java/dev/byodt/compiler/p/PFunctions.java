package dev.byodt.compiler.p;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.lower.LibraryFunction;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The functions of fixed_p.c, the P library, as typed references: what P's lowerings and passes call, and
 * what the compiler checks their calls and the library against. fxp16_P values are 16-bit lanes
 * ({@code byodt_p16_OP}), fxp8_P values 8-bit lanes ({@code byodt_p8_OP}); packed forms take L lanes in one
 * 32- or 64-bit word ({@code byodt_p16xL_OP}, {@code byodt_p8xL_OP}).
 */
final class PFunctions {
    private PFunctions() {}

    /** The element-wise operations P has for 16- and 8-bit lanes, on one value and packed. */
    static final List<String> LANE_OPERATIONS = List.of("add_saturate", "sub_saturate", "add_wrap", "sub_wrap", "max", "min");

    /**
     * The largest k of byodt_pBITS_clipK for {@code bits}-bit lanes: SCLIP16 clamps to [-2^k, 2^k - 1] for
     * k = 0..15, SCLIP8 for k = 0..7.
     */
    static int largestClip(int bits) { return bits - 1; }

    /** fxp16_15's multiply with --rounding truncate and saturation: KHM16. */
    static final LibraryFunction Q15_MUL = new LibraryFunction("byodt_p16_q15_mul", ScalarType.I16, List.of(ScalarType.I16, ScalarType.I16));

    /**
     * fxp16_P's and fxp8_P's multiplies, fixed.c's mul bit for bit, by rounding (nearest-even or truncate) and
     * overflow (saturate or wrap): {@code byodt_pBITS_mul_MODE}.
     */
    static final List<String> PRODUCT_MODES = List.of("nearest_saturate", "truncate_saturate", "nearest_wrap", "truncate_wrap");

    /**
     * {@code byodt_pBITS_mul_MODE} (one value, {@code lanes} 1) or {@code byodt_pBITSxL_mul_MODE} (words of L
     * lanes): a, b and the format's fraction bits P, an int32 constant that every lane shares.
     */
    static LibraryFunction product(int bits, int lanes, String mode) {
        ScalarType word = ScalarType.integerOfBits(bits * lanes);
        return new LibraryFunction("byodt_p" + bits + (lanes == 1 ? "" : "x" + lanes) + "_mul_" + mode, word, List.of(word, word, ScalarType.I32));
    }

    /** {@code byodt_pBITS_OP}: an operation of {@link #LANE_OPERATIONS} on one value. */
    static LibraryFunction lane(int bits, String operation) {
        ScalarType t = ScalarType.integerOfBits(bits);
        return new LibraryFunction("byodt_p" + bits + "_" + operation, t, List.of(t, t));
    }

    /** {@code byodt_pBITSxL_OP}: an operation of {@link #LANE_OPERATIONS}, or q15_mul, on words of L lanes. */
    static LibraryFunction packed(int bits, int lanes, String operation) {
        ScalarType word = ScalarType.integerOfBits(bits * lanes);
        return new LibraryFunction("byodt_p" + bits + "x" + lanes + "_" + operation, word, List.of(word, word));
    }

    /** {@code byodt_pBITSxL_pack}: L values as one word, the first in the low bits. */
    static LibraryFunction pack(int bits, int lanes) {
        return new LibraryFunction("byodt_p" + bits + "x" + lanes + "_pack", ScalarType.integerOfBits(bits * lanes),
            Collections.nCopies(lanes, ScalarType.integerOfBits(bits)));
    }

    /** {@code byodt_pBITS_clipK}: one value clamped to [-2^k, 2^k - 1] (SCLIP16, SCLIP8). */
    static LibraryFunction clip(int bits, int k) {
        ScalarType t = ScalarType.integerOfBits(bits);
        return new LibraryFunction("byodt_p" + bits + "_clip" + k, t, List.of(t));
    }

    /** {@code byodt_pBITSxL_clipK}: L lanes clamped to [-2^k, 2^k - 1]. */
    static LibraryFunction packedClip(int bits, int lanes, int k) {
        ScalarType word = ScalarType.integerOfBits(bits * lanes);
        return new LibraryFunction("byodt_p" + bits + "x" + lanes + "_clip" + k, word, List.of(word));
    }

    /**
     * {@code byodt_pBITS_acc_mac} (one product) and {@code byodt_pBITS_acc_macG} (G products: a0..aG-1, then
     * b0..bG-1) into the 64-bit exact accumulator, which they update in place.
     */
    static LibraryFunction accumulate(int bits, int products) {
        List<ScalarType> parameters = new ArrayList<>(List.of(ScalarType.I64));
        parameters.addAll(Collections.nCopies(2 * products, ScalarType.integerOfBits(bits)));
        return new LibraryFunction("byodt_p" + bits + "_acc_mac" + (products == 1 ? "" : products), ScalarType.I64, parameters,
            Expr.Call.Passing.UPDATES_FIRST_IN_PLACE);
    }

    /** {@code byodt_pBITS_acc_macG_word}: G products of fxp16_P or fxp8_P values whose b operands come as one word. */
    static LibraryFunction accumulateWord(int bits, int products) {
        List<ScalarType> parameters = new ArrayList<>(List.of(ScalarType.I64));
        parameters.addAll(Collections.nCopies(products, ScalarType.integerOfBits(bits)));
        parameters.add(ScalarType.integerOfBits(bits * products));
        return new LibraryFunction("byodt_p" + bits + "_acc_mac" + products + "_word", ScalarType.I64, parameters,
            Expr.Call.Passing.UPDATES_FIRST_IN_PLACE);
    }

    /**
     * {@code byodt_pBITSx4_mean2x2_MODE}: the means of four 2x2 windows of fxp16_P or fxp8_P values summed exactly,
     * from the windows' two rows as two words of 4 values each (MODE one of {@link #PRODUCT_MODES}: the division's
     * rounding and the sum's overflow), RV64 and the host model.
     */
    static LibraryFunction means2x2(int bits, String mode) {
        ScalarType word = ScalarType.integerOfBits(4 * bits);
        return new LibraryFunction("byodt_p" + bits + "x4_mean2x2_" + mode, word, Collections.nCopies(4, word));
    }

    /**
     * Every function fixed_p.c defines for registers of {@code registerLanes} 16-bit lanes (2 on riscv32, 4 on
     * riscv64 and the host model, which add the 64-bit words' functions).
     */
    static List<LibraryFunction> all(int registerLanes) {
        List<LibraryFunction> all = new ArrayList<>();
        for (int bits : List.of(16, 8)) {
            for (String operation : LANE_OPERATIONS) all.add(lane(bits, operation));
            all.add(accumulate(bits, 1));
        }
        all.add(Q15_MUL);
        for (int bits : List.of(16, 8)) {
            for (int k = 0; k <= largestClip(bits); k++) all.add(clip(bits, k));
        }
        for (String mode : PRODUCT_MODES) {
            all.add(product(16, 1, mode));
            all.add(product(8, 1, mode));
        }
        for (int lanes = 2; lanes <= registerLanes; lanes *= 2) {
            for (String operation : LANE_OPERATIONS) {
                all.add(packed(16, lanes, operation));
                all.add(packed(8, 2 * lanes, operation));
            }
            all.add(packed(16, lanes, "q15_mul"));
            for (String mode : PRODUCT_MODES) {
                all.add(product(16, lanes, mode));
                all.add(product(8, 2 * lanes, mode));
            }
            for (int k = 0; k <= largestClip(16); k++) all.add(packedClip(16, lanes, k));
            for (int k = 0; k <= largestClip(8); k++) all.add(packedClip(8, 2 * lanes, k));
            all.add(pack(16, lanes));
            all.add(pack(8, 2 * lanes));
            all.add(accumulate(16, lanes));
            all.add(accumulateWord(16, lanes));
            all.add(accumulate(8, 2 * lanes));
            all.add(accumulateWord(8, 2 * lanes));
        }
        if (registerLanes == 4) {
            for (String mode : PRODUCT_MODES) {
                all.add(means2x2(16, mode));
                all.add(means2x2(8, mode));
            }
        }
        return all;
    }
}
