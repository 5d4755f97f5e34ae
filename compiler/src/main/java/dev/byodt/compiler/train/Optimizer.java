package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;

import java.util.ArrayList;
import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.sqrt;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * How a step updates a weight from its gradient, written as PyTorch's optimizers (torch.optim.SGD with and
 * without momentum, Adam) compute it, with its state (momentum buffer; Adam's two moments) kept in the
 * datatype like the weights. Weight decay is added to the gradient (L2), as those optimizers do.
 */
public record Optimizer(Kind kind, double learningRate, double momentum, double weightDecay, double beta1,
                        double beta2, double epsilon) {
    public enum Kind {
        SGD("sgd", 0), MOMENTUM("momentum", 1), ADAM("adam", 2);

        private final String optionName;
        private final int stateTensors;

        Kind(String optionName, int stateTensors) {
            this.optionName = optionName;
            this.stateTensors = stateTensors;
        }

        public String optionName() { return optionName; }

        public static Kind named(String name) {
            for (Kind k : values()) if (k.optionName.equals(name)) return k;
            return null;
        }
    }

    /** The name of each weight's update kernel begins so. */
    static final String UPDATE_KERNEL = "update of ";

    /** How many tensors of state the optimizer keeps per weight, each of the weight's shape. */
    public int stateTensors() { return kind.stateTensors; }

    /** The names of the state tensors of a weight, as the training program's inputs and outputs call them. */
    public List<String> stateNames(String weight) {
        return switch (kind) {
            case SGD -> List.of();
            case MOMENTUM -> List.of(weight + ".momentum");
            case ADAM -> List.of(weight + ".adam_m", weight + ".adam_v");
        };
    }

    /**
     * The run-time scalars of step {@code step} (from 1): Adam's step size lr / (1 - beta1^t) and
     * sqrt(1 - beta2^t), computed in double as PyTorch computes them; none for SGD.
     */
    public float[] stepScalars(long step) {
        if (kind != Kind.ADAM) return new float[0];
        return new float[]{(float) (learningRate / (1 - Math.pow(beta1, step))), (float) Math.sqrt(1 - Math.pow(beta2, step))};
    }

    /**
     * The kernel updating one weight: reads the weight, its gradient, its state and the step's scalars, and
     * writes the new weight and state.
     */
    Kernel update(Buffer weight, Buffer gradient, List<Buffer> state, Buffer scalars, Buffer newWeight, List<Buffer> newState) {
        List<Buffer> inputs = new ArrayList<>(List.of(weight, gradient));
        inputs.addAll(state);
        if (scalars != null) inputs.add(scalars);
        List<Buffer> outputs = new ArrayList<>(List.of(newWeight));
        outputs.addAll(newState);
        KernelBuilder kb = new KernelBuilder(UPDATE_KERNEL + weight.name(), kind.optionName, inputs, outputs);
        kb.loop(weight.size(), i -> {
            Expr p = kb.load(weight, i);
            Expr g = kb.load(gradient, i);
            if (weightDecay != 0) g = add(g, mul(p, real(weightDecay)));
            switch (kind) {
                case SGD -> kb.store(newWeight, i, sub(p, mul(real(learningRate), g)));
                case MOMENTUM -> {
                    Expr buffer = kb.get(kb.local("buffer", add(mul(kb.load(state.get(0), i), real(momentum)), g)));
                    kb.store(newState.get(0), i, buffer);
                    kb.store(newWeight, i, sub(p, mul(real(learningRate), buffer)));
                }
                case ADAM -> {
                    Expr m = kb.get(kb.local("m", add(mul(kb.load(state.get(0), i), real(beta1)), mul(g, real(1 - beta1)))));
                    Expr v = kb.get(kb.local("v", add(mul(kb.load(state.get(1), i), real(beta2)), mul(mul(real(1 - beta2), g), g))));
                    kb.store(newState.get(0), i, m);
                    kb.store(newState.get(1), i, v);
                    Expr denominator = add(div(sqrt(v), kb.load(scalars, idx(1))), real(epsilon));
                    kb.store(newWeight, i, sub(p, mul(kb.load(scalars, idx(0)), div(m, denominator))));
                }
            }
        });
        return kb.build();
    }
}
