package dev.byodt.compiler.lower;

import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.ArrayList;
import java.util.List;

/**
 * A C library function as lowered programs call it: its name, the machine types of its value and parameters,
 * and how the first argument travels. A pass or lowering that calls a library holds these as constants and
 * builds its calls from them, so that a call's name and operand types come from one declaration, which
 * the compiler checks against the library before generating code.
 *
 * @param result the type of the call's value: what the function returns, or, for a function that updates an
 *               accumulator in place, the accumulator's type
 */
public record LibraryFunction(String name, ScalarType result, List<ScalarType> parameters, Expr.Call.Passing passing) {
    public LibraryFunction {
        parameters = List.copyOf(parameters);
    }

    /** A function whose arguments are all passed by value. */
    public LibraryFunction(String name, ScalarType result, List<ScalarType> parameters) {
        this(name, result, parameters, Expr.Call.Passing.BY_VALUE);
    }

    /** The function a call implies: its name, its value's type and its arguments' types. */
    public static LibraryFunction calledBy(Expr.Call call) {
        return new LibraryFunction(call.function(), call.type(), call.args().stream().map(Expr::type).toList(), call.passing());
    }

    /** A call of this function; {@code args} must have the parameters' types. */
    public Expr.Call call(List<Expr> args) {
        List<ScalarType> types = args.stream().map(Expr::type).toList();
        if (!types.equals(parameters)) throw new IllegalArgumentException(name + " takes " + parameters + ", not " + types);
        return new Expr.Call(name, result, args, passing);
    }

    public Expr.Call call(Expr... args) { return call(List.of(args)); }

    /** Whether {@code e} is a call of this function. */
    public boolean isCalledBy(Expr e) { return e instanceof Expr.Call c && c.function().equals(name); }

    /** "i16 (i16, i16)", "void (ptr, i16, i16)": the function's type as LLVM prints it. */
    public String llvmType() {
        List<String> params = new ArrayList<>();
        for (int i = 0; i < parameters.size(); i++) {
            boolean byPointer = i == 0 && passing != Expr.Call.Passing.BY_VALUE;
            params.add(byPointer ? "ptr" : llvmType(parameters.get(i)));
        }
        String value = passing == Expr.Call.Passing.UPDATES_FIRST_IN_PLACE ? "void" : llvmType(result);
        return value + " (" + String.join(", ", params) + ")";
    }

    private static String llvmType(ScalarType t) {
        return switch (t) {
            case F32 -> "float";
            case F64 -> "double";
            case BOOL -> "i1";
            default -> "i" + MachineTypes.byteSize(t) * 8;
        };
    }
}
