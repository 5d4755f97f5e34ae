package dev.byodt.compiler.codegen;

import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.lower.Program;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static dev.byodt.compiler.codegen.Programs.buffer;
import static dev.byodt.compiler.kernel.Exprs.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Kernels that differ only in the buffers they are given (a transformer's repeated layers) compile to one
 * function, named for the first node and how many others run it; a kernel that differs in anything else (a
 * constant, a loop's extent) gets its own, and every result is the interpreter's.
 */
class SharedKernelsTest {
    private static final Pattern DEFINED = Pattern.compile("^define [^@]*@(?:\"([^\"]+)\"|([^\\s(]+))\\(", Pattern.MULTILINE);

    /** out = max(in, 0) * scale over n elements. */
    private static Kernel scaledRelu(String name, Buffer in, Buffer out, long n, double scale) {
        KernelBuilder kb = new KernelBuilder(name, "Relu", List.of(in), List.of(out));
        kb.loop(n, i -> kb.store(out, i, mul(max(kb.load(in, i), real(0)), real(scale))));
        return kb.build();
    }

    @Test
    void kernelsThatDifferOnlyInTheirBuffersShareOneFunction() {
        Buffer x = buffer("x", 64), a = buffer("a", 64), b = buffer("b", 64), c = buffer("c", 64), d = buffer("d", 64);
        Buffer e = buffer("e", 32);
        Program program = Programs.of(List.of(
            scaledRelu("first", x, a, 64, 0.5),
            scaledRelu("second", a, b, 64, 0.5),
            scaledRelu("third", b, c, 64, 0.5),
            scaledRelu("otherScale", c, d, 64, 0.25),
            scaledRelu("otherLength", d, e, 32, 0.5)), List.of(x), List.of(e), Map.of());
        Tensor input = HostModelTest.random(x.shape(), 11);
        List<Tensor> reference = GraphInterpreter.run(program, List.of(input));
        try (var compiled = Compiler.compile(program, CompileOptions.host()); var model = Compiler.jit(compiled)) {
            List<String> kernels = DEFINED.matcher(compiled.printIr()).results().map(m -> m.group(1) != null ? m.group(1) : m.group(2))
                .filter(name -> name.startsWith("k")).sorted().toList();
            assertEquals(List.of("k0.Relu.first (+2 identical)", "k3.Relu.otherScale", "k4.Relu.otherLength"), kernels);
            assertArrayEquals(reference.get(0).toFloatArray(), model.run(List.of(input)).get(0).toFloatArray());
        }
    }
}
