package dev.byodt.compiler.block;

import dev.byodt.compiler.dtype.BlockFormat;
import dev.byodt.compiler.dtype.QuantizedBlock;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import static dev.byodt.compiler.kernel.Exprs.*;

/**
 * One operand of dot products in a block datatype, quantized in blocks along the reduction axis: the tensor seen
 * as [outer, length, inner], blocks along the middle axis (the last one shorter when the block size does not
 * divide length), its elements (F32, or F64 where converted for the products, that layout), its blocks' scales (F32, [outer, blocks, inner]) and its tensor
 * scale (an F64 expression, 1 for formats without one). Blocks are {@code blockSize} long: the format's, or for a
 * Conv's gathered windows ({@link ConvWindows}) the length of each tap's blocks of channels. Weights are quantized at compile time by the exact
 * quantizer, activations when the node runs by {@link ActivationQuantizer}: the same elements and scales.
 */
record QuantizedOperand(KernelBuilder kb, Buffer elements, Buffer scales, long length, long inner, long blocks, long blockSize, Expr tensorScale) {
    /** The operand {@code source} (REAL), quantized by a loop nest that runs before the node's loops. */
    static QuantizedOperand atRunTime(KernelBuilder kb, BlockFormat format, String name, Buffer source, long outer, long length, long inner) {
        long blocks = blocks(format, length);
        Buffer elements = kb.scratch(name + ".elements", storage(format).type(), new long[] {outer, length, inner});
        Buffer scales = kb.scratch(name + ".scales", ScalarType.F32, new long[] {outer, blocks, inner});
        Buffer tensorScale = format.name().tensorScale() ? kb.scratch(name + ".tensor.scale", ScalarType.F32, new long[] {1}) : null;
        new ActivationQuantizer(format).emit(kb, source, elements, scales, tensorScale, outer, length, inner);
        Expr t = tensorScale == null ? f64(1) : cast(ScalarType.F64, kb.load(tensorScale, idx(0)));
        return new QuantizedOperand(kb, elements, scales, length, inner, blocks, format.blockSize(), t);
    }

    /**
     * The constant {@code values} in that layout, quantized now in exact arithmetic: every element stored exactly
     * ({@link ElementStorage}) and every scale a float32 ({@link ActivationQuantizer} admits such formats only). A block
     * with a NaN scale keeps the quantizer's zero elements; its NaN scale makes its sums NaN.
     */
    static QuantizedOperand atCompileTime(KernelBuilder kb, BlockFormat format, String name, float[] values, long outer, long length, long inner) {
        return Constant.of(kb, format, name, values, outer, length, inner).operand(kb, name, new long[] {outer, length, inner},
            new long[] {outer, blocks(format, length), inner}, format.blockSize());
    }

    /**
     * A constant's quantized elements (as {@link ElementStorage} keeps them, each as a double: {@link ElementStorage#storedValue}),
     * block scales and tensor scale, in the layout it was quantized in.
     */
    record Constant(ElementStorage storage, double[] elements, float[] scales, double tensorScale) {
        /** {@code values} as [outer, length, inner], quantized in blocks along the middle axis. */
        static Constant of(KernelBuilder kb, BlockFormat format, String name, float[] values, long outer, long length, long inner) {
            double tensorScale = format.tensorScale(values);
            // Stochastically rounded elements count from the key of the operand, as the run-time quantizer's do.
            long key = format.counterKey(kb.name(), name);
            int blocks = (int) blocks(format, length);
            ElementStorage storage = QuantizedOperand.storage(format);
            double[] elements = new double[values.length];
            float[] scales = new float[(int) (outer * blocks * inner)];
            float[] block = new float[format.blockSize()];
            for (int o = 0; o < outer; o++) {
                for (int i = 0; i < inner; i++) {
                    for (int b = 0; b < blocks; b++) {
                        int start = b * format.blockSize(), count = (int) Math.min(format.blockSize(), length - start);
                        for (int j = 0; j < count; j++) block[j] = values[(int) ((o * length + start + j) * inner + i)];
                        int firstIndex = (int) ((o * length + start) * inner + i);
                        QuantizedBlock q = format.quantize(block, 0, count, tensorScale, j -> key + firstIndex + (long) j * inner);
                        scales[(int) ((o * blocks + b) * inner + i)] = (float) q.scale();
                        for (int j = 0; j < count; j++) {
                            int at = (int) ((o * length + start + j) * inner + i);
                            elements[at] = storage.storedValue(q.element(j));
                        }
                    }
                }
            }
            return new Constant(storage, elements, scales, tensorScale);
        }

