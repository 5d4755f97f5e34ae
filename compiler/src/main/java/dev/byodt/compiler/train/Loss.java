package dev.byodt.compiler.train;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.List;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.divideByCount;
import static dev.byodt.compiler.kernel.Exprs.eq;
import static dev.byodt.compiler.kernel.Exprs.exp;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.log;
import static dev.byodt.compiler.kernel.Exprs.max;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.real;
import static dev.byodt.compiler.kernel.Exprs.select;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * The loss of a batch of scores Z (B x K) against integer labels (B), averaged over the batch as PyTorch's
 * losses are by default, and its gradient dZ; both are loop nests in the datatype.
 */
public enum Loss {
    /**
     * -log softmax(Z)[label], with the softmax's maximum subtracted first; dZ = (softmax(Z) - onehot) / B.
     * Z are logits: a model ending in Softmax or LogSoftmax hands the loss that node's input.
     */
    CROSS_ENTROPY("cross-entropy"),
    /** mean((Z - onehot)^2) over all B*K elements; dZ = 2 (Z - onehot) / (B*K). */
    MSE("mse");

    private final String optionName;

    Loss(String optionName) {
        this.optionName = optionName;
    }

    public String optionName() { return optionName; }

    public static Loss named(String name) {
        for (Loss l : values()) if (l.optionName.equals(name)) return l;
        return null;
    }

    /** A kernel writing the batch's loss into {@code loss} (one element). */
    Kernel value(Buffer scores, Buffer labels, Buffer loss) {
        KernelBuilder kb = new KernelBuilder("loss", "Loss", List.of(scores, labels), List.of(loss));
        long batch = scores.dim(0);
        long classes = scores.dim(1);
        // Each term is divided by the count before it is summed, not the sum afterwards: a batch's summed losses
        // pass the range of narrow datatypes (32 cross-entropies of about 2.3 are 74, past fxp16_12's 8), while
        // their mean stays in it. In binary floats a power-of-two count divides exactly (short of underflow) either way.
        long count = this == CROSS_ENTROPY ? batch : batch * classes;
        Local total = kb.local("total", constant(ScalarType.ACC, 0));
        kb.loop(batch, b -> {
            Expr label = kb.load(labels, b);
            if (this == CROSS_ENTROPY) {
                Softmax softmax = Softmax.of(kb, scores, b);
                Expr logSumExp = add(softmax.largest(), log(softmax.sum()));
                Expr sampleLoss = sub(logSumExp, kb.load(scores, flatIndex(scores.shape(), b, label)));
                kb.assign(total, accumulate(kb.get(total), divideByCount(sampleLoss, count)));
            } else {
                kb.loop(classes, k -> {
                    Expr error = sub(kb.load(scores, flatIndex(scores.shape(), b, k)), oneHot(label, k));
                    kb.assign(total, accumulate(kb.get(total), divideByCount(mul(error, error), count)));
                });
            }
        });
        kb.store(loss, idx(0), cast(ScalarType.REAL, kb.get(total)));
        return kb.build();
    }

    /** A kernel writing the loss's gradient with respect to the scores into {@code gradient}. */
    Kernel gradient(Buffer scores, Buffer labels, Buffer gradient) {
        KernelBuilder kb = new KernelBuilder("loss gradient", "LossGrad", List.of(scores, labels), List.of(gradient));
        long batch = scores.dim(0);
        long classes = scores.dim(1);
        kb.loop(batch, b -> {
            Expr label = kb.load(labels, b);
            if (this == CROSS_ENTROPY) {
                Softmax softmax = Softmax.of(kb, scores, b);
                kb.loop(classes, k -> {
                    Expr at = flatIndex(scores.shape(), b, k);
                    Expr probability = div(exp(sub(kb.load(scores, at), softmax.largest())), softmax.sum());
                    kb.store(gradient, at, divideByCount(sub(probability, oneHot(label, k)), batch));
                });
            } else {
                kb.loop(classes, k -> {
                    Expr at = flatIndex(scores.shape(), b, k);
                    Expr error = sub(kb.load(scores, at), oneHot(label, k));
                    kb.store(gradient, at, divideByCount(mul(real(2), error), batch * classes));
                });
            }
        });
        return kb.build();
    }

    private static Expr oneHot(Expr label, Expr k) { return select(eq(k, label), real(1), real(0)); }

    /** Row b's largest score and its sum of exp(score - largest), rounded to the datatype: softmax's parts. */
    private record Softmax(Expr largest, Expr sum) {
        static Softmax of(KernelBuilder kb, Buffer scores, Expr b) {
            long classes = scores.dim(1);
            Local largest = kb.local("max", real(Double.NEGATIVE_INFINITY));
            kb.loop(classes, k -> kb.assign(largest, max(kb.get(largest), kb.load(scores, flatIndex(scores.shape(), b, k)))));
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loop(classes, k -> kb.assign(sum, accumulate(kb.get(sum),
                exp(sub(kb.load(scores, flatIndex(scores.shape(), b, k)), kb.get(largest))))));
            return new Softmax(kb.get(largest), cast(ScalarType.REAL, kb.get(sum)));
        }
    }
}
