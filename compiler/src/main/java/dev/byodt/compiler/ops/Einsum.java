package dev.byodt.compiler.ops;

import dev.byodt.compiler.graph.Node;
import dev.byodt.compiler.graph.TensorType;
import dev.byodt.compiler.kernel.Buffer;
import dev.byodt.compiler.kernel.Expr;
import dev.byodt.compiler.kernel.KernelBuilder;
import dev.byodt.compiler.kernel.Local;
import dev.byodt.compiler.kernel.ScalarType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.byodt.compiler.kernel.Exprs.accumulate;
import static dev.byodt.compiler.kernel.Exprs.cast;
import static dev.byodt.compiler.kernel.Exprs.constant;
import static dev.byodt.compiler.kernel.Exprs.flatIndex;
import static dev.byodt.compiler.kernel.Exprs.idx;
import static dev.byodt.compiler.kernel.Exprs.mac;
import static dev.byodt.compiler.kernel.Exprs.mul;

/**
 * Einsum of one or two real operands: every form of those (transposes, diagonals, reductions, dot and outer
 * products, matrix and batched matrix products, "..." with broadcasting). One loop per output letter, and
 * inside, one per summed letter; sums run in the accumulator (mac for two operands), so --accumulate applies.
 * Without "->" the output is "..." followed by the letters used once, in alphabetical order, as numpy has it.
 * Three or more operands are an error naming the equation.
 */
final class Einsum implements Operator {
    /** The letters of each operand and of the output ("..." spelled out), and each letter's extent. */
    private record Spec(List<String> operands, String output, Map<Character, Long> extents) {}

    /** "..." becomes letters from here on, which no equation can contain. */
    private static final char ELLIPSIS_LETTERS = '\u0100';

    static void registerAll() {
        Operators.register("Einsum", new Einsum());
    }

    @Override
    public List<TensorType> inferTypes(Node node) {
        for (int i = 0; i < node.inputCount(); i++) Operands.floatInput(node, i, "Inputs[" + i + "]");
        Spec spec = spec(node);
        long[] shape = new long[spec.output().length()];
        for (int d = 0; d < shape.length; d++) shape[d] = spec.extents().get(spec.output().charAt(d));
        return List.of(Operands.floatTensor(shape));
    }

    @Override
    public void lower(Node node, KernelBuilder kb) {
        Spec spec = spec(node);
        Buffer out = kb.output(0);
        StringBuilder summed = new StringBuilder();
        for (String term : spec.operands()) {
            for (char c : term.toCharArray()) {
                if (spec.output().indexOf(c) < 0 && summed.indexOf(String.valueOf(c)) < 0) summed.append(c);
            }
        }
        long[] summedExtents = new long[summed.length()];
        for (int d = 0; d < summedExtents.length; d++) summedExtents[d] = spec.extents().get(summed.charAt(d));
        kb.loops(out.shape(), o -> {
            Map<Character, Expr> at = new HashMap<>();
            for (int d = 0; d < o.length; d++) at.put(spec.output().charAt(d), o[d]);
            Expr outIndex = flatIndex(out.shape(), o);
            if (summed.isEmpty()) {
                kb.store(out, outIndex, spec.operands().size() == 1 ? load(kb, 0, spec, at) : mul(load(kb, 0, spec, at), load(kb, 1, spec, at)));
                return;
            }
            Local sum = kb.local("sum", constant(ScalarType.ACC, 0));
            kb.loops(summedExtents, s -> {
                for (int d = 0; d < s.length; d++) at.put(summed.charAt(d), s[d]);
                Expr a = load(kb, 0, spec, at);
                kb.assign(sum, spec.operands().size() == 1 ? accumulate(kb.get(sum), a) : mac(kb.get(sum), a, load(kb, 1, spec, at)));
            });
            kb.store(out, outIndex, cast(ScalarType.REAL, kb.get(sum)));
        });
    }

    /** Operand i at the letters' positions; a dimension of 1 that "..." broadcasts reads index 0. */
    private static Expr load(KernelBuilder kb, int i, Spec spec, Map<Character, Expr> at) {
        Buffer b = kb.input(i);
        String term = spec.operands().get(i);
        Expr[] index = new Expr[term.length()];
        for (int d = 0; d < index.length; d++) {
            char c = term.charAt(d);
            index[d] = b.dim(d) == 1 && spec.extents().get(c) != 1 ? idx(0) : at.get(c);
        }
        return kb.load(b, flatIndex(b.shape(), index));
    }

