package dev.byodt.runtime;

import com.google.protobuf.ByteString;
import dev.byodt.onnx.Onnx.TensorProto;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conversions between declared element types and the computed ones, against references written from the
 * formats' definitions: 16-bit floats decoded from their bit fields and rounded by exact comparison with the
 * two neighbouring values (BigDecimal), integers wrapped by BigInteger arithmetic modulo 2^bits.
 */
class ElementTypeConversionTest {
    /** The value of a 16-bit float with {@code exponentBits} exponent bits, from its fields; NaN for NaN. */
    private static double decode(int bits, int exponentBits) {
        int fractionBits = 15 - exponentBits;
        int bias = (1 << (exponentBits - 1)) - 1;
        int exponent = (bits >>> fractionBits) & ((1 << exponentBits) - 1);
        int fraction = bits & ((1 << fractionBits) - 1);
        double sign = (bits & 0x8000) != 0 ? -1 : 1;
        if (exponent == (1 << exponentBits) - 1) return fraction == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        if (exponent == 0) return sign * fraction * Math.pow(2, 1 - bias - fractionBits);
        return sign * (1 + fraction / Math.pow(2, fractionBits)) * Math.pow(2, exponent - bias);
    }

    @Test
    void everyFloat16AndBfloat16PatternDecodesAndRoundTrips() {
        for (ElementType type : new ElementType[] {ElementType.FLOAT16, ElementType.BFLOAT16}) {
            int exponentBits = type == ElementType.FLOAT16 ? 5 : 8;
            Tensor all = Tensor.zeros(type, new long[] {65536});
            for (int b = 0; b < 65536; b++) all.data().setAtIndex(ValueLayout.JAVA_SHORT, b, (short) b);
            Tensor floats = all.convertedTo(ElementType.FLOAT32);
            Tensor back = floats.convertedTo(type);
            for (int b = 0; b < 65536; b++) {
                double want = decode(b, exponentBits);
                assertEquals(want, floats.getFloat(b), 0, type + " pattern " + Integer.toHexString(b));
                if (Double.isNaN(want)) {
                    assertTrue(Double.isNaN(back.getDouble(b)), type + " NaN stays NaN");
                } else {
                    assertEquals(b, back.data().getAtIndex(ValueLayout.JAVA_SHORT, b) & 0xFFFF, type + " round trip");
                }
            }
        }
    }

