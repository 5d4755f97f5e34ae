package dev.byodt.compiler.ops;

import dev.byodt.compiler.CasesInTurn;
import dev.byodt.compiler.CompileOptions;
import dev.byodt.compiler.Compiler;
import dev.byodt.compiler.codegen.CompiledModule;
import dev.byodt.compiler.dtype.AccumulationMode;
import dev.byodt.compiler.dtype.DatatypeChoice;
import dev.byodt.compiler.codegen.HostModel;
import dev.byodt.compiler.conformance.GraphInterpreter;
import dev.byodt.compiler.graph.Attribute;
import dev.byodt.compiler.graph.Graph;
import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.graph.Value;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Kernel;
import dev.byodt.compiler.kernel.KernelRewriter;
import dev.byodt.compiler.kernel.Stmt;
import dev.byodt.compiler.lower.GraphLowering;
import dev.byodt.compiler.lower.Program;
import dev.byodt.compiler.target.Target;
import dev.byodt.runtime.ElementType;
import dev.byodt.runtime.Tensor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static dev.byodt.compiler.ops.ScheduleCases.attributes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every tuned schedule computes what its operator's reference loop nest computes, bit for bit: Conv's eight
 * schedules (register tiles of positions by maps, pointwise tiles of maps by positions, tiles of maps by runs of output rows,
 * patches by maps, across output channels,
 * depthwise, on padded planes, along output rows) and MatMul's and
 * Gemm's register tiles (with blocks of terms where tiles of rows share long panels) and rows of sums,
 * LayerNormalization's, Softmax's and LogSoftmax's rows in blocks, global pooling's vectors of channels, MaxPool's rows, on small shapes that reach their edge cases (padding on each side, strides, groups, dilations, 1-D
 * and 3-D windows, weights packed at compile time and at run time, block lengths that are no multiple of the
 * lane count, broadcast batches, transposed and constant operands), in float32 and in custom datatypes of 8,
 * 16 and 32 bits: by default each case in one of them, taken in turn, so every schedule runs in several
 * datatypes and every datatype in several cases; -Pexhaustive runs every other pairing. The schedules are
 * compiled for several lane counts, so that each lane count the targets get (1 on RISC-V without P, 2 and 4
 * with it, 16 on x86-64 with AVX-512) sizes the blocks once.
 */
@Execution(ExecutionMode.CONCURRENT)
class TunedSchedulesTest {
    private static final int[] LANES = {1, 2, 4, 16};
    /** The lane counts register tiles are made for: 256-bit and 512-bit vectors of 32-bit lanes. */
    private static final int[] TILE_LANES = {8, 16};
    /**
     * What float32 nodes are scheduled for on x86-64 with AVX-512, register tiles included: the schedules other
     * tests run in every datatype, whose bits do not depend on the datatype they were chosen for.
     */
    static final NodeArithmetic FLOAT32_VECTORS = new NodeArithmetic(16, true);
    private static final String[] DATATYPES = {"float32", "custom[posit]8", "custom[posit]16", "fxp16_13", "custom[posit]32"};

    /** The distinguishing buffer of each schedule, which the reference nests have none of. */
    enum Schedule {
        REGISTER_TILES("panels"), TILES_IN_BLOCKS("sums"), POINTWISE("mapPanels"), OUTPUT_ROWS("rowPanels"), ACROSS_MAPS("packed"), DEPTHWISE("channelPlanes"), PADDED_PLANES("planes"), ALONG_ROWS("acc"), ROW_OF_SUMS("acc"),
        STATISTICS_IN_BLOCKS("means"), SOFTMAX_IN_BLOCKS("blockWeights"), POOLED_CHANNELS("pooledChannels"), MAX_POOL_ROWS("rowMaxima"),
        /** Chosen only by --conv-algorithm winograd: {@link WinogradConvTest}'s cases. */
        WINOGRAD("patches");

        final String buffer;

        Schedule(String buffer) { this.buffer = buffer; }
    }

