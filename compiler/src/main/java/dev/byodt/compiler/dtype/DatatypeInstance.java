package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One datatype a program computes in: a registered definition at a width, with its name parameter
 * ({@code 13} for fxp16_13, {@code 5} for custom[minifloat_e5]16, 0 when the name has none) and the values of
 * the definition's options (--overflow, --rounding).
 */
public record DatatypeInstance(DatatypeDefinition definition, DatatypeName name, int parameter, Map<String, String> options) {
    public DatatypeInstance {
        options = Map.copyOf(options);
    }

    public int bits() { return name.bits(); }

    public int lanes() { return name.lanes(); }

    /** The value of an option of the definition (its default unless the user chose one). */
    public String option(String optionName) {
        String value = options.get(optionName);
        if (value == null) throw new IllegalArgumentException(definition.name() + " has no option " + optionName);
        return value;
    }

    /** The unsigned integer type holding one value: the smallest of 8, 16, 32 bits that fits (or the definition's choice). */
    public ScalarType storage() { return definition.storage(bits()); }

    /** The library functions' name prefix, BYODT_PREFIX: posit16es2, fxp16_13, ... */
    public String prefix() { return definition.prefix(this); }

    /** The library this instance links, with its -D parameters. */
    public Optional<NativeLibrary> library() { return definition.library(this); }

    /** The operations whose library functions are tabulated at compile time (DatatypeDefinition.Builder#tabulated). */
    public List<DatatypeOp> tabulated() { return definition.tabulated(this); }

    /** The integer type of the exact accumulator, for definitions that support {@link AccumulationMode#EXACT}. */
    public Optional<ScalarType> exactAccumulator() { return definition.exactAccumulator(this); }

    /** Whether the definition lets exact sums run in double where a check proves them exact ({@link DatatypeDefinition.Builder#exactSumsInDouble}). */
    public boolean exactSumsInDouble() { return definition.exactSumSignificandBits(this).isPresent(); }

    /** The values as a grid, for definitions that declare one (they can be block elements; a {@link ValueGrid}, scales too). */
    public Optional<ElementGrid> valueGrid() { return definition.valueGrid(this); }

    /** The fraction bits of the values int:W accumulates, for definitions that support it. */
    int integerAccumulationFractionBits() { return definition.integerAccumulationFractionBits(this); }

    /** Fails with one line unless the definition supports accumulation {@code mode}. */
    public void requireAccumulation(AccumulationMode mode) {
        if (!definition.supportsAccumulation(mode)) {
            throw new ByodtException("datatype " + this + " does not support --accumulate " + mode.optionName()
                + " (it supports " + definition.accumulationModeNames() + ")");
        }
        if (mode instanceof AccumulationMode.Fused && !definition.fusedAccepts(this)) {
            throw new ByodtException("datatype " + this + " does not support --accumulate " + mode.optionName()
                + ": float32 does not hold its values exactly, so the fused unit would not see exact products");
        }
    }

    /** The lowering for {@code op} on {@code target}: the target's own, else the one for any target. */
    public Optional<LowerFunc> lowering(DatatypeOp op, LoweringTarget target) { return definition.lowering(op, target); }

    @Override
    public String toString() { return name.toString(); }
}