    /** The 16-bit pattern nearest to f, ties to the even pattern, rounding past the largest finite value to infinity. */
    private static int nearest(float f, int exponentBits) {
        int infinity = ((1 << exponentBits) - 1) << (15 - exponentBits);
        BigDecimal magnitude = new BigDecimal(Math.abs((double) f));
        int lo = 0, hi = infinity;
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (valueOf(mid, exponentBits, infinity).compareTo(magnitude) <= 0) lo = mid;
            else hi = mid;
        }
        if (valueOf(hi, exponentBits, infinity).compareTo(magnitude) <= 0) lo = hi;
        int chosen = lo;
        if (lo < infinity) {
            int up = lo + 1;
            int c = magnitude.subtract(valueOf(lo, exponentBits, infinity))
                .compareTo(valueOf(up, exponentBits, infinity).subtract(magnitude));
            if (c > 0 || (c == 0 && (lo & 1) == 1)) chosen = up;
        }
        return chosen | (f < 0 || (f == 0 && 1 / f < 0) ? 0x8000 : 0);
    }

    /** A pattern's exact value; infinity counts as the next power of two above the largest finite value, as IEEE rounds. */
    private static BigDecimal valueOf(int bits, int exponentBits, int infinity) {
        if (bits == infinity) {
            int bias = (1 << (exponentBits - 1)) - 1;
            return new BigDecimal(BigInteger.TWO.pow(bias + 1));
        }
        return new BigDecimal(decode(bits, exponentBits));
    }

    @Test
    void float32RoundsToNearestEvenInTheNarrowFloats() {
        Random random = new Random(13);
        int samples = 200_000;
        Tensor floats = Tensor.zeros(ElementType.FLOAT32, new long[] {samples});
        float[] edges = {0, -0f, Float.MIN_VALUE, 65504, 65519.99f, 65520, -65520, 5.9604645e-8f, 2.9802322e-8f,
            2.9802326e-8f, Float.MAX_VALUE, 3.3895314e38f, 1 + 1 / 256f, 1 + 3 / 256f, 1 + 1 / 2048f, 1 + 3 / 2048f};
        for (int i = 0; i < samples; i++) {
            float f = i < edges.length ? edges[i] : Float.intBitsToFloat(random.nextInt());
            floats.setFloat(i, Float.isNaN(f) ? 1 : f);
        }
        for (ElementType type : new ElementType[] {ElementType.FLOAT16, ElementType.BFLOAT16}) {
            int exponentBits = type == ElementType.FLOAT16 ? 5 : 8;
            Tensor narrow = floats.convertedTo(type);
            for (int i = 0; i < samples; i++) {
                int got = narrow.data().getAtIndex(ValueLayout.JAVA_SHORT, i) & 0xFFFF;
                assertEquals(nearest(floats.getFloat(i), exponentBits), got, type + " of " + floats.getFloat(i));
            }
        }
    }

    @Test
    void integersWrapToTheirBits() {
        Random random = new Random(7);
        long[] values = new long[10_000];
        long[] edges = {0, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, 65535, 65536, Integer.MAX_VALUE, 1L << 32,
            Long.MAX_VALUE, Long.MIN_VALUE};
        for (int i = 0; i < values.length; i++) values[i] = i < edges.length ? edges[i] : random.nextLong() >> random.nextInt(64);
        Tensor wide = Tensor.ofLongs(new long[] {values.length}, values);
        for (ElementType type : new ElementType[] {ElementType.INT8, ElementType.UINT8, ElementType.INT16, ElementType.UINT16,
                ElementType.INT32, ElementType.UINT32, ElementType.UINT64, ElementType.BOOL, ElementType.INT4, ElementType.UINT4,
                ElementType.INT2, ElementType.UINT2}) {
            Tensor narrow = wide.convertedTo(type);
            for (int i = 0; i < values.length; i++) {
                assertEquals(wrapped(values[i], type), unsignedOrSigned(narrow, i), type + " of " + values[i]);
            }
        }
    }

    /** What ONNX's Cast makes of v: its value modulo 2^bits, in the type's range; bool is v != 0. */
    private static BigInteger wrapped(long v, ElementType type) {
        if (type == ElementType.BOOL) return v != 0 ? BigInteger.ONE : BigInteger.ZERO;
        int bits = switch (type) {
            case INT4, UINT4 -> 4;
            case INT2, UINT2 -> 2;
            default -> type.byteSize() * 8;
        };
        BigInteger modulus = BigInteger.ONE.shiftLeft(bits);
        BigInteger r = BigInteger.valueOf(v).mod(modulus);
        boolean signed = type == ElementType.INT8 || type == ElementType.INT16 || type == ElementType.INT32
            || type == ElementType.INT4 || type == ElementType.INT2;
        return signed && r.testBit(bits - 1) ? r.subtract(modulus) : r;
    }

    private static BigInteger unsignedOrSigned(Tensor t, int i) {
        long v = t.getLong(i);
        return t.type() == ElementType.UINT64 ? new BigInteger(Long.toUnsignedString(v)) : BigInteger.valueOf(v);
    }

    @Test
    void uint64ValuesAboveTheSignedRangeReadAsTheirValue() {
        Random random = new Random(3);
        Tensor t = Tensor.zeros(ElementType.UINT64, new long[] {1000});
        for (int i = 0; i < 1000; i++) t.setLong(i, i == 0 ? -1 : i == 1 ? Long.MIN_VALUE : random.nextLong());
        for (int i = 0; i < 1000; i++) {
            double want = new BigDecimal(new BigInteger(Long.toUnsignedString(t.getLong(i)))).doubleValue();
            assertEquals(want, t.getDouble(i), 0, Long.toUnsignedString(t.getLong(i)));
        }
    }

    @Test
    void everyTypeReadsFromTypedFieldsAndRawDataAlike() {
        for (ElementType type : ElementType.values()) {
            double[] values = valuesHeldExactly(type);
            Tensor t = Tensor.zeros(type, new long[] {values.length});
            for (int i = 0; i < values.length; i++) t.setDouble(i, values[i]);
            TensorProto raw = TensorProtos.toProto("t", t);
            Tensor fromRaw = TensorProtos.fromProto(raw, "raw " + type);
            TensorProto.Builder typed = TensorProto.newBuilder().setDataType(type.onnxCode()).addDims(values.length);
            if (type.isPacked()) {
                // int32_data holds the packed bytes, one a value.
                for (byte b : raw.getRawData().toByteArray()) typed.addInt32Data(b & 0xFF);
            }
            for (int i = 0; i < values.length && !type.isPacked(); i++) {
                switch (type) {
                    case FLOAT32 -> typed.addFloatData((float) values[i]);
                    case DOUBLE -> typed.addDoubleData(values[i]);
                    case INT64 -> typed.addInt64Data((long) values[i]);
                    case UINT32, UINT64 -> typed.addUint64Data((long) values[i]);
                    case FLOAT16, BFLOAT16 -> typed.addInt32Data(t.data().getAtIndex(ValueLayout.JAVA_SHORT, i) & 0xFFFF);
                    case FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0 ->
                        typed.addInt32Data(t.data().get(ValueLayout.JAVA_BYTE, i) & 0xFF);
                    default -> typed.addInt32Data((int) (long) values[i]);
                }
            }
            Tensor fromTyped = TensorProtos.fromProto(typed.build(), "typed " + type);
            for (int i = 0; i < values.length; i++) {
                double want = type.isInteger() && !type.isUnsigned() ? Math.floor(Math.abs(values[i])) * Math.signum(values[i]) : values[i];
                assertEquals(want, fromRaw.getDouble(i), 0, "raw " + type);
                assertEquals(want, fromTyped.getDouble(i), 0, "typed " + type);
            }
        }
    }

    /** Values a type holds (an integer type after truncation), five of them so that packed bytes are partly filled. */
    private static double[] valuesHeldExactly(ElementType type) {
        if (type == ElementType.BOOL) return new double[] {1, 0, 1, 1, 0};
        if (type == ElementType.FLOAT8E8M0) return new double[] {1, 0.5, 4, 0x1p-127, 0x1p127};
        if (type == ElementType.UINT2) return new double[] {1, 0, 3, 2, 3};
        if (type == ElementType.INT2) return new double[] {1, 0, -2, -1, 1};
        if (type == ElementType.UINT4) return new double[] {1, 0, 15, 7, 8};
        if (type == ElementType.INT4) return new double[] {1, 0, -3.5, -8, 7};
        if (type == ElementType.FLOAT4E2M1) return new double[] {1, 0, -3, 6, -0.5};
        return new double[] {1, 0, type.isUnsigned() ? 200 : -3.5, 2, -0.0};
    }

    @Test
    void packedTypesLayTheFirstElementInTheLowBits() {
        Tensor int4 = Tensor.zeros(ElementType.INT4, new long[] {3});
        int4.setLong(0, -1);
        int4.setLong(1, 2);
        int4.setLong(2, -8);
        assertEquals("2f08", HexFormat.of().formatHex(TensorProtos.toProto("t", int4).getRawData().toByteArray()));
        Tensor uint2 = Tensor.zeros(ElementType.UINT2, new long[] {5});
        for (int i = 0; i < 5; i++) uint2.setLong(i, i);
        // 0, 1, 2, 3 in the first byte from its low bits up, then 4 wrapped to 0.
        assertEquals("e400", HexFormat.of().formatHex(TensorProtos.toProto("t", uint2).getRawData().toByteArray()));
    }

    @Test
    void packedDataOfTheWrongSizeIsRefusedNamingTheTensor() {
        TensorProto proto = TensorProto.newBuilder().setName("w").setDataType(ElementType.INT4.onnxCode()).addDims(5)
            .setRawData(ByteString.copyFrom(new byte[2])).build();
        ByodtException e = assertThrows(ByodtException.class,
            () -> TensorProtos.fromProto(proto, "initializer 'w'"));
        assertEquals("initializer 'w' has 2 bytes of raw data, but shape 5 of int4 needs 3", e.getMessage());
        TensorProto typed = TensorProto.newBuilder().setName("w").setDataType(ElementType.UINT2.onnxCode()).addDims(5)
            .addInt32Data(0).build();
        ByodtException t = assertThrows(ByodtException.class, () -> TensorProtos.fromProto(typed, "initializer 'w'"));
        assertEquals("initializer 'w' has 1 values in int32_data, but 5 uint2 elements pack into 2 bytes, one a value", t.getMessage());
    }
}