    /** One node; its inputs are run-time values, or constants (the weights) where {@code constants} says. */
    record Case(String name, Schedule schedule, String opType, Map<String, Attribute> attributes,
                        List<long[]> inputShapes, boolean[] constants) {
        @Override
        public String toString() { return name; }

        Graph graph() { return graph(ScheduleCases::gridValues); }

        /** The node with its constant inputs drawn by {@code values}, as {@link #runtimeInputs(Values)} draws the others. */
        Graph graph(Values values) {
            Random random = new Random(name.hashCode());
            List<Value> inputs = new ArrayList<>();
            List<Value> runtime = new ArrayList<>();
            for (int i = 0; i < inputShapes.size(); i++) {
                Value v = new Value("in" + i);
                v.setType(new TensorType(ElementType.FLOAT32, inputShapes.get(i)));
                if (constants[i]) v.setConstant(values.of(inputShapes.get(i), random));
                else runtime.add(v);
                inputs.add(v);
            }
            Value y = new Value("y");
            Node node = new Node(name, opType, "", 13, inputs, List.of(y), attributes);
            y.setType(Operators.lookup(opType).inferTypes(node).getFirst());
            return new Graph(name, runtime, List.of(y), List.of(node));
        }

        List<Tensor> runtimeInputs() { return runtimeInputs(ScheduleCases::gridValues); }

        List<Tensor> runtimeInputs(Values values) {
            Random random = new Random(name.hashCode());
            List<Tensor> tensors = new ArrayList<>();
            for (int i = 0; i < inputShapes.size(); i++) {
                Tensor t = values.of(inputShapes.get(i), random);
                if (!constants[i]) tensors.add(t);
            }
            return tensors;
        }
    }

    /** The values of a case's inputs: a tensor of the shape, drawn from the case's random numbers. */
    @FunctionalInterface
    interface Values {
        Tensor of(long[] shape, Random random);
    }

    private static Case conv(String name, Schedule schedule, long[] x, long[] w, boolean constantWeights, Object... attributes) {
        long[] bias = {w[0]};
        return new Case(name, schedule, "Conv", attributes(attributes), List.of(x, w, bias), new boolean[] {false, constantWeights, true});
    }

    private static long[] s(long... dims) { return dims; }

