package dev.byodt.compiler.aot;

import java.nio.charset.StandardCharsets;
import java.util.Set;

/** Turning arbitrary ONNX names into pieces of C source: identifiers, string literals, comment text. */
final class CSyntax {
    private static final Set<String> KEYWORDS = Set.of("auto", "break", "case", "char", "const", "continue",
        "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
        "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "nullptr", "alignas", "alignof",
        "constexpr", "static_assert", "thread_local", "typeof", "typeof_unqual", "asm");

    private CSyntax() {}

    public static boolean isIdentifier(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") && !KEYWORDS.contains(name);
    }

    /**
     * A C identifier that reads like {@code name}: other characters become '_', and names C reserves
     * (keywords, a leading underscore, a leading digit) are changed so the result is usable anywhere.
     */
    public static String identifier(String name) {
        String replaced = name.replaceAll("[^A-Za-z0-9_]", "_").replaceFirst("^_+", "");
        if (replaced.isEmpty()) return "tensor";
        if (Character.isDigit(replaced.charAt(0))) return "t_" + replaced;
        return KEYWORDS.contains(replaced) ? replaced + "_" : replaced;
    }

    /** A C string literal holding {@code text}'s UTF-8 bytes; everything but printable ASCII is an octal escape. */
    public static String stringLiteral(String text) {
        StringBuilder literal = new StringBuilder("\"");
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (c == '"' || c == '\\') {
                literal.append('\\').append((char) c);
            } else if (c >= 0x20 && c < 0x7F && c != '?') {
                // '?' is escaped too, so that no trigraph can form.
                literal.append((char) c);
            } else {
                literal.append(String.format("\\%03o", c));
            }
        }
        return literal.append('"').toString();
    }

    /** {@code text} made safe inside a block comment: on one line, and unable to end the comment. */
    public static String commentText(String text) {
        return text.replaceAll("[\\p{Cntrl}]", " ").replace("*/", "* /");
    }
}
