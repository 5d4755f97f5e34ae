package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.ScalarType;

/** Storage sizes of the machine scalar types that remain after datatype lowering. */
public final class MachineTypes {
    private MachineTypes() {}

    public static int byteSize(ScalarType type) {
        return switch (type) {
            case BOOL, I8 -> 1;
            case I16 -> 2;
            case I32, F32 -> 4;
            case I64, F64 -> 8;
            case I128 -> 16;
            case I256 -> 32;
            case I512 -> 64;
            case I1024 -> 128;
            case I2048 -> 256;
            case I4096 -> 512;
            case REAL, ACC -> throw new IllegalStateException(type + " has no size before datatype lowering");
        };
    }
}
