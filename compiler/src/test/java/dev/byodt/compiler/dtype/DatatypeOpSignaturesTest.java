package dev.byodt.compiler.dtype;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docs/bring-your-own-datatype.md's table of C signatures says what {@link DatatypeOp} says: every operation
 * in exactly one row, with the signature its kinds give, so that adding an operation without its row (or a row
 * without an operation) fails here.
 */
class DatatypeOpSignaturesTest {
    private static final Path GUIDE = Path.of(System.getProperty("byodt.docsDir", "../docs"), "bring-your-own-datatype.md");

    @Test
    void theGuidesTableListsEveryOperationWithItsSignature() throws IOException {
        Map<String, String> documented = documentedSignatures();
        Map<String, String> expected = new LinkedHashMap<>();
        for (DatatypeOp op : DatatypeOp.values()) expected.put(op.functionSuffix(), signature(op));
        assertEquals(expected.keySet().stream().sorted().toList(), documented.keySet().stream().sorted().toList(),
            "the operations of the guide's signature table");
        expected.forEach((op, signature) -> assertEquals(signature, documented.get(op), "the guide's signature of " + op));
    }

    /** The C signature the kinds give, written as the guide writes it (an accumulator only read is const). */
    private static String signature(DatatypeOp op) {
        List<String> params = new ArrayList<>();
        for (DatatypeOp.Kind k : op.params()) {
            params.add(k == DatatypeOp.Kind.ACCUMULATOR && op.result() != DatatypeOp.Kind.NOTHING ? "const uint64_t *acc" : c(k));
        }
        return c(op.result()) + " f(" + (params.isEmpty() ? "void" : String.join(", ", params)) + ")";
    }

    private static String c(DatatypeOp.Kind kind) {
        return switch (kind) {
            case VALUE -> "T";
            case FLOAT -> "float";
            case DOUBLE -> "double";
            case INT32 -> "int32_t";
            case ACCUMULATOR -> "uint64_t *acc";
            case NOTHING -> "void";
        };
    }

    /** Rows "| names | `signature` ... |", names and signatures alike separated by " / " when a row pairs several. */
    private static Map<String, String> documentedSignatures() throws IOException {
        String guide = Files.readString(GUIDE);
        int table = guide.indexOf("| operations | C signature |");
        if (table < 0) fail(GUIDE + " has no table headed | operations | C signature |");
        Map<String, String> signatures = new LinkedHashMap<>();
        Pattern code = Pattern.compile("`([^`]*)`");
        for (String line : guide.substring(table).lines().skip(2).takeWhile(l -> l.strip().startsWith("|")).toList()) {
            String[] cells = line.strip().split("\\|");
            String[] groups = cells[1].replaceAll("\\(.*\\)", "").strip().split(" / ");
            Matcher m = code.matcher(cells[2]);
            List<String> forms = new ArrayList<>();
            while (m.find()) forms.add(m.group(1));
            assertEquals(groups.length, forms.size(), "names and signatures of the row " + line);
            for (int i = 0; i < groups.length; i++) {
                for (String name : groups[i].strip().split("\\s+")) {
                    if (signatures.put(name, forms.get(i)) != null) fail(name + " is in two rows of the guide's table");
                }
            }
        }
        return signatures;
    }
}
