package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.Datatype;

import java.util.Collections;
import java.util.List;

/**
 * Which datatype each kernel of a program computes in. Every REAL buffer a kernel touches is in that
 * kernel's datatype ({@link DatatypeBoundaries} inserts the conversions that make it so); REAL buffers no
 * kernel touches, such as inputs of a program all in one datatype, are in {@code boundary}'s.
 */
public record DatatypePlan(Program program, List<Datatype> kernelDatatypes, Datatype boundary) {
    public DatatypePlan {
        kernelDatatypes = List.copyOf(kernelDatatypes);
        if (kernelDatatypes.size() != program.kernels().size()) {
            throw new IllegalArgumentException(kernelDatatypes.size() + " datatypes for " + program.kernels().size() + " kernels");
        }
    }

    public static DatatypePlan uniform(Program program, Datatype datatype) {
        return new DatatypePlan(program, Collections.nCopies(program.kernels().size(), datatype), datatype);
    }

    public Datatype datatypeOf(int kernel) { return kernelDatatypes.get(kernel); }
}