    static final List<Case> CASES = List.of(
        // Constant weights in 2-D, a vector of maps or more: register tiles; maps that fill no whole tile, grids
        // that fill no whole tile of positions, uneven pads, dilations, strides (planes in phases), groups, 1x1.
        // (Rows of 7 outputs, fewer than a vector of 8: with rows of 10, 27 terms took tiles of maps by output rows.)
        conv("register tiles, 20 maps, uneven pads, dilation", Schedule.REGISTER_TILES, s(1, 3, 7, 6), s(20, 3, 3, 3), true,
            "pads", s(1, 2, 0, 1), "dilations", s(2, 1)),
        conv("register tiles, groups, 17 maps each, batch 2", Schedule.REGISTER_TILES, s(2, 4, 6, 5), s(34, 2, 2, 3), true,
            "group", 2L, "pads", s(0, 1, 1, 0)),
        conv("register tiles, 1x1, 64 maps, fewer positions than a vector", Schedule.REGISTER_TILES, s(1, 5, 2, 3), s(64, 5, 1, 1), true),
        // Three vectors of maps (48), where they leave no more zero maps than two: tiles of 9 positions at most, a
        // 7x7 output's rows of 7 (more channels than pointwise tiles' 64 positions for 49 would pay for), and runs
        // on the grid of stride 2.
        conv("register tiles, 1x1, three vectors of maps, 7x7", Schedule.REGISTER_TILES, s(1, 256, 7, 7), s(96, 256, 1, 1), true),
        conv("register tiles, three vectors of maps, stride 2", Schedule.REGISTER_TILES, s(1, 32, 9, 9), s(48, 32, 3, 3), true,
            "pads", s(1, 1, 1, 1), "strides", s(2, 2)),
        // 1x1 without padding: the tiles read the input in place, no planes; groups, batch 2.
        conv("register tiles, 1x1, groups, batch 2", Schedule.REGISTER_TILES, s(2, 6, 2, 3), s(32, 3, 1, 1), true, "group", 2L),
        conv("register tiles, strides 2 and 3, dilation, pads", Schedule.REGISTER_TILES, s(1, 3, 11, 13), s(16, 3, 3, 2), true,
            "strides", s(2, 3), "dilations", s(1, 3), "pads", s(1, 2, 2, 0)),
        conv("register tiles, 7x7 stride 2, 40 maps", Schedule.REGISTER_TILES, s(1, 2, 12, 9), s(40, 2, 7, 7), true,
            "strides", s(2, 2), "pads", s(3, 3, 3, 3)),
        // 1x1 of stride 2 on the planes: 6 positions, fewer than a vector, which the pointwise tiles need.
        conv("register tiles, 1x1 stride 2", Schedule.REGISTER_TILES, s(1, 4, 5, 4), s(64, 4, 1, 1), true, "strides", s(2, 2)),
        conv("register tiles, groups of 16 maps, stride 2, odd rows", Schedule.REGISTER_TILES, s(1, 4, 9, 12), s(32, 2, 3, 3), true,
            "group", 2L, "strides", s(2, 2), "pads", s(1, 1, 1, 1)),
        // Stride 1: tiles of blocks of output rows and columns; blocks that do not divide the output, the last of a
        // column (2 x 7 over 17 rows) or of both a row and a column (one vector of maps: 5 x 5 over 29 x 29 with 16
        // lanes; with 8, two vectors, 1 x 10 over 29 columns) starting early.
        conv("register tiles, blocks of 2 x 7 over 17 rows", Schedule.REGISTER_TILES, s(1, 3, 17, 7), s(20, 3, 3, 3), true,
            "pads", s(1, 1, 1, 1)),
        conv("register tiles, groups of 16 maps, blocks starting early in rows and columns", Schedule.REGISTER_TILES,
            s(1, 2, 29, 29), s(32, 1, 3, 3), true, "group", 2L, "pads", s(1, 1, 1, 1)),
        // Non-overlapping patches (stride = kernel, no padding): the matrix product of patches by maps; patches that
        // leave input columns out, rows and maps that fill no whole tile, batch 2; enough maps, patches and terms (512)
        // for tiles of rows to take the panels in blocks of terms.
        conv("patches, 4x4 of stride 4, 40 maps, batch 2", Schedule.REGISTER_TILES, s(2, 3, 8, 14), s(40, 3, 4, 4), true,
            "strides", s(4, 4)),
        conv("patches, 16x16 of stride 16, 260 maps, blocks of terms", Schedule.TILES_IN_BLOCKS, s(2, 2, 48, 50), s(260, 2, 16, 16), true,
            "strides", s(16, 16)),
        // Pointwise (1x1, stride 1, no padding), a vector of positions or more: maps by positions in register tiles;
        // positions that fill no whole tile (the last tile starts early), maps that fill no whole tile, groups, batch 2.
        conv("pointwise, 26 maps, 35 positions, batch 2", Schedule.POINTWISE, s(2, 5, 5, 7), s(26, 5, 1, 1), true),
        conv("pointwise, groups, 10 maps each, 24 positions", Schedule.POINTWISE, s(1, 6, 4, 6), s(20, 3, 1, 1), true, "group", 2L),
        conv("pointwise, 12 maps, 64 positions, dilation", Schedule.POINTWISE, s(1, 9, 8, 8), s(12, 9, 1, 1), true, "dilations", s(2, 2)),
        // Rows of input of a page or more (1,089 positions): the next tile of positions prefetched; the last tile
        // starting early, the second tile of maps in part.
        conv("pointwise, rows of a page, 13 maps, batch 2", Schedule.POINTWISE, s(2, 3, 33, 33), s(13, 3, 1, 1), true),
        // 32 channels or more and 4 tiles of maps or more: each tile of positions' input copied into a panel, once per
        // image, group and tile of positions; one tile of positions an image; groups with a last tile starting early;
        // rows of a page.
        conv("pointwise, input copied, one tile of positions an image, batch 2", Schedule.POINTWISE, s(2, 32, 4, 4), s(40, 32, 1, 1), true),
        conv("pointwise, input copied, groups, 35 positions", Schedule.POINTWISE, s(1, 64, 5, 7), s(80, 32, 1, 1), true, "group", 2L),
        conv("pointwise, input copied, rows of a page", Schedule.POINTWISE, s(1, 32, 32, 32), s(40, 32, 1, 1), true),
        // At a stride (ResNet's downsampling, output rows of a vector or more) the input is always copied, each
        // position from its place in the plane: both axes, batch 2, a last tile of positions starting early; other
        // strides along each axis, with groups.
        conv("pointwise at stride 2, input copied, batch 2", Schedule.POINTWISE, s(2, 8, 6, 34), s(20, 8, 1, 1), true, "strides", s(2, 2)),
        conv("pointwise at strides 3 and 2, input copied, groups", Schedule.POINTWISE, s(1, 16, 7, 33), s(24, 8, 1, 1), true,
            "group", 2L, "strides", s(3, 2)),
        // Few terms a sum (a net's first layer), output rows of a vector or more: maps by runs of an output row in
        // register tiles on the planes; 3x3 of stride 2 over 3 channels with a last run starting early (19 columns)
        // and a last tile of maps in part (26 maps), batch 2; 7x7 of stride 2 with pads of 3; dilation, uneven pads.
        conv("output rows, 3x3 stride 2, 26 maps, batch 2", Schedule.OUTPUT_ROWS, s(2, 3, 20, 38), s(26, 3, 3, 3), true,
            "strides", s(2, 2), "pads", s(1, 1, 1, 1)),
        conv("output rows, 7x7 stride 2, pads of 3", Schedule.OUTPUT_ROWS, s(1, 2, 21, 32), s(16, 2, 7, 7), true,
            "strides", s(2, 2), "pads", s(3, 3, 3, 3)),
        conv("output rows, dilation, uneven pads", Schedule.OUTPUT_ROWS, s(1, 2, 9, 24), s(16, 2, 3, 3), true,
            "pads", s(1, 2, 0, 1), "dilations", s(2, 1)),
        // More maps per group than positions per row, constant weights: across maps, padded, strided, grouped.
        conv("across maps, groups, stride 2, pads", Schedule.ACROSS_MAPS, s(1, 4, 5, 5), s(12, 2, 3, 3), true,
            "group", 2L, "strides", s(2, 2), "pads", s(1, 0, 1, 1)),
        conv("across maps, 1-D, dilation 2, odd row", Schedule.ACROSS_MAPS, s(2, 3, 9), s(10, 3, 3), true,
            "dilations", s(2), "pads", s(2, 1)),
        conv("across maps, 3-D", Schedule.ACROSS_MAPS, s(1, 2, 3, 3, 4), s(9, 2, 2, 2, 2), true, "pads", s(1, 0, 1, 0, 1, 0)),
        // Weights at run time (training's): packed by the kernel as it starts.
        conv("across maps, weights at run time, padded", Schedule.ACROSS_MAPS, s(2, 3, 4, 4), s(9, 3, 3, 3), false,
            "pads", s(1, 1, 1, 1)),
        // Stride 1 in 2-D: padded planes, grids that are no multiple of the lane count, 5 and 7 maps a group.
        conv("padded planes, uneven pads, dilation", Schedule.PADDED_PLANES, s(1, 3, 7, 9), s(5, 3, 3, 3), false,
            "pads", s(1, 2, 0, 1), "dilations", s(2, 1)),
        conv("padded planes, groups, 7 maps", Schedule.PADDED_PLANES, s(2, 4, 6, 9), s(14, 2, 2, 3), false,
            "group", 2L, "pads", s(0, 1, 1, 0)),
        conv("padded planes, two maps a channel", Schedule.PADDED_PLANES, s(1, 3, 11, 13), s(6, 1, 5, 5), true,
            "group", 3L, "pads", s(2, 2, 2, 2)),
        // One channel and one map a group: depthwise, each output's sum in registers; grids that fill no whole vector,
        // uneven pads, dilation, weights at run time; output rows copied as whole vectors that run on into the next
        // rows (3 of 6 rows of 5 with 16 lanes), and channels smaller than a vector; strides, on the planes of each
        // phase: odd and even sizes and pads, rows whose columns of every phase span several vectors (36 of 71).
        conv("depthwise, 5x5", Schedule.DEPTHWISE, s(1, 3, 11, 13), s(3, 1, 5, 5), true,
            "group", 3L, "pads", s(2, 2, 2, 2)),
        conv("depthwise, 3x3, batch 2, uneven pads, dilation", Schedule.DEPTHWISE, s(2, 4, 7, 6), s(4, 1, 3, 3), false,
            "group", 4L, "pads", s(1, 0, 2, 1), "dilations", s(2, 1)),
        conv("depthwise, 3x3, channels of 12 outputs", Schedule.DEPTHWISE, s(1, 5, 3, 4), s(5, 1, 3, 3), true,
            "group", 5L, "pads", s(1, 1, 1, 1)),
        conv("depthwise, strides 2 and 3, dilation, uneven pads", Schedule.DEPTHWISE, s(2, 2, 10, 14), s(2, 1, 3, 3), false,
            "group", 2L, "strides", s(2, 3), "dilations", s(1, 2), "pads", s(0, 1, 1, 2)),
        conv("depthwise, 3x3 stride 2, odd sizes", Schedule.DEPTHWISE, s(1, 3, 9, 71), s(3, 1, 3, 3), true,
            "group", 3L, "strides", s(2, 2), "pads", s(1, 1, 1, 1)),
        conv("depthwise, 5x5 stride 2, even sizes, uneven pads", Schedule.DEPTHWISE, s(1, 2, 14, 12), s(2, 1, 5, 5), true,
            "group", 2L, "strides", s(2, 2), "pads", s(1, 2, 2, 1)),
        // Strides beyond 1 where a group has more than one channel or map and fewer maps than a vector, or one or
        // three spatial axes: along rows.
        conv("along rows, strides, dilation, pads", Schedule.ALONG_ROWS, s(1, 2, 9, 11), s(3, 2, 3, 3), false,
            "strides", s(2, 3), "dilations", s(1, 2), "pads", s(1, 2, 2, 0)),
        conv("along rows, 1-D, stride 1", Schedule.ALONG_ROWS, s(2, 3, 17), s(2, 3, 4), true, "pads", s(3, 1)),
        conv("along rows, 3-D, groups", Schedule.ALONG_ROWS, s(1, 4, 4, 5, 6), s(4, 2, 2, 3, 2), false,
            "group", 2L, "strides", s(1, 2, 1), "pads", s(0, 1, 1, 1, 0, 0)),
        new Case("matmul, broadcast batches", Schedule.ROW_OF_SUMS, "MatMul", Map.of(),
            List.of(s(2, 1, 3, 17), s(3, 17, 19)), new boolean[] {false, false}),
        new Case("matmul, vector times constant matrix", Schedule.ROW_OF_SUMS, "MatMul", Map.of(),
            List.of(s(23), s(23, 5)), new boolean[] {false, true}),
        new Case("gemm, constant transposed B, C, alpha, beta", Schedule.REGISTER_TILES, "Gemm",
            attributes("transB", 1L, "alpha", 0.5f, "beta", 2f), List.of(s(3, 21), s(18, 21), s(18)), new boolean[] {false, true, true}),
        // A constant B with a vector of columns or more: register tiles; rows and columns that fill no whole tile.
        new Case("matmul, stack of A times constant B", Schedule.REGISTER_TILES, "MatMul", Map.of(),
            List.of(s(2, 3, 13, 17), s(17, 40)), new boolean[] {false, true}),
        // Tiles of rows that share long panels (576 terms): blocks of terms, 192 with 16 lanes, 288 with 8; a last tile
        // of rows and one of columns in part.
        new Case("matmul, tiles of rows taking blocks of terms", Schedule.TILES_IN_BLOCKS, "MatMul", Map.of(),
            List.of(s(13, 576), s(576, 260)), new boolean[] {false, true}),
        new Case("gemm, transposed A, constant B, C a row", Schedule.REGISTER_TILES, "Gemm", attributes("transA", 1L, "beta", 0.5f),
            List.of(s(21, 14), s(21, 20), s(20)), new boolean[] {false, true, true}),
        new Case("gemm, transposed A and B at run time", Schedule.ROW_OF_SUMS, "Gemm",
            attributes("transA", 1L, "transB", 1L), List.of(s(13, 4), s(6, 13), s(4, 1)), new boolean[] {false, false, false}));

