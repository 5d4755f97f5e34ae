package dev.byodt.compiler.ops;

import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.ScalarType;
import dev.byodt.runtime.Tensor;

import java.util.function.IntFunction;

import static dev.byodt.compiler.kernel.Exprs.add;
import static dev.byodt.compiler.kernel.Exprs.and;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.div;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.lt;
import static dev.byodt.compiler.kernel.Exprs.mul;
import static dev.byodt.compiler.kernel.Exprs.rem;
import static dev.byodt.compiler.kernel.Exprs.sub;

/**
 * A tuned schedule of {@link Conv} that computes fewer products than the convolution has: Winograd's minimal
 * filtering F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", 2016) for 3x3
 * convolutions of stride 1 and one group, chosen by --conv-algorithm winograd. Each 2x2 block of outputs ("a tile")
 * is computed from the 4x4 patch of padded input under it: the patch d of each channel transformed to V = B^T d B,
 * the 3x3 weights g of each channel and map to U = G g G^T (at compile time), the sixteen elements of V times those
 * of U summed over the channels (sixteen matrix products of tiles by channels by maps, in {@link RegisterTile}s), and
 * the 4x4 of sums M transformed back to the 2x2 outputs A^T M A. That is 16 multiply-adds a tile, channel and map
 * where the convolution takes 36: 2.25 times fewer. The outputs are not the reference's: the transforms add and
 * subtract inputs before they are multiplied and sums after, so each output carries a few more roundings (the same
 * ones on every target), and an input that is infinite or NaN reaches the outputs of its whole tile, not just the
 * outputs whose windows hold it.
 *
 * <p>The tiles are the positions of a grid, as a convolution's outputs are on its padded planes ({@link
 * #patchWindows}), and go in runs of up to {@link #MOST_TILES} along it, which the threads divide. Where the
 * transformed weights fit the second-level cache, each run transforms its patches into a scratch buffer that stays
 * in the caches (16 x channels x tiles values), takes the sixteen products a tile of maps at a time and transforms
 * each tile of maps back as it is done, so nothing the size of a layer goes through memory. Where they do not (256
 * channels to 256: 4 MB), every thread transforms the image's patches first, and the runs then take one tile of maps
 * each, so that each tile of maps' weights are read once for all the tiles.
 */
final class WinogradConv {
    /**
     * Tiles a block takes at most: a register tile's rows, with two vectors of maps 28 of AVX-512's 32 registers (as
     * {@link RegisterTiledConv}'s blocks of positions).
     */
    private static final long MOST_TILES = 14;

    /**
     * Tiles an image must have for a convolution whose transformed weights outgrow the second-level cache: those
     * weights, 16/9 of the convolution's, then come from farther for each image, and only enough tiles pay for that.
     * ResNet's 3x3 layers of 256 channels at 14x14 (49 tiles, 4 MB of weights) ran 1.15 times as fast as their
     * register-tiled convolution, of 512 channels at 7x7 (16 tiles, 16 MB) 0.83 times.
     */
    private static final long LEAST_TILES_FOR_LARGE_WEIGHTS = 32;

