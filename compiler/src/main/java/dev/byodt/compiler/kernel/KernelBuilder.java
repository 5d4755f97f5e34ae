package dev.byodt.compiler.kernel;

import java.util.ArrayDeque;
import dev.byodt.runtime.Tensor;

import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Builds a kernel's loop nest in the order an operator author thinks of it:
 * <pre>
 * kb.loops(out.shape(), i -> kb.store(out, flatIndex(out.shape(), i), tanh(kb.load(in, flatIndex(in.shape(), i)))));
 * </pre>
 * Loops of extent 1 are not emitted (their index is the constant 0), and loops of extent 0 not at all.
 */
public final class KernelBuilder {
    private final String name;
    private final String opType;
    private final List<Buffer> inputs;
    private final List<Buffer> outputs;
    private final List<Buffer> scratch = new ArrayList<>();
    private final Map<Buffer, Tensor> constants = new LinkedHashMap<>();
    private final Deque<List<Stmt>> scopes = new ArrayDeque<>();
    private Buffer transformed;
    private StoreTransform transform;
    private boolean transformThroughLibrary;
    private int nextId;

    public KernelBuilder(String name, String opType, List<Buffer> inputs, List<Buffer> outputs) {
        this.name = name;
        this.opType = opType;
        this.inputs = new ArrayList<>(inputs);
        this.outputs = List.copyOf(outputs);
        scopes.push(new ArrayList<>());
    }

    public String name() { return name; }

    /** Input i, or null when the node omits it. */
    public Buffer input(int i) { return i < inputs.size() ? inputs.get(i) : null; }

    public int inputCount() { return inputs.size(); }

    public Buffer output(int i) { return outputs.get(i); }

    /**
     * A buffer private to this kernel, live only while it runs, with undefined contents on entry. Its use is a
     * row of ACC accumulators: with the loop over outputs innermost (acc[o] = mac(acc[o], a, b) for each term)
     * every output still sums its terms in order, and that inner loop vectorizes, where a scalar accumulator
     * would make the reduction the inner loop and need reassociation to vectorize.
     */
    public Buffer scratch(String hint, ScalarType type, long[] shape) {
        Buffer b = new Buffer(name + "." + hint + nextId++, type, shape);
        scratch.add(b);
        return b;
    }

    /**
     * A constant the operator computed at compile time from its constant inputs, such as weights transposed so
     * that the innermost loop reads them contiguously. {@code value} holds the elements in the buffer's order.
     */
    public Buffer constant(String hint, ScalarType type, Tensor value) {
        Buffer b = new Buffer(name + "." + hint + nextId++, type, value.shape());
        constants.put(b, value);
        return b;
    }

    public Expr load(Buffer buffer, Expr index) {
        if (buffer == transformed) throw new IllegalStateException(name + " reads back " + buffer + ", whose stores are transformed");
        return new Expr.Load(buffer, index);
    }

    /** What a store into a transformed buffer stores in place of {@code value}, given the element's flat index. */
    @FunctionalInterface
    public interface StoreTransform {
        Expr apply(Expr index, Expr value);
    }

    /**
     * Makes every later store into {@code buffer} store {@code transform} of its value: element-wise activations
     * computed by the kernel of the node whose output they take, as each output element is stored, reading their
     * other operands at the element's index. Right only for a kernel whose last store into each element is the
     * element's final value and that never reads the buffer back (a read is refused); an earlier store that a later
     * one overwrites (DepthwiseConv's rows, copied as whole vectors running on into the next row) is harmless, since
     * the transform depends on nothing but the value and the operands at that element, and no operand shares the
     * output's memory ({@code MemoryPlan}).
     */
    public void transformStores(Buffer buffer, StoreTransform transform, boolean throughLibrary) {
        this.transformed = buffer;
        this.transform = transform;
        this.transformThroughLibrary = throughLibrary;
    }

    /**
     * Whether the stores into {@code buffer} compute one of float32's library functions ({@link
     * ScalarOp.Float32Lowering#LIBRARY}: a fused SiLU's Sigmoid, in double, 8 lanes a vector): LLVM then vectorizes
     * the loop that stores at that width, so a schedule keeps such stores out of the loops of its multiply-adds.
     */
    public boolean storesThroughLibrary(Buffer buffer) { return buffer == transformed && transformThroughLibrary; }

    public void store(Buffer buffer, Expr index, Expr value) {
        if (buffer == transformed) value = transform.apply(index, value);
        if (value.type() != buffer.elementType()) {
            throw new IllegalArgumentException("storing " + value.type() + " into " + buffer);
        }
        emit(new Stmt.Store(buffer, index, value));
    }

