package dev.byodt.compiler.dtype;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.ByodtException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * A registered datatype: the Java counterpart of TVM's {@code register(name, code)} with its
 * {@code register_op} and {@code register_min_func} calls, as one immutable value. Built with {@link #register}:
 * <pre>
 * DatatypeDefinition.register("posit", 131)
 *     .widthRange(2, 32)
 *     .library(LibrarySource.resource("dev/byodt/datatypes/posit/posit.c"),
 *              i -> List.of("POSIT_N=" + i.bits(), "POSIT_ES=2"))
 *     .prefix(i -> "posit" + i.bits() + "es2")
 *     .registerLibraryOps(DatatypeOp.values())                       // PREFIX_add, PREFIX_sub, ...
 *     .registerOp(DatatypeOp.of(ScalarOp.LT), LoweringTarget.ANY, s -> Exprs.lt(s.arg(0), s.arg(1)))   // inline
 *     .accumulation(AccumulationMode.DTYPE, AccumulationMode.FLOAT32, AccumulationMode.EXACT)
 *     .exactAccumulator(i -> i.bits() <= 8 ? 128 : i.bits() <= 16 ? 256 : 512)
 *     .build();
 * </pre>
 * Nothing is compiled or even read until a model uses the datatype.
 */
public final class DatatypeDefinition {
    /** TVM's range of custom type codes: 129 to 255 (the reference datatype, float32, keeps DLPack's float, code 2). */
    public static final int FIRST_CUSTOM_CODE = 129;
    public static final int LAST_CUSTOM_CODE = 255;

    /** A choice a user makes per datatype (--overflow, --rounding), passed to the library as -D parameters. */
    public record Option(String name, List<String> values) {
        public Option {
            values = List.copyOf(values);
            if (values.isEmpty()) throw new IllegalArgumentException("option " + name + " has no values");
        }

        public String defaultValue() { return values.getFirst(); }
    }

    private final NamePattern name;
    private final int code;
    private final String summary;
    private final Set<Integer> widths;
    private final IntFunction<ScalarType> storage;
    private final LibrarySource librarySource;
    private final Function<DatatypeInstance, List<String>> defines;
    private final Function<DatatypeInstance, String> prefix;
    private final Function<DatatypeInstance, String> instanceCheck;
    private final Map<DatatypeOp, Map<LoweringTarget, LowerFunc>> lowerings;
    private final Set<AccumulationMode> accumulation;
    private final ToIntFunction<DatatypeInstance> exactAccumulatorBits;
    private final ToIntFunction<DatatypeInstance> integerAccumulationFractionBits;
    private final Predicate<DatatypeInstance> valuesExactInFloat32;
    private final Predicate<DatatypeInstance> arithmeticInFloat32;
    private final Function<DatatypeInstance, OptionalInt> exactSumSignificandBits;
    private final Function<DatatypeInstance, Optional<PositScales>> fractionScales;
    private final Function<DatatypeInstance, ? extends ElementGrid> valueGrid;
    private final Function<DatatypeInstance, List<DatatypeOp>> tabulated;
    private final Map<String, Option> options;
    private final boolean reference;
    private final String origin;

    private DatatypeDefinition(Builder b) {
        name = b.name;
        code = b.code;
        summary = b.summary;
        widths = Collections.unmodifiableSet(new TreeSet<>(b.widths));
        storage = b.storage;
        librarySource = b.librarySource;
        defines = b.defines;
        prefix = b.prefix;
        instanceCheck = b.instanceCheck;
        Map<DatatypeOp, Map<LoweringTarget, LowerFunc>> table = new TreeMap<>();
        b.lowerings.forEach((op, byTarget) -> table.put(op, Collections.unmodifiableMap(new EnumMap<>(byTarget))));
        lowerings = Collections.unmodifiableMap(table);
        accumulation = Collections.unmodifiableSet(new LinkedHashSet<>(b.accumulation));
        exactAccumulatorBits = b.exactAccumulatorBits;
        integerAccumulationFractionBits = b.integerAccumulationFractionBits;
        valuesExactInFloat32 = b.valuesExactInFloat32;
        arithmeticInFloat32 = b.arithmeticInFloat32;
        exactSumSignificandBits = b.exactSumSignificandBits;
        fractionScales = b.fractionScales;
        valueGrid = b.valueGrid;
        tabulated = b.tabulated;
        options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
        reference = b.reference;
        origin = b.origin;
    }

    private DatatypeDefinition(DatatypeDefinition d, String origin) {
        name = d.name;
        code = d.code;
        summary = d.summary;
        widths = d.widths;
        storage = d.storage;
        librarySource = d.librarySource;
        defines = d.defines;
        prefix = d.prefix;
        instanceCheck = d.instanceCheck;
        lowerings = d.lowerings;
        accumulation = d.accumulation;
        exactAccumulatorBits = d.exactAccumulatorBits;
        integerAccumulationFractionBits = d.integerAccumulationFractionBits;
        valuesExactInFloat32 = d.valuesExactInFloat32;
        arithmeticInFloat32 = d.arithmeticInFloat32;
        exactSumSignificandBits = d.exactSumSignificandBits;
        fractionScales = d.fractionScales;
        valueGrid = d.valueGrid;
        tabulated = d.tabulated;
        options = d.options;
        reference = d.reference;
        this.origin = origin;
    }

    /** TVM's register(name, code): starts a definition. {@code name} may carry a parameter: "minifloat_e{E:2..8}". */
    public static Builder register(String name, int code) { return new Builder(NamePattern.parse(name), code); }

    public NamePattern namePattern() { return name; }

    public String name() { return name.toString(); }

    public int code() { return code; }

    public String summary() { return summary; }

    public Set<Integer> widths() { return widths; }

    /** The modes without parameters the datatype supports ({@link AccumulationMode#simpleModes}). */
    public Set<AccumulationMode> accumulationModes() { return accumulation; }

    /** Whether --accumulate int:W applies: the datatype's values are integers with a fixed number of fraction bits. */
    public boolean supportsIntegerAccumulation() { return integerAccumulationFractionBits != null; }

    /** Whether --accumulate fused:... applies to some instances: those whose values float32 holds exactly. */
    public boolean supportsFusedAccumulation() { return valuesExactInFloat32 != null; }

    public boolean supportsAccumulation(AccumulationMode mode) {
        return switch (mode) {
            case AccumulationMode.Integer i -> supportsIntegerAccumulation();
            case AccumulationMode.Fused f -> supportsFusedAccumulation();
            case AccumulationMode.Simple simple -> accumulation.contains(simple);
        };
    }

    /** Whether {@code instance}'s add and mul are its float32 ones rounded once ({@link Builder#arithmeticInFloat32}). */
    boolean arithmeticInFloat32(DatatypeInstance instance) { return arithmeticInFloat32.test(instance); }

    /** The significand bits of {@code instance}'s values when its exact sums may run in double ({@link Builder#exactSumsInDouble}). */
    OptionalInt exactSumSignificandBits(DatatypeInstance instance) { return exactSumSignificandBits.apply(instance); }

    /** The scales of {@code instance}'s rounded_f32_with_fraction ({@link Builder#fractionScales}). */
    Optional<PositScales> fractionScales(DatatypeInstance instance) { return fractionScales.apply(instance); }

    /** Whether a fused unit can take {@code instance}'s values: float32 holds each exactly, so products are exact in double. */
    boolean fusedAccepts(DatatypeInstance instance) { return valuesExactInFloat32 != null && valuesExactInFloat32.test(instance); }

    /** Every mode the datatype supports, as --accumulate spells it. */
    public List<String> accumulationModeNames() {
        List<String> names = new ArrayList<>(accumulation.stream().map(AccumulationMode::optionName).toList());
        if (supportsIntegerAccumulation()) names.add("int:W");
        if (supportsFusedAccumulation()) names.add("fused:F=..,G=..");
        return names;
    }

    public Map<String, Option> options() { return options; }

    /**
     * Whether this is the reference datatype, float32: the one callers exchange tensors in and every other
     * datatype is measured against. Its values are float32 itself, so its constants, weights and conversions
     * from and to machine types are the machine's own; its reductions sum in float32 whatever --accumulate
     * chooses for the other datatypes of a program, as ONNX's reference implementation does; and it keeps
     * DLPack's type code for float, outside the custom range. A registry holds at most one.
     */
    public boolean isReference() { return reference; }

    /** The operations this definition lowers on some target. */
    public Set<DatatypeOp> loweredOps() { return Collections.unmodifiableSet(lowerings.keySet()); }

    public Optional<LibrarySource> librarySource() { return Optional.ofNullable(librarySource); }

    /** Where the definition was registered from (a descriptor file, a plug-in jar); empty for byodt's own. */
    public String origin() { return origin; }

    /** This definition, said to come from {@code where} (the plug-in jar that registered it). */
    public DatatypeDefinition withOrigin(String where) { return new DatatypeDefinition(this, where); }

    ScalarType storage(int bits) { return storage.apply(bits); }

    String prefix(DatatypeInstance instance) { return prefix.apply(instance); }

    List<DatatypeOp> tabulated(DatatypeInstance instance) { return tabulated.apply(instance); }

    Optional<NativeLibrary> library(DatatypeInstance instance) {
        if (librarySource == null) return Optional.empty();
        List<String> all = new ArrayList<>();
        all.add("BYODT_PREFIX=" + instance.prefix());
        all.addAll(defines.apply(instance));
        return Optional.of(new NativeLibrary(librarySource, all, origin));
    }

    Optional<ScalarType> exactAccumulator(DatatypeInstance instance) {
        if (!accumulation.contains(AccumulationMode.EXACT)) return Optional.empty();
        return Optional.of(ScalarType.integerOfBits(exactAccumulatorBits.applyAsInt(instance)));
    }

    int integerAccumulationFractionBits(DatatypeInstance instance) {
        return integerAccumulationFractionBits.applyAsInt(instance);
    }

    /** The instance's values as a grid block quantization rounds onto, for definitions that declare one. */
    Optional<ElementGrid> valueGrid(DatatypeInstance instance) {
        return valueGrid == null ? Optional.empty() : Optional.of(valueGrid.apply(instance));
    }

    Optional<LowerFunc> lowering(DatatypeOp op, LoweringTarget target) {
        Map<LoweringTarget, LowerFunc> byTarget = lowerings.get(op);
        if (byTarget == null) return Optional.empty();
        LowerFunc own = byTarget.get(target);
        return Optional.ofNullable(own != null ? own : byTarget.get(LoweringTarget.ANY));
    }

    /**
     * The instance {@code datatypeName} denotes, if this definition registered its NAME; an unsupported width,
     * a bad option value or a parameter the instance check refuses is an error.
     */
    Optional<DatatypeInstance> instance(DatatypeName datatypeName, Map<String, String> chosenOptions) {
        OptionalInt parameter = name.match(datatypeName.name());
        if (parameter.isEmpty()) return Optional.empty();
        if (!widths.contains(datatypeName.bits())) {
            throw new ByodtException("datatype " + datatypeName + ": " + name() + " supports widths " + describeWidths()
                + ", not " + datatypeName.bits());
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (Option o : options.values()) {
            String value = chosenOptions.getOrDefault(o.name(), o.defaultValue());
            if (!o.values().contains(value)) {
                throw new ByodtException("datatype " + datatypeName + ": --" + o.name() + " " + value + " is not one of " + o.values());
            }
            values.put(o.name(), value);
        }
        DatatypeInstance instance = new DatatypeInstance(this, datatypeName, parameter.getAsInt(), values);
        String problem = instanceCheck.apply(instance);
        if (problem != null) throw new ByodtException("datatype " + datatypeName + ": " + problem);
        return Optional.of(instance);
    }

    /** "8, 16, 32" or "2..32". */
    public String describeWidths() {
        List<Integer> sorted = new ArrayList<>(widths);
        boolean contiguous = sorted.size() > 2 && sorted.getLast() - sorted.getFirst() == sorted.size() - 1;
        if (contiguous) return sorted.getFirst() + ".." + sorted.getLast();
        return sorted.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() { return name() + " (code " + code + (origin.isEmpty() ? "" : ", " + origin) + ")"; }

    /** Collects a definition's parts; every method returns the builder. */
    public static final class Builder {
        private final NamePattern name;
        private final int code;
        private String summary = "";
        private final Set<Integer> widths = new TreeSet<>();
        private IntFunction<ScalarType> storage = Builder::smallestStorage;
        private LibrarySource librarySource;
        private Function<DatatypeInstance, List<String>> defines = i -> List.of();
        private Function<DatatypeInstance, String> prefix;
        private Function<DatatypeInstance, String> instanceCheck = i -> null;
        private final Map<DatatypeOp, Map<LoweringTarget, LowerFunc>> lowerings = new TreeMap<>();
        private final Set<AccumulationMode> accumulation = new LinkedHashSet<>(List.of(AccumulationMode.DTYPE));
        private ToIntFunction<DatatypeInstance> exactAccumulatorBits;
        private ToIntFunction<DatatypeInstance> integerAccumulationFractionBits;
        private Predicate<DatatypeInstance> valuesExactInFloat32;
        private Predicate<DatatypeInstance> arithmeticInFloat32 = i -> false;
        private Function<DatatypeInstance, OptionalInt> exactSumSignificandBits = i -> OptionalInt.empty();
        private Function<DatatypeInstance, Optional<PositScales>> fractionScales = i -> Optional.empty();
        private Function<DatatypeInstance, ? extends ElementGrid> valueGrid;
        private Function<DatatypeInstance, List<DatatypeOp>> tabulated = i -> List.of();
        private final Map<String, Option> options = new LinkedHashMap<>();
        private boolean reference;
        private String origin = "";

        private Builder(NamePattern name, int code) {
            this.name = name;
            this.code = code;
            String plainName = name.prefix();
            this.prefix = i -> plainName + i.bits();
        }

        /** One line for `byodt dtypes`. */
        public Builder summary(String text) {
            summary = text;
            return this;
        }

        public Builder widths(int... bits) {
            for (int b : bits) widths.add(b);
            return this;
        }

        /** Every width from {@code from} to {@code to}. */
        public Builder widthRange(int from, int to) {
            for (int b = from; b <= to; b++) widths.add(b);
            return this;
        }

        /** Where the definition comes from, for messages: the descriptor file or plug-in jar that registers it. */
        public Builder origin(String where) {
            origin = where;
            return this;
        }

        /** The storage type per width, when it is not the smallest of I8, I16, I32 that holds the bits. */
        public Builder storage(IntFunction<ScalarType> storagePerWidth) {
            storage = storagePerWidth;
            return this;
        }

        /** The library and the -D parameters (NAME=VALUE) of each instance; BYODT_PREFIX is always set. */
        public Builder library(LibrarySource source, Function<DatatypeInstance, List<String>> parameters) {
            librarySource = source;
            defines = parameters;
            return this;
        }

        public Builder library(LibrarySource source) { return library(source, i -> List.of()); }

        /**
         * The operations of one value whose library function is tabulated at compile time for an instance
         * ({@code FunctionTables}): evaluated on the host for every value and looked up, the same results in
         * a load.
         */
        public Builder tabulated(Function<DatatypeInstance, List<DatatypeOp>> opsOfInstance) {
            tabulated = opsOfInstance;
            return this;
        }

        /** The function-name prefix of an instance (default NAME followed by the width: "lns16"). */
        public Builder prefix(Function<DatatypeInstance, String> prefixOfInstance) {
            prefix = prefixOfInstance;
            return this;
        }

        /**
         * A check beyond the width: returns what is wrong with an instance, or null ("fxp8_9: P must be below N");
         * with several checks, the first problem found.
         */
        public Builder check(Function<DatatypeInstance, String> problemOfInstance) {
            Function<DatatypeInstance, String> earlier = instanceCheck;
            instanceCheck = i -> {
                String problem = earlier.apply(i);
                return problem != null ? problem : problemOfInstance.apply(i);
            };
            return this;
        }

        /** TVM's register_op: {@code f} computes {@code op} on {@code target}. */
        public Builder registerOp(DatatypeOp op, LoweringTarget target, LowerFunc f) {
            lowerings.computeIfAbsent(op, o -> new EnumMap<>(LoweringTarget.class)).put(target, f);
            return this;
        }

        /** {@link #registerOp(DatatypeOp, LoweringTarget, LowerFunc)} for every target. */
        public Builder registerOp(DatatypeOp op, LowerFunc f) { return registerOp(op, LoweringTarget.ANY, f); }

        /** Each op as a call of the library function PREFIX_op ({@link LowerFunc#libraryFunction}), on every target. */
        public Builder registerLibraryOps(DatatypeOp... ops) { return registerLibraryOps(List.of(ops)); }

        /** {@link #registerLibraryOps(DatatypeOp...)} of a list, such as {@link DatatypeOp#valueOps()}. */
        public Builder registerLibraryOps(Collection<DatatypeOp> ops) {
            for (DatatypeOp op : ops) registerOp(op, LowerFunc.libraryFunction(op.functionSuffix()));
            return this;
        }

        /**
         * The six comparisons inline, as signed compares of the storage integers, no calls: right where values
         * order like their patterns as signed integers (posits, fixed point).
         */
        public Builder registerSignedIntegerComparisons() {
            for (ScalarOp op : ScalarOp.values()) {
                if (op.isComparison()) registerOp(DatatypeOp.of(op), s -> new Expr.Op(op, ScalarType.BOOL, s.args()));
            }
            return this;
        }

        /** TVM's register_min_func: the most negative value, where max-pooling starts. */
        public Builder registerMinFunc(LowerFunc f) { return registerOp(DatatypeOp.LOWEST, f); }

        /** The accumulation modes the datatype supports (DTYPE always). EXACT needs {@link #exactAccumulator}. */
        public Builder accumulation(AccumulationMode... modes) {
            accumulation.addAll(Arrays.asList(modes));
            return this;
        }

        /** The exact accumulator's width in bits (64, 128, 256, 512 or 1024) for each instance. */
        public Builder exactAccumulator(ToIntFunction<DatatypeInstance> accumulatorBits) {
            exactAccumulatorBits = accumulatorBits;
            return this;
        }

        /**
         * Supports --accumulate int:W: each value's storage is a two's-complement integer standing for itself
         * / 2^F, F given per instance, so that products are exact integers with 2F fraction bits. The sum is
         * rounded by acc_round, whose accumulator must hold sums in those units; needs EXACT.
         */
        public Builder integerAccumulation(ToIntFunction<DatatypeInstance> fractionBits) {
            integerAccumulationFractionBits = fractionBits;
            return this;
        }

        /**
         * Supports --accumulate fused:... for the instances {@code valuesExactInFloat32} accepts: those whose every
         * value to_f32 converts exactly, so that the fused unit sees exact values and forms exact products.
         */
        public Builder fusedAccumulation(Predicate<DatatypeInstance> valuesExactInFloat32) {
            this.valuesExactInFloat32 = valuesExactInFloat32;
            return this;
        }

        /**
         * Declares that for the instances {@code roundedFromFloat32} accepts, add(a, b) and mul(a, b) are, bit for
         * bit, from_f32(to_f32(a) + to_f32(b)) and from_f32(to_f32(a) * to_f32(b)): the float32 sum and product of
         * the values, rounded once. Then --accumulate dtype keeps its sums in float32 registers on the host, each
         * add and multiply still rounded to the datatype ({@link RoundedFloat32Accumulator}). The library's own
         * comments must prove it (float32's result rounded again is the correctly rounded one).
         */
        public Builder arithmeticInFloat32(Predicate<DatatypeInstance> roundedFromFloat32) {
            this.arithmeticInFloat32 = roundedFromFloat32;
            return this;
        }

        /**
         * Declares that for the instances {@code significandBits} gives a number for, every value is a float32 with
         * at most that many significand bits (to_f32 exact, a NaN, infinity or NaR decoded to a NaN or infinity),
         * and acc_round rounds an exact sum that a double holds as from_f64 rounds that double. Then on the host
         * --accumulate exact sums a dot product in double wherever the magnitudes of its operands prove every
         * partial sum exact ({@link dev.byodt.compiler.lower.DoubleSums}), and in the accumulator elsewhere. The
         * library's own comments must prove the rounding claim.
         */
        public Builder exactSumsInDouble(Function<DatatypeInstance, OptionalInt> significandBits) {
            this.exactSumSignificandBits = significandBits;
            return this;
        }

        /**
         * Declares that the instances {@code scales} gives scales for round, in their library's
         * rounded_f32_with_fraction, every float32 that is zero or of a scale within those scales' range as their
         * rounded_f32 does ({@link DatatypeOp#ROUNDED_F32_WITH_FRACTION}); their dot products under --accumulate dtype
         * then use it where a check proves it may. The library's own comments must prove the claim.
         */
        public Builder fractionScales(Function<DatatypeInstance, Optional<PositScales>> scales) {
            this.fractionScales = scales;
            return this;
        }

        /**
         * The instance's finite values as an {@link ElementGrid}, so that the datatype can be a block format's element
         * (or, a {@link ValueGrid}, its scale): block quantization rounds onto it in exact arithmetic.
         */
        public Builder valueGrid(Function<DatatypeInstance, ? extends ElementGrid> gridOfInstance) {
            valueGrid = gridOfInstance;
            return this;
        }

        /** An option users set on the command line (--NAME VALUE); the first value is the default. */
        public Builder option(String optionName, String... values) {
            options.put(optionName, new Option(optionName, List.of(values)));
            return this;
        }

        /** Makes this the reference datatype ({@link DatatypeDefinition#isReference}): one width, stored in F32. */
        public Builder reference() {
            reference = true;
            return this;
        }

        public DatatypeDefinition build() {
            if (widths.isEmpty()) throw new IllegalStateException(name + ": no widths registered");
            if (reference && (widths.size() != 1 || storage.apply(widths.iterator().next()) != ScalarType.F32)) {
                throw new IllegalStateException(name + ": the reference datatype holds float32 values, at one width stored in F32");
            }
            if (accumulation.contains(AccumulationMode.EXACT) && exactAccumulatorBits == null) {
                throw new IllegalStateException(name + ": exact accumulation needs exactAccumulator(...)");
            }
            if (integerAccumulationFractionBits != null && !accumulation.contains(AccumulationMode.EXACT)) {
                throw new IllegalStateException(name + ": integer accumulation rounds with acc_round, which needs exact accumulation");
            }
            return new DatatypeDefinition(this);
        }

        private static ScalarType smallestStorage(int bits) {
            if (bits <= 8) return ScalarType.I8;
            if (bits <= 16) return ScalarType.I16;
            if (bits <= 32) return ScalarType.I32;
            throw new IllegalArgumentException("no storage type holds " + bits + " bits");
        }
    }
}