    /** B^T of F(2x2, 3x3): row a of the patch transform V = B^T d B, the weights of d's rows 0 to 3. */
    private static final int[][] INPUT_TRANSFORM = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};

    /** A^T: row i of the output transform Y = A^T M A, the weights of M's rows 0 to 3. */
    private static final int[][] OUTPUT_TRANSFORM = {{1, 1, 1, 0}, {0, 1, -1, -1}};

    /** G: row a of the weights transform U = G g G^T, the weights of g's rows 0 to 2. */
    private static final double[][] WEIGHTS_TRANSFORM = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};

    private WinogradConv() {}

    /**
     * Whether this schedule applies: asked for, a 3x3 convolution of stride 1, no dilation and one group, with constant
     * weights, in the machine's float32 (an emulated datatype's transforms would round in its own arithmetic), maps in
     * register tiles.
     */
    static boolean fits(Conv.Shape s, boolean constantWeights, NodeArithmetic arithmetic) {
        WindowGeometry w = s.window();
        return arithmetic.winograd() && arithmetic.machineFloat32() && constantWeights && w.rank() == 2 && s.groups() == 1
            && w.kernelSize(0) == 3 && w.kernelSize(1) == 3 && w.stride(0) == 1 && w.stride(1) == 1 && w.dilation(0) == 1
            && w.dilation(1) == 1 && RegisterTile.fits(arithmetic, s.featureMaps())
            && (weightsFitTheCache(s) || Math.ceilDiv(w.outputShape()[0], 2) * Math.ceilDiv(w.outputShape()[1], 2) >= LEAST_TILES_FOR_LARGE_WEIGHTS);
    }

    /** Whether the transformed weights (16 x channels x maps) fit the second-level cache. */
    private static boolean weightsFitTheCache(Conv.Shape s) {
        return 16 * s.channels() * s.featureMaps() * Float.BYTES <= RegisterTiledConv.SECOND_LEVEL_CACHE_BYTES;
    }

    static void lower(Conv.Shape s, Tensor weights, KernelBuilder kb, long lanes) {
        long channels = s.channels();
        long maps = s.featureMaps();
        WindowGeometry patchWindows = patchWindows(s);
        long grid = patchWindows.outputShape()[0] * PaddedPlanes.width(kb.input(0), patchWindows);
        long blockTiles = Math.ceilDiv(grid, Math.ceilDiv(grid, MOST_TILES));
        long blocks = Math.ceilDiv(grid, blockTiles);
        PaddedPlanes planes = PaddedPlanes.of(kb, kb.input(0), patchWindows, blockTiles);
        RegisterTile tile = RegisterTile.of(kb, lanes, blockTiles, maps);
        long mapTiles = tile.columnTiles(maps);
        Buffer panels = tile.panels(kb, transformedWeights(weights, channels, maps), 16, maps, channels);
        Buffer sums = kb.scratch("sums", ScalarType.ACC, new long[] {16, blockTiles, tile.columns()});
        boolean wholeImage = !weightsFitTheCache(s);
        long held = wholeImage ? blocks * blockTiles : blockTiles;
        Buffer patches = kb.scratch("patches", ScalarType.REAL, new long[] {16, channels, held});
        kb.loop(s.batch(), n -> {
            planes.fill(kb, n, idx(0), channels);
            if (wholeImage) {
                // Every thread transforms all the patches, as it fills all the planes, and each tile of maps then
                // reads its weights once for all the tiles.
                transform(kb, planes, patches, held, channels, idx(0), held);
                kb.loop(mapTiles * blocks, true, i -> {
                    Expr firstTile = mul(rem(i, blocks), blockTiles);
                    products(kb, tile, sums, panels, true, patches, held, channels, mapTiles, div(i, blocks), firstTile);
                    store(kb, s, tile, sums, planes.width(), div(i, blocks), n, firstTile);
                });
            } else {
                kb.loop(blocks, true, block -> {
                    Expr firstTile = mul(block, blockTiles);
                    transform(kb, planes, patches, held, channels, firstTile, blockTiles);
                    kb.loop(mapTiles, mapTile -> {
                        products(kb, tile, sums, panels, false, patches, held, channels, mapTiles, mapTile, idx(0));
                        store(kb, s, tile, sums, planes.width(), mapTile, n, firstTile);
                    });
                });
            }
        });
    }

    /**
     * The 4x4 patches of the tiles as the windows of a convolution over the same input: 4x4 taps, stride 2, padded
     * before as the convolution is and after so that the windows cover every tile (one more row or column of zeros
     * where the output's is odd). Their planes ({@link PaddedPlanes}) hold each channel in four phases, so the same
     * tap of consecutive tiles along a row is contiguous, and a tile is a position on their grid.
     */
    private static WindowGeometry patchWindows(Conv.Shape s) {
        WindowGeometry w = s.window();
        long[] out = w.outputShape();
        long[] after = {w.padAfter(0) + out[0] % 2, w.padAfter(1) + out[1] % 2};
        return WindowGeometry.of(s.inputSpatial(), new long[] {4, 4}, new long[] {2, 2}, new long[] {w.padBefore(0), w.padBefore(1)}, after);
    }

    /**
     * Emits the transform of the patches of every channel at the {@code count} positions of the planes' grid from
     * {@code firstTile} into the patches' slots from 0 ({@code held} slots a channel).
     */
    private static void transform(KernelBuilder kb, PaddedPlanes planes, Buffer patches, long held, long channels, Expr firstTile, long count) {
        kb.loop(channels, c -> kb.loop(count, t -> {
            Expr[][] d = new Expr[4][4];
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) d[i][j] = kb.load(planes.buffer(), add(planes.tap(c, idx(i), idx(j)), add(firstTile, t)));
            }
            Expr[][] v = sandwich(INPUT_TRANSFORM, d);
            for (int e = 0; e < 16; e++) kb.store(patches, add(mul(add(mul(idx(e), channels), c), held), t), v[e / 4][e % 4]);
        }));
    }

    /**
     * Emits the sixteen products of a block's tiles (their patches in the slots from {@code firstSlot}) by the transformed
     * weights of the maps of {@code mapTile}, a tile of sums each into {@code sums}; where {@code prefetches}, each term's
     * weights are prefetched a page ahead. A loop over the sixteen, not sixteen copies of a tile's code: LLVM's loop passes
     * took 8 s over those, for each shape of convolution.
     */
    private static void products(KernelBuilder kb, RegisterTile tile, Buffer sums, Buffer panels, boolean prefetches, Buffer patches, long held,
                                 long channels, long mapTiles, Expr mapTile, Expr firstSlot) {
        kb.loop(16, element -> {
            Expr panelStart = tile.panelStart(add(mul(element, mapTiles), mapTile), channels);
            tile.sumInto(kb, channels, panels, panelStart, k -> {
                    if (prefetches) tile.prefetchTerm(kb, panels, panelStart, k);
                },
                (c, t) -> kb.load(patches, add(add(mul(add(mul(element, channels), c), held), firstSlot), t)),
                sums, mul(element, tile.rows() * tile.columns()));
        });
    }

    /**
     * Emits the output transform of a block's tiles, at the positions of the grid (of {@code width} columns) from
     * {@code firstTile}, for the maps of {@code mapTile}, and the stores of their outputs that are in the output, bias added.
     */
    private static void store(KernelBuilder kb, Conv.Shape s, RegisterTile tile, Buffer sums, long width, Expr mapTile, Expr n, Expr firstTile) {
        Buffer bias = kb.input(2);
        Buffer y = kb.output(0);
        long[] out = s.window().outputShape();
        long maps = s.featureMaps();
        long columns = tile.columns();
        kb.loop(tile.rows(), t -> {
            Expr onGrid = add(firstTile, t);
            Expr tileRow = kb.get(kb.local("tileRow", div(onGrid, width)));
            Expr tileColumn = kb.get(kb.local("tileColumn", rem(onGrid, width)));
            kb.when(and(lt(tileRow, Math.ceilDiv(out[0], 2)), lt(tileColumn, Math.ceilDiv(out[1], 2))), () -> kb.vectorLoop(columns, m -> {
                Expr map = add(mul(mapTile, columns), m);
                Expr[][] m16 = new Expr[4][4];
                for (int e = 0; e < 16; e++) {
                    m16[e / 4][e % 4] = cast(ScalarType.REAL, kb.load(sums, add(mul(add(t, e * tile.rows()), columns), m)));
                }
                Expr[][] outputs = sandwich(OUTPUT_TRANSFORM, m16);
                for (int i = 0; i < 2; i++) {
                    for (int j = 0; j < 2; j++) {
                        Expr row = add(mul(tileRow, 2), i);
                        Expr column = add(mul(tileColumn, 2), j);
                        Expr value = bias == null ? outputs[i][j] : add(outputs[i][j], kb.load(bias, map));
                        Expr inside = maps % columns == 0 ? null : lt(map, maps);
                        if (i == 1 && out[0] % 2 == 1) inside = inside == null ? lt(row, out[0]) : and(inside, lt(row, out[0]));
                        if (j == 1 && out[1] % 2 == 1) inside = inside == null ? lt(column, out[1]) : and(inside, lt(column, out[1]));
                        Runnable store = () -> kb.store(y, flatIndex(y.shape(), n, map, row, column), value);
                        if (inside == null) store.run();
                        else kb.when(inside, store);
                    }
                }
            }));
        });
    }

    /** T X T^T for a transform T whose entries are 0, 1 or -1: each element a sum of X's, none multiplied. */
    private static Expr[][] sandwich(int[][] t, Expr[][] x) {
        Expr[][] left = new Expr[t.length][x[0].length];
        for (int a = 0; a < t.length; a++) {
            for (int j = 0; j < x[0].length; j++) {
                int column = j;
                left[a][j] = combine(t[a], i -> x[i][column]);
            }
        }
        Expr[][] both = new Expr[t.length][t.length];
        for (int a = 0; a < t.length; a++) {
            for (int b = 0; b < t.length; b++) {
                int row = a;
                both[a][b] = combine(t[b], j -> left[row][j]);
            }
        }
        return both;
    }

    /**
     * The sum of term(k) with the signs of {@code weights} (1 or -1; 0 leaves term k out): the first term of weight 1,
     * then the others in k's order.
     */
    private static Expr combine(int[] weights, IntFunction<Expr> term) {
        int first = 0;
        while (weights[first] != 1) first++;
        Expr sum = term.apply(first);
        for (int k = 0; k < weights.length; k++) {
            if (k == first || weights[k] == 0) continue;
            sum = weights[k] > 0 ? add(sum, term.apply(k)) : sub(sum, term.apply(k));
        }
        return sum;
    }

    /**
     * The weights transformed, U = G g G^T for each map and channel, summed in double and rounded to float32, laid out
     * as 16 matrices (one per element of U) of {@code maps} rows by {@code channels} terms, as
     * {@link RegisterTile#panels} takes groups.
     */
    private static Tensor transformedWeights(Tensor weights, long channels, long maps) {
        float[] g = weights.toFloatArray();
        float[] u = new float[Math.toIntExact(16 * maps * channels)];
        for (long m = 0; m < maps; m++) {
            for (long c = 0; c < channels; c++) {
                int at = Math.toIntExact((m * channels + c) * 9);
                for (int a = 0; a < 4; a++) {
                    for (int b = 0; b < 4; b++) {
                        double sum = 0;
                        for (int i = 0; i < 3; i++) {
                            for (int j = 0; j < 3; j++) sum += WEIGHTS_TRANSFORM[a][i] * g[at + i * 3 + j] * WEIGHTS_TRANSFORM[b][j];
                        }
                        u[Math.toIntExact(((a * 4 + b) * maps + m) * channels + c)] = (float) sum;
                    }
                }
            }
        }
        return Tensor.ofFloats(new long[] {16 * maps, channels}, u);
    }
}