    /** A hint that buffer[index] will be read soon ({@link Stmt.Prefetch}). */
    public void prefetch(Buffer buffer, Expr index) {
        emit(new Stmt.Prefetch(buffer, index));
    }

    /** for (i = 0; i < extent; i++) body(i) */
    public void loop(long extent, Consumer<Expr> body) {
        loop(extent, false, body);
    }

    /**
     * for (i = 0; i < extent; i++) body(i), a loop whose iterations are independent (see {@link LoopVar#splits()}),
     * so that threads may each run a range of them: each iteration writes its own output elements and reads
     * none another writes. A kernel splits one loop at most, and writes nothing but scratch buffers outside it.
     */
    public void splitLoop(long extent, Consumer<Expr> body) {
        loop(extent, true, body);
    }

    /** {@link #splitLoop} where {@code splits}, else {@link #loop(long, Consumer)}. */
    public void loop(long extent, boolean splits, Consumer<Expr> body) {
        loop(extent, splits, false, body);
    }

    /**
     * for (i = 0; i < extent; i++) body(i), where {@code extent} is a few whole vectors of the machine's lanes and
     * the body a vector operation on each (a row of a register tile): see {@link LoopVar#spansVectors()}.
     */
    public void vectorLoop(long extent, Consumer<Expr> body) {
        loop(extent, false, true, body);
    }

    private void loop(long extent, boolean splits, boolean spansVectors, Consumer<Expr> body) {
        if (extent <= 0) return;
        if (extent == 1) {
            body.accept(Exprs.idx(0));
            return;
        }
        LoopVar var = new LoopVar("i" + nextId++, splits, spansVectors);
        scopes.push(new ArrayList<>());
        body.accept(new Expr.Var(var));
        List<Stmt> inner = scopes.pop();
        emit(new Stmt.For(var, Exprs.idx(extent), inner));
    }

    /** for (i = 0; i < extent; i++) body(i), for an extent known only at run time (negative: no iterations). */
    public void loop(Expr extent, Consumer<Expr> body) {
        if (extent instanceof Expr.IntConst c) {
            loop(c.value(), body);
            return;
        }
        LoopVar var = new LoopVar("i" + nextId++);
        scopes.push(new ArrayList<>());
        body.accept(new Expr.Var(var));
        List<Stmt> inner = scopes.pop();
        emit(new Stmt.For(var, extent, inner));
    }

    /** A loop nest over every index of a shape, outermost dimension first. */
    public void loops(long[] extents, Consumer<Expr[]> body) {
        nest(extents, 0, false, new Expr[extents.length], body);
    }

    /**
     * {@link #loops} whose outermost loop (of more than one iteration) splits ({@link #splitLoop}): for a body that
     * writes the elements of its index alone, as an element-wise operator's does.
     */
    public void splitLoops(long[] extents, Consumer<Expr[]> body) {
        nest(extents, 0, true, new Expr[extents.length], body);
    }

    private void nest(long[] extents, int depth, boolean splits, Expr[] indices, Consumer<Expr[]> body) {
        if (depth == extents.length) {
            body.accept(indices.clone());
            return;
        }
        loop(extents[depth], splits && extents[depth] > 1, i -> {
            indices[depth] = i;
            nest(extents, depth + 1, splits && extents[depth] == 1, indices, body);
        });
    }

    /** Declares a local initialised to a value; its type is the value's. */
    public Local local(String hint, Expr initial) {
        Local local = new Local(hint + nextId++, initial.type());
        emit(new Stmt.Assign(local, initial));
        return local;
    }

    public Expr get(Local local) { return new Expr.LocalRef(local); }

    public void assign(Local local, Expr value) {
        if (value.type() != local.type()) throw new IllegalArgumentException("assigning " + value.type() + " to " + local);
        emit(new Stmt.Assign(local, value));
    }

    /** if (condition) then */
    public void when(Expr condition, Runnable then) { ifElse(condition, then, () -> { }); }

    public void ifElse(Expr condition, Runnable then, Runnable otherwise) {
        if (condition instanceof Expr.IntConst c) {
            (c.value() != 0 ? then : otherwise).run();
            return;
        }
        scopes.push(new ArrayList<>());
        then.run();
        List<Stmt> thenBody = scopes.pop();
        scopes.push(new ArrayList<>());
        otherwise.run();
        List<Stmt> elseBody = scopes.pop();
        emit(new Stmt.If(condition, thenBody, elseBody));
    }

    public Kernel build() {
        if (scopes.size() != 1) throw new IllegalStateException("unbalanced scopes in kernel " + name);
        return new Kernel(name, opType, inputs, outputs, scratch, constants, scopes.peek());
    }

    private void emit(Stmt stmt) { scopes.peek().add(stmt); }
}