    /** Normalizations whose rows go in blocks (sums without products, which the other tests of CASES assume). */
    static final List<Case> ROW_BLOCK_CASES = List.of(
        // Rows in blocks of a vector's lanes, each row's sums in order with the loop over the rows innermost; a last
        // block in part, statistics over two axes, a bias that differs along the leading axes.
        new Case("layer normalization, rows in blocks, the last in part", Schedule.STATISTICS_IN_BLOCKS, "LayerNormalization", Map.of(),
            List.of(s(3, 7, 20), s(20), s(20)), new boolean[] {false, true, true}),
        new Case("layer normalization over two axes, bias along the rows", Schedule.STATISTICS_IN_BLOCKS, "LayerNormalization",
            attributes("axis", 2L), List.of(s(2, 9, 3, 5), s(3, 5), s(9, 1, 1)), new boolean[] {false, false, true}),
        new Case("softmax, rows in blocks, the last in part", Schedule.SOFTMAX_IN_BLOCKS, "Softmax", Map.of(),
            List.of(s(3, 7, 19)), new boolean[] {false}),
        new Case("log softmax, rows in blocks", Schedule.SOFTMAX_IN_BLOCKS, "LogSoftmax", Map.of(),
            List.of(s(2, 9, 13)), new boolean[] {false}));

