package dev.byodt.compiler.ops;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The operators byodt implements, by ONNX op_type (default domain). Each family of operators registers
 * its members here; lookup failures name the operator so a model's unsupported ops can be listed up front.
 */
public final class Operators {
    private static final Map<String, Operator> BY_TYPE = new TreeMap<>();
    private static final Map<String, Set<Integer>> COMPILE_TIME_INPUTS = new TreeMap<>();

    static {
        UnaryMath.registerAll();
        Activations.registerAll();
        BinaryArithmetic.registerAll();
        Pow.registerAll();
        VariadicOps.registerAll();
        Clip.registerAll();
        Reshaping.registerAll();
        Transpose.registerAll();
        Concat.registerAll();
        Split.registerAll();
        Slice.registerAll();
        Gather.registerAll();
        Pad.registerAll();
        ShapeOf.registerAll();
        SizeOf.registerAll();
        Cast.registerAll();
        ConstantOfShape.registerAll();
        MatMul.registerAll();
        Gemm.registerAll();
        Conv.registerAll();
        ConvTranspose.registerAll();
        Resize.registerAll();
        Pooling.registerAll();
        MaxUnpool.registerAll();
        GlobalPooling.registerAll();
        LocalResponseNormalization.registerAll();
        BatchNormalization.registerAll();
        InstanceNormalization.registerAll();
        LayerNormalization.registerAll();
        GroupNormalization.registerAll();
        Softmax.registerAll();
        Hardmax.registerAll();
        Reductions.registerAll();
        Lstm.registerAll();
        Gru.registerAll();
        Rnn.registerAll();
        Expand.registerAll();
        Range.registerAll();
        Trilu.registerAll();
        CumSum.registerAll();
        Tile.registerAll();
        GatherElements.registerAll();
        GatherNd.registerAll();
        ArgExtreme.registerAll();
        TopK.registerAll();
        OneHot.registerAll();
        ScatterElements.registerAll();
        ScatterNd.registerAll();
        DepthToSpace.registerAll();
        SpaceToDepth.registerAll();
        CastLike.registerAll();
        Einsum.registerAll();
        NonZero.registerAll();
        Comparisons.registerAll();
        Logic.registerAll();
        Where.registerAll();
        FloatClasses.registerAll();
        Sign.registerAll();
        Mod.registerAll();
        Dropout.registerAll();
        QuantizeLinear.registerAll();
        DequantizeLinear.registerAll();
        DynamicQuantizeLinear.registerAll();
        MatMulInteger.registerAll();
        ConvInteger.registerAll();
        QLinearMatMul.registerAll();
        QLinearConv.registerAll();
    }

    private Operators() {}

    /** The operator for an op_type, or null when byodt does not implement it. */
    public static Operator lookup(String opType) { return BY_TYPE.get(opType); }

    public static Set<String> supported() { return BY_TYPE.keySet(); }

    /**
     * Whether the operator needs input {@code index} at compile time although it may be a float (Resize's
     * scales), as it needs integer shape inputs: test data for such an input is bound, not fed at run time.
     */
    public static boolean readsAtCompileTime(String opType, int index) {
        return COMPILE_TIME_INPUTS.getOrDefault(opType, Set.of()).contains(index);
    }

    static void registerCompileTimeInputs(String opType, Integer... indices) {
        COMPILE_TIME_INPUTS.put(opType, Set.of(indices));
    }

    static void register(String opType, Operator operator) {
        if (BY_TYPE.put(opType, operator) != null) throw new IllegalStateException(opType + " registered twice");
    }
}
