package dev.byodt.compiler.train;

import java.util.HashMap;
import java.util.Map;

/** The gradient rule of each ONNX operator that has one. */
public final class Gradients {
    private static final Map<String, GradientRule> RULES = new HashMap<>();

    static {
        ActivationGradient.registerAll();
        BatchNormalizationGradient.registerAll();
        BroadcastGradient.registerAll();
        ConvGradient.registerAll();
        GemmGradient.registerAll();
        GlobalAveragePoolGradient.registerAll();
        MatMulGradient.registerAll();
        PoolingGradient.registerAll();
        ReshapeGradient.registerAll();
        SoftmaxGradient.registerAll();
    }

    private Gradients() {}

    static void register(String opType, GradientRule rule) { RULES.put(opType, rule); }

    /** The rule for the operator, or null when it has none. */
    public static GradientRule lookup(String opType) { return RULES.get(opType); }
}
