package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.runtime.TensorSpec;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A whole model as loop nests: the kernels in execution order and the role of every buffer they touch.
 * Each buffer is exactly one of: a run-time input (the caller's memory), an output (the caller's memory),
 * a constant (weights, baked into the code), or a temporary (a part of the workspace, its own or, for one of
 * the {@code slices}, a run of another temporary's). Kernels' scratch buffers are none of these: the memory plan
 * gives each a part of the workspace for its kernel's run.
 *
 * @param inputs      run-time inputs, in graph order; {@code inputSpecs} says how callers see them
 * @param outputs     graph outputs, in graph order, each written by exactly one kernel
 * @param constants   the constant buffers some kernel loads, with their contents (kernels' own constants
 *                    included): the raw bytes of the buffer's elements in its element type, which after
 *                    datatype lowering is the datatype's storage type
 * @param temporaries every other buffer a kernel reads or writes, scratch buffers excepted
 * @param slices      the temporaries that live inside others (the slice's whole is a temporary too), every other
 *                    temporary having bytes of its own
 */
public record Program(String name, List<Kernel> kernels, List<Buffer> inputs, List<TensorSpec> inputSpecs,
                      List<Buffer> outputs, List<TensorSpec> outputSpecs, Map<Buffer, MemorySegment> constants,
                      List<Buffer> temporaries, Map<Buffer, Slice> slices) {
    public Program {
        kernels = List.copyOf(kernels);
        inputs = List.copyOf(inputs);
        inputSpecs = List.copyOf(inputSpecs);
        outputs = List.copyOf(outputs);
        outputSpecs = List.copyOf(outputSpecs);
        constants = Collections.unmodifiableMap(new LinkedHashMap<>(constants));
        temporaries = List.copyOf(temporaries);
        slices = Collections.unmodifiableMap(new LinkedHashMap<>(slices));
    }

    /** A program whose temporaries each have bytes of their own. */
    public Program(String name, List<Kernel> kernels, List<Buffer> inputs, List<TensorSpec> inputSpecs, List<Buffer> outputs,
                   List<TensorSpec> outputSpecs, Map<Buffer, MemorySegment> constants, List<Buffer> temporaries) {
        this(name, kernels, inputs, inputSpecs, outputs, outputSpecs, constants, temporaries, Map.of());
    }

    /**
     * This program with every kernel's body replaced by {@code rewrite} of it, in kernel order: what the
     * passes that change loops but no buffer (the P extension's) produce.
     */
    public Program withKernelBodies(UnaryOperator<List<Stmt>> rewrite) {
        List<Kernel> rewritten = kernels.stream().map(k -> new Kernel(k.name(), k.opType(), k.inputs(), k.outputs(),
            k.scratch(), k.constants(), rewrite.apply(k.body()))).toList();
        return new Program(name, rewritten, inputs, inputSpecs, outputs, outputSpecs, constants, temporaries, slices);
    }

    /** This program with {@code constants} as its constant buffers. */
    public Program withConstants(Map<Buffer, MemorySegment> constants) {
        return new Program(name, kernels, inputs, inputSpecs, outputs, outputSpecs, constants, temporaries, slices);
    }
}
