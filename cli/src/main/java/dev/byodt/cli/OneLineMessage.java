package dev.byodt.cli;

/**
 * What byodt prints of an error: one line, however the message was built. Names and values that come from
 * the user or the model (a node name with a newline, a 100,000-character --dtype) are echoed in messages,
 * so control characters are escaped and the length is capped here, where every error is printed.
 */
final class OneLineMessage {
    /** Long enough for an error listing a model's unsupported operators, short enough to read. */
    static final int MAX_LENGTH = 1000;

    private OneLineMessage() {}

    static String of(String message) {
        String text = String.valueOf(message);
        StringBuilder line = new StringBuilder(Math.min(text.length(), MAX_LENGTH) + 16);
        int shown = 0;
        while (shown < text.length() && line.length() < MAX_LENGTH) {
            char c = text.charAt(shown++);
            switch (c) {
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') line.append(String.format("\\u%04x", (int) c));
                    else line.append(c);
                }
            }
        }
        if (shown < text.length()) line.append("... (").append(text.length() - shown).append(" more characters)");
        return line.toString();
    }
}
