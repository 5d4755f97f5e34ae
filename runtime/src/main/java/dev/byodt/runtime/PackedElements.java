package dev.byodt.runtime;

import java.lang.foreign.ValueLayout;

/**
 * ONNX's packing of 4- and 2-bit elements (int4, uint4, float4e2m1, int2, uint2): two or four to a byte, the first
 * element in the lowest bits, the last byte padded with zero bits. A {@link Tensor} holds one element a byte: an
 * integer as its value, float4e2m1 as its pattern.
 */
final class PackedElements {
    private PackedElements() {}

    /** The bytes {@code count} elements of a type take in a file. */
    static long bytesFor(ElementType type, long count) {
        return type.isPacked() ? Math.ceilDiv(count * type.bits(), Byte.SIZE) : count * type.byteSize();
    }

    static byte[] pack(Tensor tensor) {
        int bits = tensor.type().bits();
        int perByte = Byte.SIZE / bits;
        int mask = (1 << bits) - 1;
        byte[] packed = new byte[Math.toIntExact(bytesFor(tensor.type(), tensor.elementCount()))];
        for (long i = 0; i < tensor.elementCount(); i++) {
            int element = tensor.data().get(ValueLayout.JAVA_BYTE, i) & mask;
            packed[(int) (i / perByte)] |= (byte) (element << (i % perByte * bits));
        }
        return packed;
    }

    /** Fills the tensor from packed bytes, of which there must be {@link #bytesFor} its elements. */
    static void unpack(byte[] packed, Tensor tensor) {
        ElementType type = tensor.type();
        int bits = type.bits();
        int perByte = Byte.SIZE / bits;
        int mask = (1 << bits) - 1;
        for (long i = 0; i < tensor.elementCount(); i++) {
            int element = packed[(int) (i / perByte)] >>> (i % perByte * bits) & mask;
            if (type.isInteger()) tensor.setLong(i, element);
            else tensor.data().set(ValueLayout.JAVA_BYTE, i, (byte) element);
        }
    }
}
