package dev.byodt.cli;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.compiler.dtype.FusedPreset;
import dev.byodt.compiler.dtype.RoundingMode;
import dev.byodt.compiler.dtype.ScaleRule;
import dev.byodt.compiler.dtype.StochasticRounding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

@Command(name = "dtypes", mixinStandardHelpOptions = true,
    description = {"List every registered datatype: its NAME (custom[NAME]BITS), type code, widths, accumulation modes, "
        + "options (the --rounding modes it takes among them), library, and which scalar operations it lowers, so gaps show before compiling; then the block datatypes."})
final class DtypesCommand implements Callable<Integer> {
    /** What each accumulation mode models, in the README's words. */
    private static final Map<String, String> MODES = new LinkedHashMap<>();

    static {
        MODES.put("dtype", "every add and multiply rounds to the datatype (TVM's semantics)");
        MODES.put("float32", "products and sums in float32, rounded once per output (fp32-accumulating hardware)");
        MODES.put("exact", "the datatype's wide accumulator (a quire), rounded once per output");
        MODES.put("int:W[:wrap|:saturate]", "a W-bit two's-complement register of exact products (fixed-point MAC array)");
        MODES.put("fused:F=<bits>,G=<group>[,rounding=rz|rne]", "a fused dot-product unit: the float32 accumulator and G exact "
            + "products aligned to their largest exponent, F fraction bits kept");
    }

    @Mixin
    PluginOptions plugins;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Optional<Integer> apart = plugins.runApartIfUntrusted(spec, List::of);
        if (apart.isPresent()) return apart.get();
        DatatypeRegistry registry = plugins.registry();
        for (DatatypeDefinition d : registry.definitions()) {
            System.out.printf("%-22s code %-3d  widths %-10s  accumulate %s%n", d.name(), d.code(), d.describeWidths(),
                String.join(", ", d.accumulationModeNames()));
            if (!d.summary().isEmpty()) System.out.println("    " + d.summary());
            d.options().values().forEach(o -> System.out.println("    --" + o.name() + " " + String.join("|", o.values())));
            d.librarySource().ifPresent(l -> System.out.println("    library " + l.displayName()));
            if (!d.origin().isEmpty()) System.out.println("    from " + d.origin());
            List<String> lowered = new ArrayList<>(), missing = new ArrayList<>();
            for (DatatypeOp op : DatatypeOp.values()) {
                if (op.isAccumulatorOp() && !d.accumulationModes().contains(AccumulationMode.EXACT)) continue;
                if (d.loweredOps().contains(op)) lowered.add(op.functionSuffix());
                else if (!op.isOptional()) missing.add(op.functionSuffix());
            }
            System.out.println("    lowers  " + String.join(" ", lowered));
            System.out.println("    missing " + (missing.isEmpty() ? "none" : String.join(" ", missing)));
        }
        System.out.println();
        System.out.println("accumulation modes (--accumulate; each datatype above lists those it takes):");
        MODES.forEach((mode, meaning) -> System.out.printf("  %-44s %s%n", mode, meaning));
        for (FusedPreset p : FusedPreset.values()) {
            AccumulationMode.Fused f = p.mode();
            System.out.printf("  %-44s %s: %s%n", f.optionName(), f.parameters(), p.source());
        }
        System.out.println();
        System.out.println("rounding modes (--rounding; each datatype above lists those it takes, the first its default):");
        for (RoundingMode mode : RoundingMode.values()) System.out.printf("  %-44s %s%n", mode.optionName(), mode.meaning());
        System.out.printf("  %-44s %s%n", "truncate", "fixed point: the TVM fork's (conversions and quotients toward zero, "
            + "products toward -infinity)");
        System.out.printf("  %-44s %s%n", "--sr-bits N, --seed S", "stochastic: N random bits (1.." + StochasticRounding.MAX_BITS
            + ", default " + StochasticRounding.DEFAULT_BITS + ") added to the first N cut bits, hashed from S, the operation and the element");
        System.out.println();
        System.out.println("block datatypes (--dtype or --dtype-map: the dot products of MatMul, Gemm and Conv in blocks, added in float32 or, "
            + "with --accumulate dtype, in --vector-dtype; every other operation in --vector-dtype, bfloat16 by default)");
        for (Map.Entry<String, BlockDatatypeName> builtIn : BlockDatatypeName.builtIns().entrySet()) {
            BlockDatatypeName b = BlockFormat.resolve(builtIn.getValue(), registry).name();
            System.out.printf("%-22s %d x %s under %s, scale rule %s%s%n", builtIn.getKey(), b.blockSize(), b.element(), b.scale(),
                b.rule().optionName(), b.tensorScale() ? ", float32 tensor scale" : "");
        }
        for (DatatypeRegistry.NamedBlock named : registry.namedBlocks()) {
            BlockDatatypeName b = named.format();
            System.out.printf("%-22s %d x %s under %s, scale rule %s%s%n    from %s%n", named.name(), b.blockSize(), b.element(), b.scale(),
                b.rule().optionName(), b.tensorScale() ? ", float32 tensor scale" : "", named.origin().isEmpty() ? "a plug-in" : named.origin());
        }
        System.out.println("block[ELEMENT,SIZE,SCALE,RULE[,tensor]]  any minifloat, fixed-point or posit (up to 16 bits) element, any minifloat or "
            + "fixed-point scale; RULE " + ScaleRule.names());
        return 0;
    }
}
