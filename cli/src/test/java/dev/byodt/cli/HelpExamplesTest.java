package dev.byodt.cli;

import dev.byodt.cli.sweep.DatatypeSpec;
import dev.byodt.compiler.block.BlockDots;
import dev.byodt.compiler.dtype.BlockDatatypeName;
import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.dtype.DatatypeName;
import dev.byodt.compiler.dtype.DatatypeRegistry;
import dev.byodt.runtime.ByodtException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every datatype the help texts show (the example command lines of every command's footer, the quoted
 * examples of --dtypes, --gate and --dtype-map, and the defaults of --dtype and --dtypes) is one the command
 * accepts: parsed by the registry's grammar and registered, or a block datatype models compute in. A help example that the command rejects fails here.
 */
class HelpExamplesTest {
    private static final Pattern QUOTED = Pattern.compile("'([^']+)'");
    private static final Set<String> SPEC_OPTIONS = Set.of("--dtypes", "--gate");

    private final DatatypeRegistry registry = DatatypeChoice.builtInRegistry();
    private final List<String> checked = new ArrayList<>();
    private final List<String> rejected = new ArrayList<>();
    private final Set<String> commandsWithExamples = new TreeSet<>();

    @Test
    void everyDatatypeInTheHelpTextsIsAccepted() {
        visit(new CommandLine(new Main()).getCommandSpec());
        assertEquals(List.of(), rejected, "help examples the commands reject");
        assertTrue(checked.size() >= 15, "examples found: " + checked);
        assertTrue(commandsWithExamples.containsAll(List.of("bench-dtypes", "compile", "run", "sweep")), commandsWithExamples.toString());
        assertTrue(checked.contains("sweep footer: --dtypes fxp16_8..15,bfloat16,float16,custom[fp8e4m3]8"), checked.toString());
    }

    private void visit(CommandSpec command) {
        String name = command.name();
        for (String line : command.usageMessage().footer()) {
            String example = line.strip();
            if (example.startsWith("byodt ")) checkCommandLine(name, example.replaceFirst("\\s+#.*$", ""));
        }
        for (OptionSpec option : command.options()) {
            String optionName = option.longestName();
            if (SPEC_OPTIONS.contains(optionName) || optionName.equals("--dtype-map")) {
                Matcher quoted = QUOTED.matcher(String.join(" ", option.description()));
                while (quoted.find()) check(name + " " + optionName + " description", optionName, quoted.group(1));
            }
            if ((optionName.equals("--dtype") || optionName.equals("--dtypes")) && option.defaultValue() != null) {
                check(name + " " + optionName + " default", optionName, option.defaultValue());
            }
        }
        command.subcommands().values().forEach(sub -> visit(sub.getCommandSpec()));
    }

    private void checkCommandLine(String command, String example) {
        List<String> words = Arrays.stream(example.split("\\s+")).map(w -> w.replaceAll("^'|'$", "")).toList();
        for (int i = 0; i + 1 < words.size(); i++) {
            String word = words.get(i);
            if (word.equals("--dtype") || word.equals("--dtype-map") || SPEC_OPTIONS.contains(word)) {
                check(command + " footer", word, words.get(i + 1));
            }
        }
    }

    /** A block datatype models compute in, or a registered scalar one; else a ByodtException. */
    private void accept(String name) {
        Optional<BlockDatatypeName> block = DatatypeName.parseBlock(name);
        if (block.isEmpty()) {
            registry.instance(name, Map.of());
            return;
        }
        BlockDots.unsupported(BlockFormat.resolve(block.get(), registry)).ifPresent(problem -> {
            throw new ByodtException(problem);
        });
    }

    private void check(String where, String option, String value) {
        commandsWithExamples.add(where.substring(0, where.indexOf(' ')));
        checked.add(where + ": " + option + " " + value);
        try {
            List<String> names = switch (option) {
                case "--dtype" -> List.of(value);
                case "--dtype-map" -> DatatypeChoice.parseOverrides(value).stream().map(DatatypeChoice.Override::datatype).toList();
                default -> DatatypeSpec.expand(value);
            };
            names.forEach(this::accept);
        } catch (ByodtException e) {
            rejected.add(where + ": " + option + " " + value + ": " + e.getMessage());
        }
    }
}
