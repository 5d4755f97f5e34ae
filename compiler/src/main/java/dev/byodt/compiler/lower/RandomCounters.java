package dev.byodt.compiler.lower;

import dev.byodt.compiler.dtype.CallItems;
import dev.byodt.compiler.dtype.Datatype;
import dev.byodt.compiler.dtype.DatatypeOp;
import dev.byodt.compiler.dtype.RegisteredDatatype;
import dev.byodt.compiler.dtype.StochasticRounding;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Exprs;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.KernelWalker;
import dev.byodt.compiler.kernel.LoopVar;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.TensorSpec;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Gives every call of a stochastically rounding library function its counter, the argument its random bits are
 * a hash of (docs/datatypes.md, "Rounding modes"): the key of the call's place in the model ({@code --seed}, the
 * kernel's position and name, the call's position in the kernel: {@link StochasticRounding#key}) plus the
 * element's index in the kernel's loop nest, the enclosing loops' counters linearized, ((i0 e1 + i1) e2 + i2)...
 * So every rounding of one run of the model has a counter of its own, computed where it happens, with no state
 * shared between threads; the counters are the same on every target because the loop nests of a stochastically
 * rounding datatype are (Compiler schedules them for one vector width everywhere). Equal calls in one place (one
 * value, computed twice where a kernel uses it twice) get one counter, so they round alike.
 *
 * <p>Compiled with a call counter (a training step, whose weights would otherwise round with the same bits at
 * every step), the program takes one more input, {@link #CALL_INPUT}: the call's number, whose
 * {@link StochasticRounding#callOffset} every counter adds. It is an input rather than state in the compiled
 * module because a call is then still a function of its inputs alone: threads and concurrent calls share
 * nothing, and every consumer of an entry function (HostModel, the emitted header, an executable's input
 * files, the RISC-V runner) passes it as it passes the labels. A program with no stochastic rounding does not
 * take it, so its entry keeps its signature.
 *
 * <p>Compiled from a graph ({@link CallItems}), the counters of a nest over the call's items count from the first
 * item's place in the run: the outermost loop's counter is moved by the first item, {@link CallItems#INPUT}, times
 * the iterations an item takes, so an item's counters are those it has in a call of one item, the first of the run
 * moved by its index. The program takes that input when some kernel reads it (a block datatype's activations
 * read it too).
 */
public final class RandomCounters extends KernelRewriter {
    private final Set<String> functions;
    private final long seed;
    private final String place;
    private final Deque<Loop> loops = new ArrayDeque<>();
    private final Map<Expr.Call, Long> keys = new HashMap<>();
    /** What the call counter adds to every counter: 0 without one. */
    private final Expr callOffset;
    /** The call's items, whose place in the run the counters of nests over them count from; none in a training step. */
    private final Optional<CallItems> items;

    /** The input of a program compiled with a call counter: int64, one element, the call's number (0 the first). */
    public static final String CALL_INPUT = "rounding.call";

    private record Loop(LoopVar var, Expr extent) {}

    private RandomCounters(Set<String> functions, long seed, String place, Expr callOffset, Optional<CallItems> items) {
        this.functions = functions;
        this.seed = seed;
        this.place = place;
        this.callOffset = callOffset;
        this.items = items;
    }

    /**
     * {@code program} (lowered to machine types) with a counter passed to every call that takes one, {@code plan}
     * saying each kernel's datatype; with {@code callCounter}, and some kernel rounding stochastically, the
     * counters moved by the number the program's last input, {@link #CALL_INPUT}, gives each call; with {@code items},
     * the counters of nests over the call's items moved by its first item's place in the run, the input
     * {@link CallItems#INPUT}, last, when some kernel reads it: the nests of kernels that compute from the program's
     * first input, the data, directly or through other kernels (not those that convert weights given as inputs).
     */
    public static Program apply(Program program, DatatypePlan plan, long seed, boolean callCounter, Optional<CallItems> items) {
        List<Set<String>> counted = new ArrayList<>();
        for (int k = 0; k < program.kernels().size(); k++) counted.add(countedFunctions(plan.datatypeOf(k)));
        boolean countsCalls = callCounter && counted.stream().anyMatch(functions -> !functions.isEmpty());
        Buffer call = new Buffer(CALL_INPUT, ScalarType.I64, new long[]{1});
        Expr callOffset = countsCalls ? StochasticRounding.callOffset(new Expr.Load(call, new Expr.IntConst(ScalarType.I64, 0)))
            : new Expr.IntConst(ScalarType.I64, 0);
        List<Kernel> kernels = new ArrayList<>();
        Set<Buffer> itemData = new HashSet<>();
        if (!program.inputs().isEmpty()) itemData.add(program.inputs().getFirst().storage());
        for (int k = 0; k < program.kernels().size(); k++) {
            Kernel kernel = program.kernels().get(k);
            boolean overItems = kernel.inputs().stream().anyMatch(b -> b != null && itemData.contains(b.storage()));
            if (overItems) kernel.outputs().forEach(b -> itemData.add(b.storage()));
            Set<String> functions = counted.get(k);
            kernels.add(functions.isEmpty() ? kernel : new Kernel(kernel.name(), kernel.opType(), kernel.inputs(), kernel.outputs(),
                kernel.scratch(), kernel.constants(), new RandomCounters(functions, seed, "kernel " + k + " " + kernel.name(), callOffset,
                    overItems ? items : Optional.empty()).body(kernel.body())));
        }
        List<Buffer> inputs = new ArrayList<>(program.inputs());
        List<TensorSpec> inputSpecs = new ArrayList<>(program.inputSpecs());
        if (countsCalls) {
            inputs.add(call);
            inputSpecs.add(new TensorSpec(CALL_INPUT, ElementType.INT64, call.shape()));
        }
        if (items.isPresent() && reads(kernels, items.get().firstItem())) {
            inputs.add(items.get().firstItem());
            inputSpecs.add(items.get().spec());
        }
        return new Program(program.name(), kernels, inputs, inputSpecs, program.outputs(),
            program.outputSpecs(), program.constants(), program.temporaries());
    }

    /** The library functions of a stochastically rounding datatype that take a counter; none for the others. */
    private static Set<String> countedFunctions(Datatype datatype) {
        if (!(datatype instanceof RegisteredDatatype registered) || !StochasticRounding.isStochastic(registered.instance())) return Set.of();
        return DatatypeOp.values().stream().filter(DatatypeOp::takesRandomCounter)
            .map(op -> registered.instance().prefix() + "_" + op.functionSuffix()).collect(Collectors.toSet());
    }

    @Override
    public List<Stmt> stmt(Stmt s) {
        if (!(s instanceof Stmt.For loop)) return super.stmt(s);
        Expr extent = expr(loop.extent());
        loops.addLast(new Loop(loop.var(), extent));
        List<Stmt> body = body(loop.body());
        loops.removeLast();
        return List.of(new Stmt.For(loop.var(), extent, body));
    }

    @Override
    public Expr expr(Expr e) {
        Expr rewritten = rebuilt(e);
        if (!(rewritten instanceof Expr.Call call) || !functions.contains(call.function())) return rewritten;
        long key = keys.computeIfAbsent(call, c -> StochasticRounding.key(seed, place + " call " + keys.size()));
        List<Expr> args = new ArrayList<>(call.args());
        args.add(Exprs.add(elementIndex(), Exprs.add(new Expr.IntConst(ScalarType.I64, key), callOffset)));
        return new Expr.Call(call.function(), call.type(), args, call.passing());
    }

    /** The enclosing loops' counters linearized, outermost first, the outermost moved by the call's first item. */
    private Expr elementIndex() {
        Expr first = items.map(i -> i.offset(loops.isEmpty() ? Exprs.idx(1) : loops.getFirst().extent())).orElse(Exprs.idx(0));
        Expr index = new Expr.IntConst(ScalarType.I64, 0);
        for (Loop loop : loops) {
            Expr counter = new Expr.Var(loop.var());
            index = Exprs.add(Exprs.mul(index, loop.extent()), loop == loops.getFirst() ? Exprs.add(counter, first) : counter);
        }
        return loops.isEmpty() ? first : index;
    }

    /** Whether some kernel loads from {@code buffer}. */
    private static boolean reads(List<Kernel> kernels, Buffer buffer) {
        boolean[] found = {false};
        for (Kernel kernel : kernels) {
            KernelWalker.forEachExpr(kernel.body(), e -> found[0] |= e instanceof Expr.Load load && load.buffer() == buffer);
        }
        return found[0];
    }
}
