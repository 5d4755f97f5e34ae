package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.DatatypeInstance;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.NativeLibrary;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.ScalarOp;
import dev.byodt.compiler.kernel.ScalarType;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Calls of a datatype's function of one value that the datatype has tabulated (fixed point's tanh, sigmoid and
 * exp for N <= 16: DatatypeDefinition.Builder#tabulated) become loads from a constant table of that function
 * on every value, computed at compile time by the library itself on the compiling machine ({@link Tabulator}):
 * the same bits for one load and an add instead of tens of instructions a value. The table has 2^N entries
 * of the storage type (256 bytes for 8 bits, 128 KiB for 16), in value order from the lowest, so that the
 * value's sign-extended bits plus 2^(N-1) index it; it is laid out once per function the program calls, and only
 * then.
 */
public final class FunctionTables {
    /** The function {@code function} of {@code library} on every value of {@code storage}, lowest first, as raw bytes. */
    @FunctionalInterface
    public interface Tabulator {
        MemorySegment tabulate(NativeLibrary library, String function, ScalarType storage);
    }

    private record Tabulated(NativeLibrary library, ScalarType storage) {}

    private FunctionTables() {}

    /** {@code program} with the tabulated functions of {@code instances} looked up instead of called. */
    public static Program apply(Program program, List<DatatypeInstance> instances, Tabulator tabulator) {
        Map<String, Tabulated> functions = new HashMap<>();
        for (DatatypeInstance instance : instances) {
            ScalarType storage = instance.storage();
            if (instance.library().isEmpty() || (storage != ScalarType.I8 && storage != ScalarType.I16)) continue;
            for (DatatypeOp op : instance.tabulated()) {
                functions.put(instance.prefix() + "_" + op.functionSuffix(), new Tabulated(instance.library().get(), storage));
            }
        }
        if (functions.isEmpty()) return program;
        Map<Buffer, MemorySegment> constants = new LinkedHashMap<>(program.constants());
        Map<String, Buffer> tables = new HashMap<>();
        KernelRewriter lookups = new KernelRewriter() {
            @Override
            public Expr expr(Expr e) {
                Expr rebuilt = rebuilt(e);
                if (!(rebuilt instanceof Expr.Call call) || call.args().size() != 1 || call.passing() != Expr.Call.Passing.BY_VALUE) return rebuilt;
                Tabulated tabulated = functions.get(call.function());
                if (tabulated == null || call.type() != tabulated.storage() || call.args().getFirst().type() != tabulated.storage()) return rebuilt;
                Buffer table = tables.computeIfAbsent(call.function(), function -> {
                    int bits = MachineTypes.byteSize(tabulated.storage()) * Byte.SIZE;
                    Buffer buffer = new Buffer(function + "_table", tabulated.storage(), new long[]{1L << bits});
                    constants.put(buffer, tabulator.tabulate(tabulated.library(), function, tabulated.storage()));
                    return buffer;
                });
                long half = table.size() / 2;
                Expr index = new Expr.Op(ScalarOp.ADD, ScalarType.I64,
                    List.of(new Expr.Op(ScalarOp.CAST, ScalarType.I64, List.of(call.args().getFirst())), new Expr.IntConst(ScalarType.I64, half)));
                return new Expr.Load(table, index);
            }
        };
        Program rewritten = program.withKernelBodies(lookups::body);
        return tables.isEmpty() ? program : rewritten.withConstants(constants);
    }
}