    /** Global pooling, a vector of channels at a time, each channel in the reference's order; MaxPool's rows. */
    static final List<Case> POOLING_CASES = List.of(
        // A last vector of channels that starts early (37 channels in vectors of 2, 4, 8 or 16), batch 2.
        new Case("global average pool, 37 channels, batch 2", Schedule.POOLED_CHANNELS, "GlobalAveragePool", Map.of(),
            List.of(s(2, 37, 5, 7)), new boolean[] {false}),
        new Case("global max pool, 3-D, 16 channels", Schedule.POOLED_CHANNELS, "GlobalMaxPool", Map.of(),
            List.of(s(1, 16, 3, 4, 5)), new boolean[] {false}),
        // MaxPool's rows: windows past every edge (ResNet's 3x3 of stride 2, odd sizes), none (LeNet-5's 2x2),
        // asymmetric pads with other strides along each axis, and ceil_mode's last windows that run past the input.
        new Case("max pool 3x3 of stride 2, padded, batch 2", Schedule.MAX_POOL_ROWS, "MaxPool",
            attributes("kernel_shape", s(3, 3), "strides", s(2, 2), "pads", s(1, 1, 1, 1)), List.of(s(2, 3, 9, 11)), new boolean[] {false}),
        new Case("max pool 2x2 of stride 2", Schedule.MAX_POOL_ROWS, "MaxPool",
            attributes("kernel_shape", s(2, 2), "strides", s(2, 2)), List.of(s(1, 4, 8, 6)), new boolean[] {false}),
        new Case("max pool 3x2, strides 1 and 3, asymmetric pads", Schedule.MAX_POOL_ROWS, "MaxPool",
            attributes("kernel_shape", s(3, 2), "strides", s(1, 3), "pads", s(2, 0, 0, 1)), List.of(s(1, 3, 7, 10)), new boolean[] {false}),
        new Case("max pool 3x3 of stride 2, ceil mode", Schedule.MAX_POOL_ROWS, "MaxPool",
            attributes("kernel_shape", s(3, 3), "strides", s(2, 2), "ceil_mode", 1L), List.of(s(1, 2, 8, 10)), new boolean[] {false}));