    private static Spec spec(Node node) {
        String written = node.stringAttr("equation", null);
        if (written == null) throw node.error("needs attribute equation");
        String equation = written.replaceAll("\\s", "");
        String[] sides = equation.split("->", -1);
        if (sides.length > 2) throw node.error("equation '" + written + "' has more than one '->'");
        String[] terms = sides[0].split(",", -1);
        if (terms.length != node.inputCount()) {
            throw node.error("equation '" + written + "' has " + terms.length + " operands but the node has " + node.inputCount() + " inputs");
        }
        if (terms.length > 2) {
            throw node.error("equation '" + written + "' has " + terms.length + " operands; byodt implements Einsum of one or two");
        }
        int ellipsisRank = 0;
        for (int i = 0; i < terms.length; i++) {
            int letters = terms[i].replace("...", "").length();
            if (terms[i].contains("...")) ellipsisRank = Math.max(ellipsisRank, node.input(i).type().rank() - letters);
        }
        List<String> operands = new ArrayList<>();
        Map<Character, Long> extents = new HashMap<>();
        for (int i = 0; i < terms.length; i++) {
            long[] shape = node.input(i).type().shape();
            String term = spelledOut(node, written, terms[i], shape.length, ellipsisRank);
            if (term.length() != shape.length) {
                throw node.error("equation '" + written + "' gives operand " + i + " " + term.length() + " letters, but it has rank " + shape.length);
            }
            for (int d = 0; d < shape.length; d++) {
                char c = term.charAt(d);
                Long seen = extents.get(c);
                boolean broadcast = c >= ELLIPSIS_LETTERS && (seen == null || seen == 1 || shape[d] == 1);
                if (seen != null && seen != shape[d] && !broadcast) {
                    throw node.error("equation '" + written + "': letter '" + c + "' stands for extents " + seen + " and " + shape[d]);
                }
                extents.put(c, seen == null ? shape[d] : Math.max(seen, shape[d]));
            }
            operands.add(term);
        }
        String output;
        if (sides.length == 2) {
            int outputRank = sides[1].replace("...", "").length() + (sides[1].contains("...") ? ellipsisRank : 0);
            output = spelledOut(node, written, sides[1], outputRank, ellipsisRank);
            for (char c : output.toCharArray()) {
                if (!extents.containsKey(c)) throw node.error("equation '" + written + "': output letter '" + c + "' is in no operand");
                if (output.indexOf(c) != output.lastIndexOf(c)) throw node.error("equation '" + written + "': output letter '" + c + "' is repeated");
            }
        } else {
            output = implicitOutput(operands, ellipsisRank);
        }
        return new Spec(operands, output, extents);
    }

    /** A term with "..." replaced by the last {@code rank - letters} of the ellipsisRank reserved letters. */
    private static String spelledOut(Node node, String written, String term, int rank, int ellipsisRank) {
        int at = term.indexOf("...");
        String letters = term.replace("...", "");
        for (char c : letters.toCharArray()) {
            if (!Character.isLetter(c) || c >= ELLIPSIS_LETTERS) {
                throw node.error("equation '" + written + "' has '" + c + "' where a letter or '...' belongs");
            }
        }
        if (at < 0) return term;
        int covered = rank - letters.length();
        if (covered < 0 || covered > ellipsisRank) throw node.error("equation '" + written + "': '" + term + "' does not fit rank " + rank);
        StringBuilder s = new StringBuilder(term.substring(0, at));
        for (int k = ellipsisRank - covered; k < ellipsisRank; k++) s.append((char) (ELLIPSIS_LETTERS + k));
        return s.append(term.substring(at + 3)).toString();
    }

    private static String implicitOutput(List<String> operands, int ellipsisRank) {
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < ellipsisRank; k++) out.append((char) (ELLIPSIS_LETTERS + k));
        String all = String.join("", operands);
        TreeSet<Character> once = new TreeSet<>();
        for (char c : all.toCharArray()) {
            if (c < ELLIPSIS_LETTERS && all.indexOf(c) == all.lastIndexOf(c)) once.add(c);
        }
        once.forEach(out::append);
        return out.toString();
    }
}
