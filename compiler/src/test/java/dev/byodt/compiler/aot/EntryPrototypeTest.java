package dev.byodt.compiler.aot;

import dev.byodt.compiler.codegen.ProgramSignature;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class EntryPrototypeTest {
    private static TensorSpec tensor(String name, ElementType type) {
        return new TensorSpec(name, type, new long[] {2});
    }

    @Test
    void tensorNamesBecomeDistinctCIdentifiers() {
        ProgramSignature signature = new ProgramSignature("run_net",
            List.of(tensor("input.1", ElementType.FLOAT32), tensor("input:1", ElementType.INT64),
                tensor("0", ElementType.INT32), tensor("float", ElementType.FLOAT32)),
            List.of(tensor("workspace", ElementType.FLOAT32), tensor("__Out", ElementType.FLOAT32)), 64);
        assertEquals("void run_net(const float *input_1, const int64_t *input_1_2, const int32_t *t_0, "
                + "const float *float_, float *workspace_2, float *Out, void *workspace)",
            EntryPrototype.of(signature).declaration());
    }

    @Test
    void stringLiteralsEscapeEverythingButPrintableAscii() {
        assertEquals("\"a\\\"b\\\\c\\077\\303\\251\\012\"", CSyntax.stringLiteral("a\"b\\c?é\n"));
    }

    @Test
    void commentTextCannotCloseTheComment() {
        assertEquals("a * / b c", CSyntax.commentText("a */ b\nc"));
    }
}
