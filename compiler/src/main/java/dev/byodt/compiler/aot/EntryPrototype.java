package dev.byodt.compiler.aot;

import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The C declaration of a compiled model's entry point: one pointer parameter per input (const) and per
 * output, named after the tensors, then the workspace. Shared by the generated header and the glue.
 */
public record EntryPrototype(String entrySymbol, List<Parameter> parameters) {
    public static final String WORKSPACE_PARAMETER = "workspace";

    /** One parameter: input or output number {@code index}, or the workspace when {@code tensor} is null. */
    public record Parameter(String declaration, String name, TensorSpec tensor, boolean isInput, int index) {}

    public EntryPrototype {
        parameters = List.copyOf(parameters);
    }

    public static EntryPrototype of(ProgramSignature signature) {
        if (!CSyntax.isIdentifier(signature.entrySymbol())) {
            throw new ByodtException("entry symbol '" + signature.entrySymbol() + "' is not a C identifier");
        }
        Set<String> taken = new HashSet<>(Set.of(WORKSPACE_PARAMETER, signature.entrySymbol()));
        List<Parameter> parameters = new ArrayList<>();
        for (int i = 0; i < signature.inputs().size(); i++) {
            TensorSpec input = signature.inputs().get(i);
            String name = unique(CSyntax.identifier(input.name()), taken);
            parameters.add(new Parameter("const " + cType(input.type()) + " *" + name, name, input, true, i));
        }
        for (int i = 0; i < signature.outputs().size(); i++) {
            TensorSpec output = signature.outputs().get(i);
            String name = unique(CSyntax.identifier(output.name()), taken);
            parameters.add(new Parameter(cType(output.type()) + " *" + name, name, output, false, i));
        }
        parameters.add(new Parameter("void *" + WORKSPACE_PARAMETER, WORKSPACE_PARAMETER, null, false, 0));
        return new EntryPrototype(signature.entrySymbol(), parameters);
    }

    /**
     * The C type of one element of a type compiled code exchanges (a {@linkplain ElementType#computed()
     * computed} one); the header includes stdint.h for the integer types, and a bool is a byte, 0 or 1.
     */
    public static String cType(ElementType type) {
        return switch (type) {
            case FLOAT32 -> "float";
            case INT32 -> "int32_t";
            case INT64 -> "int64_t";
            case BOOL -> "uint8_t";
            default -> throw new IllegalArgumentException(type + " is not a type compiled code exchanges");
        };
    }

    /** {@code void ENTRY(const float *x, float *y, void *workspace)}, without the semicolon. */
    public String declaration() {
        return "void " + entrySymbol + "(" + String.join(", ", parameters.stream().map(Parameter::declaration).toList()) + ")";
    }

    private static String unique(String name, Set<String> taken) {
        String candidate = name;
        for (int suffix = 2; !taken.add(candidate); suffix++) candidate = name + "_" + suffix;
        return candidate;
    }
}
