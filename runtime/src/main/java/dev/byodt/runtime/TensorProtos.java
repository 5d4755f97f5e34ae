package dev.byodt.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import dev.byodt.onnx.Onnx.TensorProto;

import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * ONNX TensorProto files and messages (the input_N.pb / output_N.pb of ONNX test data, and model weights)
 * converted to and from tensors, in the element types of {@link ElementType}; every other element type
 * (strings, complex numbers), external data and segmented tensors are errors that name the tensor, because
 * converting them silently would change the numbers a datatype experiment is about. The 4- and 2-bit types
 * are packed in files as ONNX says (two or four elements a byte, the first in the low bits, in raw_data and in
 * int32_data alike) and take a byte each in a {@link Tensor}.
 */
public final class TensorProtos {
    private TensorProtos() {}

    /** Reads a serialized TensorProto file. */
    public static NamedTensor read(Path file) {
        byte[] bytes = InputFiles.readAllBytes(file);
        TensorProto proto;
        try {
            proto = TensorProto.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new ByodtException(file + " is not an ONNX TensorProto file (" + e.getMessage() + ")", e);
        }
        // Protobuf parses many non-protobuf files as messages with unknown fields; a tensor always has a type.
        if (!proto.hasDataType()) throw new ByodtException(file + " is not an ONNX TensorProto file (it has no data type)");
        return new NamedTensor(proto.getName(), fromProto(proto, "tensor '" + proto.getName() + "' in " + file));
    }

    /**
     * Converts a TensorProto message.
     *
     * @param context how errors name the tensor, e.g. "initializer 'conv1.weight' of model.onnx"
     */
    public static Tensor fromProto(TensorProto proto, String context) {
        ElementType type = ElementType.fromOnnx(proto.getDataType());
        if (type == null) {
            throw new ByodtException(context + " has element type " + ElementType.onnxName(proto.getDataType())
                + ", which byodt does not support (" + ElementType.supportedList() + ")");
        }
        if (proto.getDataLocation() == TensorProto.DataLocation.EXTERNAL || proto.getExternalDataCount() > 0) {
            throw new ByodtException(context + ": external data not supported");
        }
        if (proto.hasSegment()) throw new ByodtException(context + ": segmented tensors not supported");
        long[] shape = proto.getDimsList().stream().mapToLong(Long::longValue).toArray();
        long count;
        try {
            count = Shapes.elementCount(shape, proto.getName());
        } catch (ByodtException e) {
            throw new ByodtException(context + ": " + e.getMessage(), e);
        }
        MemoryLimit.requireTensor(shape, type.byteSize(), context);
        Tensor tensor = Tensor.zeros(type, shape);
        if (proto.hasRawData()) {
            copyRawData(proto.getRawData(), tensor, count, context);
        } else {
            copyTypedData(proto, tensor, count, context);
        }
        return tensor;
    }

    /** The TensorProto of a tensor, its data as little-endian raw_data. */
    public static TensorProto toProto(String name, Tensor tensor) {
        byte[] raw;
        if (tensor.type().isPacked()) {
            raw = PackedElements.pack(tensor);
        } else {
            raw = new byte[Math.toIntExact(tensor.data().byteSize())];
            MemorySegment.copy(tensor.data(), nativeLayout(tensor.type()), 0,
                MemorySegment.ofArray(raw), littleEndianLayout(tensor.type()), 0, tensor.elementCount());
        }
        TensorProto.Builder builder = TensorProto.newBuilder().setName(name).setDataType(tensor.type().onnxCode());
        for (long d : tensor.shape()) builder.addDims(d);
        // The array is ours alone, so protobuf may keep it without copying.
        return builder.setRawData(UnsafeByteOperations.unsafeWrap(raw)).build();
    }

    /** Writes a TensorProto file, atomically ({@link AtomicFiles}). */
    public static void write(Path file, NamedTensor named) {
        TensorProto proto = toProto(named.name(), named.tensor());
        AtomicFiles.write(file, temporary -> {
            try (OutputStream out = Files.newOutputStream(temporary)) {
                proto.writeTo(out);
            }
        });
    }