    static Stream<Arguments> eachCaseInOneDatatype() {
        return CasesInTurn.eachCaseInOneVariant(allCases(), CasesInTurn.oneArgumentEach((Object[]) DATATYPES));
    }

    static Stream<Arguments> everyOtherDatatype() {
        return CasesInTurn.everyOtherPairing(allCases(), CasesInTurn.oneArgumentEach((Object[]) DATATYPES));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("eachCaseInOneDatatype")
    void everyScheduleComputesTheReferenceBitForBit(Case c, String datatype) {
        checkAgainstTheReference(c, datatype);
    }

    @Tag("exhaustive")
    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("everyOtherDatatype")
    void everyScheduleInEveryOtherDatatype(Case c, String datatype) {
        checkAgainstTheReference(c, datatype);
    }

    private static void checkAgainstTheReference(Case c, String datatype) {
        // Sums of grid values are exact in float32 and seldom round in the other datatypes; pooling, which has no
        // products to round, takes values whose sums round, so that the order it sums in shows in its bits.
        Values values = c.schedule() == Schedule.POOLED_CHANNELS ? ScheduleCases::valuesWhoseSumsRound : ScheduleCases::gridValues;
        Graph graph = c.graph(values);
        List<Tensor> inputs = c.runtimeInputs(values);
        Program reference = GraphLowering.lower(graph);
        assertEquals(List.of(), scheduleBuffers(reference, c.schedule()), "the reference nest has no schedule's buffers");
        int[] bits = bits(run(reference, datatype, inputs));
        for (int lanes : c.schedule() == Schedule.PADDED_PLANES || c.schedule() == Schedule.DEPTHWISE || c.schedule() == Schedule.POOLED_CHANNELS
            || c.schedule() == Schedule.MAX_POOL_ROWS ? LANES : tiled(c) ? TILE_LANES : new int[] {16}) {
            Program scheduled = GraphLowering.lowerScheduled(graph, node -> new NodeArithmetic(lanes, true));
            assertEquals(List.of(c.schedule().buffer), scheduleBuffers(scheduled, c.schedule()), c.schedule() + " chosen");
            assertArrayEquals(bits, bits(run(scheduled, datatype, inputs)), c + " in " + datatype + ", " + lanes + " lanes");
            if (datatype.equals("float32")) {
                assertArrayEquals(bits, bits(GraphInterpreter.run(scheduled, inputs).getFirst()), c + " interpreted");
            }
        }
    }

    /**
     * Register tiles only where the node's sums are machine multiply-adds: float32's own, or an emulated datatype's
     * exact sums in double (with AVX-512, whose vectors of 8 doubles are wide enough). Elsewhere an emulated
     * datatype's temporaries would push the tile's accumulators out of the registers (posit8's convolution ran 3
     * times slower in tiles), although on x86-64 with AVX-512 its vectors hold as many lanes as float32's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("tiledCases")
    void registerTilesOnlyWhereSumsAreMachineMultiplyAdds(Case c) {
        Target avx2 = new Target("x86", "x86_64-unknown-linux-gnu", "generic", "+avx,+avx2");
        Target avx512 = new Target("x86", "x86_64-unknown-linux-gnu", "generic", "+avx,+avx2,+avx512f,+avx512bw");
        for (String datatype : List.of("float32", "custom[posit]8", "custom[posit]16", "bfloat16", "fxp16_13")) {
            for (AccumulationMode mode : List.of(AccumulationMode.DTYPE, AccumulationMode.EXACT)) {
                DatatypeChoice choice = DatatypeChoice.float32().withDatatype(datatype);
                if (!datatype.equals("float32")) choice = choice.withAccumulation(mode);
                boolean tiled = datatype.equals("float32") || mode == AccumulationMode.EXACT;
                Program scheduled = GraphLowering.lowerScheduled(c.graph(), Compiler.arithmeticOf(CompileOptions.host().withTarget(avx512).withDatatypes(choice)));
                assertEquals(tiled ? List.of(c.schedule().buffer) : List.of(), scheduleBuffers(scheduled, c.schedule()),
                    c + " in " + datatype + ", accumulate " + mode.optionName());
                Program withoutAvx512 = GraphLowering.lowerScheduled(c.graph(), Compiler.arithmeticOf(CompileOptions.host().withTarget(avx2).withDatatypes(choice)));
                assertEquals(datatype.equals("float32") ? List.of(c.schedule().buffer) : List.of(),
                    scheduleBuffers(withoutAvx512, c.schedule()), c + " in " + datatype + " without AVX-512, accumulate " + mode.optionName());
            }
        }
    }

    /**
     * Tiles of rows taking blocks of terms prefetch their panels ahead of their reads (the first tile of rows of a
     * block waited on memory); tiles that take their panels whole, which later tiles read from the caches, do not.
     * Pointwise tiles whose input rows take a page or more prefetch the input of their next tile of positions
     * (each row of the input a stream of its own, more than the hardware's prefetchers follow); others do not, nor
     * do convolutions whose weights a core's second-level cache holds, as all of these cases' do.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("tiledCases")
    void tilesPrefetchOnlyWhatTheCachesWouldNotHold(Case c) {
        Kernel kernel = GraphLowering.lowerScheduled(c.graph(), node -> new NodeArithmetic(16, true)).kernels().getFirst();
        List<String> expected = c.schedule() == Schedule.TILES_IN_BLOCKS ? List.of("panels")
            : c.schedule() == Schedule.POINTWISE && c.inputShapes().getFirst()[2] * c.inputShapes().getFirst()[3] >= 1024 ? List.of("in0")
            : List.of();
        assertEquals(expected, prefetchedBuffers(kernel), c.toString());
    }

    /**
     * A convolution whose packed weights outgrow a core's second-level cache (512 maps of 128 channels, 3x3: 2.4 MB)
     * prefetches each term's weights ahead of its tiles, in both of the tiles' loops (stride 1, the nest over channel
     * and taps; stride 2, the running address), and computes the reference's bits.
     */
    @ParameterizedTest(name = "stride {0}")
    @ValueSource(longs = {1, 2})
    void tilesPrefetchWeightsTheSecondLevelCacheWouldNotHold(long stride) {
        Case c = conv("register tiles, 2.4 MB of weights, stride " + stride, Schedule.REGISTER_TILES, s(1, 128, 4, 4),
            s(512, 128, 3, 3), true, "pads", s(1, 1, 1, 1), "strides", s(stride, stride));
        Kernel kernel = GraphLowering.lowerScheduled(c.graph(), node -> new NodeArithmetic(16, true)).kernels().getFirst();
        assertEquals(List.of("panels"), prefetchedBuffers(kernel), c.toString());
        checkAgainstTheReference(c, "float32");
    }

    /** MaxPool's rows stay out of windows that may hold no input row or column, and of dilated windows: the reference nest takes them. */
    @Test
    void maxPoolRowsOnlyWhereEveryWindowHoldsTheInput() {
        for (Case c : List.of(
            new Case("max pool, dilated", Schedule.MAX_POOL_ROWS, "MaxPool",
                attributes("kernel_shape", s(2, 2), "dilations", s(2, 2)), List.of(s(1, 2, 7, 7)), new boolean[] {false}),
            new Case("max pool, windows wholly in the padding", Schedule.MAX_POOL_ROWS, "MaxPool",
                attributes("kernel_shape", s(2, 2), "pads", s(2, 0, 2, 0)), List.of(s(1, 2, 5, 5)), new boolean[] {false}))) {
            Program scheduled = GraphLowering.lowerScheduled(c.graph(), node -> FLOAT32_VECTORS);
            assertEquals(List.of(), scheduleBuffers(scheduled, c.schedule()), c.name());
            assertArrayEquals(bits(GraphInterpreter.run(GraphLowering.lower(c.graph()), c.runtimeInputs()).getFirst()),
                bits(GraphInterpreter.run(scheduled, c.runtimeInputs()).getFirst()), c.name());
        }
    }

    /**
     * Register tiles of a 1x1 convolution without padding read the input where it is, image by image: their planes
     * would be a copy of it. With padding, they copy it into planes.
     */
    @Test
    void pointwiseRegisterTilesReadTheInputInPlace() {
        for (Case c : CASES) {
            if (!c.name().startsWith("register tiles")) continue;
            long[] w = c.inputShapes().get(1);
            boolean pointwise = w[2] == 1 && w[3] == 1 && !c.attributes().containsKey("pads") && !c.attributes().containsKey("strides");
            Kernel kernel = GraphLowering.lowerScheduled(c.graph(), node -> FLOAT32_VECTORS).kernels().getFirst();
            List<String> scratch = kernel.scratch().stream().map(b -> hint(kernel, b)).toList();
            assertEquals(!pointwise, scratch.contains("planes"), c + ": " + scratch);
        }
    }

    /**
     * Register tiles of positions by maps take three vectors of maps (48) where that leaves no more zero maps than
     * two, with at most 9 positions (27 sums in registers), and no more than two vectors otherwise.
     */
    @Test
    void registerTilesTakeThreeVectorsOfMapsWhereTheyLeaveNoMoreZeroMaps() {
        for (Case c : CASES) {
            if (!c.name().startsWith("register tiles")) continue;
            Kernel kernel = GraphLowering.lowerScheduled(c.graph(), node -> FLOAT32_VECTORS).kernels().getFirst();
            long[] tile = kernel.scratch().stream().filter(b -> hint(kernel, b).equals("acc")).findFirst().orElseThrow().shape();
            long[] w = c.inputShapes().get(1);
            long maps = w[0] / (c.attributes().get("group") instanceof Attribute.IntAttr group ? group.value() : 1);
            boolean three = maps > 32 && (maps + 47) / 48 * 48 <= (maps + 31) / 32 * 32;
            assertEquals(three, tile[1] == 48, c + ": tile " + Arrays.toString(tile));
            assertTrue(tile[1] <= 48 && tile[0] * tile[1] / 16 <= 28, c + ": tile " + Arrays.toString(tile));
            if (c.name().contains("three vectors of maps")) assertTrue(three, c.toString());
        }
    }

    /**
     * Pointwise tiles copy a tile of positions' input into a panel where 32 channels or more and 4 tiles of maps or
     * more read it (the cases named so), and read it where it is otherwise.
     */
    @Test
    void pointwiseTilesCopyTheirInputWhereManyChannelsAndTilesOfMapsReadIt() {
        for (Case c : CASES) {
            if (c.schedule() != Schedule.POINTWISE) continue;
            Kernel kernel = GraphLowering.lowerScheduled(c.graph(), node -> FLOAT32_VECTORS).kernels().getFirst();
            List<String> scratch = kernel.scratch().stream().map(b -> hint(kernel, b)).toList();
            assertEquals(c.name().contains("input copied"), scratch.contains("inputPanel"), c + ": " + scratch);
        }
    }

    private static List<String> prefetchedBuffers(Kernel kernel) {
        List<String> prefetched = new ArrayList<>();
        new KernelRewriter() {
            @Override
            public List<Stmt> stmt(Stmt s) {
                if (s instanceof Stmt.Prefetch p) prefetched.add(hint(kernel, p.buffer()));
                return super.stmt(s);
            }
        }.body(kernel.body());
        return prefetched.stream().distinct().toList();
    }

    static Stream<Case> tiledCases() { return allCases().stream().filter(TunedSchedulesTest::tiled); }

    private static List<Case> allCases() { return Stream.of(CASES, ROW_BLOCK_CASES, POOLING_CASES).flatMap(List::stream).toList(); }

    private static boolean tiled(Case c) {
        return c.schedule() == Schedule.REGISTER_TILES || c.schedule() == Schedule.TILES_IN_BLOCKS || c.schedule() == Schedule.POINTWISE
            || c.schedule() == Schedule.OUTPUT_ROWS
            || c.schedule() == Schedule.STATISTICS_IN_BLOCKS || c.schedule() == Schedule.SOFTMAX_IN_BLOCKS;
    }

    static List<String> scheduleBuffers(Program program, Schedule schedule) {
        Kernel kernel = program.kernels().getFirst();
        return Stream.concat(kernel.scratch().stream(), kernel.constants().keySet().stream())
            .map(b -> hint(kernel, b)).filter(schedule.buffer::equals).distinct().toList();
    }

    /** A kernel's own buffer by the hint KernelBuilder names it by (KERNEL.HINT followed by a number), a value by its name. */
    private static String hint(Kernel kernel, Buffer buffer) {
        String prefix = kernel.name() + ".";
        return buffer.name().startsWith(prefix) ? buffer.name().substring(prefix.length()).replaceAll("[0-9]+$", "") : buffer.name();
    }

    private static Tensor run(Program program, String datatype, List<Tensor> inputs) {
        CompileOptions options = CompileOptions.host().withDatatype(datatype);
        try (CompiledModule module = Compiler.compile(program, options); HostModel model = Compiler.jit(module)) {
            return model.run(inputs).getFirst();
        }
    }

    static int[] bits(Tensor t) {
        float[] values = t.toFloatArray();
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Float.floatToRawIntBits(values[i]);
        return bits;
    }
}