        /** This constant as an operand of the shape {@code shape} and blocks of {@code blockSize} ({@code scalesShape}: [outer, blocks, inner]). */
        QuantizedOperand operand(KernelBuilder kb, String name, long[] shape, long[] scalesShape, long blockSize) {
            Buffer elementsBuffer = kb.constant(name + ".elements", storage.type(), storage.tensor(shape, elements));
            Buffer scalesBuffer = kb.constant(name + ".scales", ScalarType.F32, Tensor.ofFloats(scalesShape, scales));
            return new QuantizedOperand(kb, elementsBuffer, scalesBuffer, shape[1], shape[2], scalesShape[1], blockSize, tensorScale(kb, name));
        }

        /**
         * The tensor scale as the kernel reads it: a float32 constant it loads, not a literal in its code, so that
         * kernels that differ only in their weights are the same code and compile once (mobilenet_v2 in nvfp4: 52
         * kernel functions, not 74, and half the compile time); 1 for formats without one.
         */
        private Expr tensorScale(KernelBuilder kb, String name) {
            if (tensorScale == 1) return f64(1);
            Buffer scale = kb.constant(name + ".tensor.scale", ScalarType.F32, Tensor.ofFloats(new long[] {1}, new float[] {(float) tensorScale}));
            return cast(ScalarType.F64, kb.load(scale, idx(0)));
        }
    }

    /** How {@code format}'s elements are stored; {@link ActivationQuantizer#unsupported} admits only formats that have a way. */
    static ElementStorage storage(BlockFormat format) {
        return ElementStorage.of(format).orElseThrow(() -> new IllegalArgumentException(format.name() + " has no element storage"));
    }

    /**
     * This operand with its elements in {@code type} (F32 or F64, which holds every float32; I64 integers stay
     * so), converted by a loop that runs before the node's loops; this operand itself where they already are.
     */
    QuantizedOperand withElementsIn(ScalarType type) {
        if (elements.elementType() == type || elements.elementType() == ScalarType.I64) return this;
        Buffer converted = kb.scratch("converted.elements", type, elements.shape());
        kb.loop(elements.size(), i -> kb.store(converted, i, cast(type, kb.load(elements, i))));
        return new QuantizedOperand(kb, converted, scales, length, inner, blocks, blockSize, tensorScale);
    }

    static long blocks(BlockFormat format, long length) { return (length + format.blockSize() - 1) / format.blockSize(); }

    /** The vector along the reduction axis at [outer, *, inner]. */
    Vector at(Expr outer, Expr inner) { return new Vector(this, outer, inner); }

    /** One vector of the operand along the reduction axis. */
    record Vector(QuantizedOperand operand, Expr outer, Expr inner) {
        /** Element k of the vector (as stored, or in the type of {@link #withElementsIn}). */
        Expr element(Expr k) {
            return operand.kb.load(operand.elements, add(mul(add(mul(outer, operand.length), k), operand.inner), inner));
        }

        /** The scale of the vector's block {@code block} (F32). */
        Expr scale(Expr block) {
            return operand.kb.load(operand.scales, add(mul(add(mul(outer, operand.blocks), block), operand.inner), inner));
        }

        Expr tensorScale() { return operand.tensorScale; }
    }

    private static Expr f64(double value) { return constant(ScalarType.F64, value); }
}
