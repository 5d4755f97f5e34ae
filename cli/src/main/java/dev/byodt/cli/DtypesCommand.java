package dev.byodt.cli;

import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeDefinition;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.Optional;

@Command(name = "dtypes", mixinStandardHelpOptions = true,
    description = {"List every registered datatype: its NAME (custom[NAME]BITS), type code, widths, accumulation modes, "
        + "options, library, and which scalar operations it lowers, so gaps show before compiling."})
final class DtypesCommand implements Callable<Integer> {
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
        return 0;
    }
}