    private static void copyRawData(ByteString raw, Tensor tensor, long count, String context) {
        long expected = PackedElements.bytesFor(tensor.type(), count);
        if (raw.size() != expected) {
            throw new ByodtException(context + " has " + raw.size() + " bytes of raw data, but shape "
                + Shapes.format(tensor.shape()) + " of " + tensor.type() + " needs " + expected);
        }
        if (tensor.type().isPacked()) {
            PackedElements.unpack(raw.toByteArray(), tensor);
            return;
        }
        MemorySegment source = MemorySegment.ofBuffer(raw.asReadOnlyByteBuffer());
        MemorySegment.copy(source, littleEndianLayout(tensor.type()), 0, tensor.data(), nativeLayout(tensor.type()), 0, count);
    }

    /** The typed field ONNX keeps each element type's values in when a tensor has no raw_data. */
    private static void copyTypedData(TensorProto proto, Tensor tensor, long count, String context) {
        switch (tensor.type()) {
            case FLOAT32 -> {
                List<Float> values = checkedCount(proto.getFloatDataList(), "float_data", count, context);
                for (int i = 0; i < values.size(); i++) tensor.setFloat(i, values.get(i));
            }
            case DOUBLE -> {
                List<Double> values = checkedCount(proto.getDoubleDataList(), "double_data", count, context);
                for (int i = 0; i < values.size(); i++) tensor.setDouble(i, values.get(i));
            }
            case INT64 -> {
                List<Long> values = checkedCount(proto.getInt64DataList(), "int64_data", count, context);
                for (int i = 0; i < values.size(); i++) tensor.setLong(i, values.get(i));
            }
            case UINT32, UINT64 -> {
                List<Long> values = checkedCount(proto.getUint64DataList(), "uint64_data", count, context);
                for (int i = 0; i < values.size(); i++) tensor.setLong(i, values.get(i));
            }
            // The 16- and 8-bit floats travel as their bit patterns, the integer types as their values.
            case INT32, INT16, UINT16, INT8, UINT8, BOOL, FLOAT16, BFLOAT16 -> {
                List<Integer> values = checkedCount(proto.getInt32DataList(), "int32_data", count, context);
                for (int i = 0; i < values.size(); i++) {
                    if (tensor.type() == ElementType.FLOAT16 || tensor.type() == ElementType.BFLOAT16) {
                        tensor.data().setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (int) values.get(i));
                    } else {
                        tensor.setLong(i, values.get(i));
                    }
                }
            }
            case FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0 -> {
                List<Integer> values = checkedCount(proto.getInt32DataList(), "int32_data", count, context);
                for (int i = 0; i < values.size(); i++) tensor.data().set(ValueLayout.JAVA_BYTE, i, (byte) (int) values.get(i));
            }
            // Each int32 holds one byte of packed elements.
            case INT4, UINT4, INT2, UINT2, FLOAT4E2M1 -> {
                List<Integer> values = proto.getInt32DataList();
                long bytes = PackedElements.bytesFor(tensor.type(), count);
                if (values.size() != bytes) {
                    throw new ByodtException(context + " has " + values.size() + " values in int32_data, but " + count + " "
                        + tensor.type() + " elements pack into " + bytes + " bytes, one a value");
                }
                byte[] packed = new byte[values.size()];
                for (int i = 0; i < packed.length; i++) packed[i] = (byte) (int) values.get(i);
                PackedElements.unpack(packed, tensor);
            }
        }
    }

    private static <T> List<T> checkedCount(List<T> values, String field, long count, String context) {
        if (values.size() != count) {
            throw new ByodtException(context + " has " + values.size() + " values in " + field + " for " + count + " elements");
        }
        return values;
    }

    /** Elements move as their bits, so an integer layout of the element's size serves every type. */
    private static ValueLayout nativeLayout(ElementType type) {
        return switch (type.byteSize()) {
            case 1 -> ValueLayout.JAVA_BYTE;
            case 2 -> ValueLayout.JAVA_SHORT_UNALIGNED;
            case 4 -> ValueLayout.JAVA_INT_UNALIGNED;
            default -> ValueLayout.JAVA_LONG_UNALIGNED;
        };
    }

    /** ONNX stores raw_data little-endian whatever the host's byte order. */
    private static ValueLayout littleEndianLayout(ElementType type) {
        return nativeLayout(type).withOrder(ByteOrder.LITTLE_ENDIAN);
    }
}
