package dev.byodt.compiler.onnx;

import dev.byodt.onnx.Onnx.GraphProto;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.NodeProto;
import dev.byodt.onnx.Onnx.TensorProto;
import dev.byodt.onnx.Onnx.TypeProto;
import dev.byodt.onnx.Onnx.ValueInfoProto;
import dev.byodt.runtime.ElementType;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@code byodt inspect} shows about a model: its header, inputs and outputs as the model declares them
 * (symbolic dimensions by name), operators with counts, parameters, and everything byodt cannot compile with
 * the reason. Building it does not fail on unsupported operators; only an unreadable or malformed file is an
 * error.
 *
 * @param opsets      operator set version by domain, the default domain as "ai.onnx"
 * @param operators   node count by operator, other domains' operators prefixed with their domain
 * @param unsupported what stops compilation, one row per operator (or weight, or input) and reason
 */
public record ModelSummary(Path file, long irVersion, Map<String, Long> opsets, String producer,
                           List<TensorInfo> inputs, List<TensorInfo> outputs, Map<String, Integer> operators,
                           long parameterCount, long parameterBytes, List<Unsupported> unsupported) {

    public ModelSummary {
        opsets = Collections.unmodifiableMap(new LinkedHashMap<>(opsets));
        operators = Collections.unmodifiableMap(new TreeMap<>(operators));
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        unsupported = List.copyOf(unsupported);
    }

    /** A graph input or output as declared: element type name and shape such as "Nx1x28x28". */
    public record TensorInfo(String name, String type, String shape) {}

    /**
     * @param subject the operator, or "-" for a weight or input
     * @param where   the first node (or weight, or input) concerned
     * @param count   how many nodes share this operator and reason
     * @param reason  not implemented, unsupported domain, unsupported tensor type, unsupported attribute or input
     * @param detail  the error the compiler would report for the first one
     */
    public record Unsupported(String subject, String where, int count, String reason, String detail) {}

    public static ModelSummary of(Path file) {
        ModelProto model = ModelReader.read(file);
        GraphProto graph = model.getGraph();
        Map<String, Long> opsets = new LinkedHashMap<>();
        ModelReader.opsetImports(model).forEach((domain, version) -> opsets.put(domain.isEmpty() ? "ai.onnx" : domain, version));
        String producer = (model.getProducerName() + " " + model.getProducerVersion()).trim();

        Set<String> initializerNames = new HashSet<>();
        long parameters = 0, bytes = 0;
        for (TensorProto initializer : graph.getInitializerList()) {
            initializerNames.add(initializer.getName());
            long elements = 1;
            for (long d : initializer.getDimsList()) elements = Math.multiplyExact(elements, Math.max(d, 0));
            parameters += elements;
            bytes += (elements * bitsPerElement(initializer.getDataType()) + 7) / 8;
        }
        List<TensorInfo> inputs = graph.getInputList().stream()
            .filter(i -> !initializerNames.contains(i.getName())).map(ModelSummary::info).toList();
        List<TensorInfo> outputs = graph.getOutputList().stream().map(ModelSummary::info).toList();
        Map<String, Integer> operators = new TreeMap<>();
        for (NodeProto node : graph.getNodeList()) {
            String domain = ModelReader.normalizeDomain(node.getDomain());
            operators.merge(domain.isEmpty() ? node.getOpType() : domain + "." + node.getOpType(), 1, Integer::sum);
        }
        List<ImportProblem> problems = new GraphImporter(file, model).run(Map.of(), Map.of()).problems();
        return new ModelSummary(file, model.getIrVersion(), opsets, producer.isEmpty() ? "unknown" : producer,
            inputs, outputs, operators, parameters, bytes, group(problems));
    }

    /** A plain-text report, one section per aspect, columns aligned. */
    public String render() {
        StringBuilder out = new StringBuilder();
        List<String> opsetNames = new ArrayList<>();
        opsets.forEach((domain, version) -> opsetNames.add(domain + " " + version));
        table(out, "", List.of(
            new String[] {"model", file.toString()},
            new String[] {"IR version", Long.toString(irVersion)},
            new String[] {"opsets", String.join(", ", opsetNames)},
            new String[] {"producer", producer},
            new String[] {"parameters", String.format(Locale.ROOT, "%,d (%s)", parameterCount, formatBytes(parameterBytes))}));
        out.append("\ninputs\n");
        table(out, "  ", inputs.stream().map(t -> new String[] {t.name(), t.type(), t.shape()}).toList());
        out.append("\noutputs\n");
        table(out, "  ", outputs.stream().map(t -> new String[] {t.name(), t.type(), t.shape()}).toList());
        int nodeCount = operators.values().stream().mapToInt(Integer::intValue).sum();
        out.append("\noperators (").append(nodeCount).append(nodeCount == 1 ? " node)\n" : " nodes)\n");
        table(out, "  ", operators.entrySet().stream().map(e -> new String[] {e.getKey(), e.getValue().toString()}).toList());
        if (unsupported.isEmpty()) {
            out.append("\nevery operator, weight and input is supported\n");
        } else {
            out.append("\nunsupported\n");
            table(out, "  ", unsupported.stream().map(u -> new String[] {u.subject(),
                u.count() == 1 ? u.where() : u.where() + " and " + (u.count() - 1) + " more", explain(u)}).toList());
        }
        return out.toString();
    }

    /** The reason, and the error's detail where the reason alone does not say what is wrong. */
    private static String explain(Unsupported u) {
        boolean selfExplaining = u.reason().equals(ImportProblem.Kind.NOT_IMPLEMENTED.description())
            || u.reason().equals(ImportProblem.Kind.UNSUPPORTED_DOMAIN.description());
        return selfExplaining ? u.reason() : u.reason() + ": " + u.detail();
    }

    private static TensorInfo info(ValueInfoProto value) {
        TypeProto type = value.getType();
        if (type.getValueCase() != TypeProto.ValueCase.TENSOR_TYPE) {
            return new TensorInfo(value.getName(), InputTypes.describeNonTensor(type), "");
        }
        TypeProto.Tensor tensor = type.getTensorType();
        ElementType known = ElementType.fromOnnx(tensor.getElemType());
        String typeName = known != null ? known.toString() : ElementType.onnxName(tensor.getElemType());
        String shape = tensor.hasShape() ? InputTypes.describe(tensor.getShape().getDimList()) : "unknown shape";
        return new TensorInfo(value.getName(), typeName, shape);
    }

    /** One row per operator and reason, and per weight or input, in the order the importer met them. */
    private static List<Unsupported> group(List<ImportProblem> problems) {
        Map<String, Unsupported> rows = new LinkedHashMap<>();
        for (ImportProblem p : problems) {
            String subject = p.opType() == null ? "-" : p.opType();
            rows.merge(p.opType() == null ? p.where() : subject + "\n" + p.kind(),
                new Unsupported(subject, p.where(), 1, p.kind().description(), p.error().getMessage()),
                (first, next) -> new Unsupported(first.subject(), first.where(), first.count() + 1, first.reason(), first.detail()));
        }
        return List.copyOf(rows.values());
    }

    /** Storage per element by ONNX data type code, for the size of weights byodt may not read. */
    private static long bitsPerElement(int onnxType) {
        return switch (onnxType) {
            case 2, 3, 9, 17, 18, 19, 20, 24 -> 8;   // uint8, int8, bool, the float8s, float8e8m0
            case 4, 5, 10, 16 -> 16;                  // uint16, int16, float16, bfloat16
            case 1, 6, 12 -> 32;                      // float, int32, uint32
            case 7, 11, 13, 14 -> 64;                 // int64, double, uint64, complex64
            case 15 -> 128;                           // complex128
            case 21, 22, 23 -> 4;                     // uint4, int4, float4e2m1
            case 25, 26 -> 2;                         // uint2, int2
            default -> 0;                             // strings and undefined: no fixed size
        };
    }

    private static String formatBytes(long bytes) {
        if (bytes < 1024) return bytes + " B";
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    private static void table(StringBuilder out, String indent, List<String[]> rows) {
        if (rows.isEmpty()) {
            out.append(indent).append("(none)\n");
            return;
        }
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) widths[c] = Math.max(widths[c], row[c].length());
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < row.length; c++) {
                line.append(row[c]);
                if (c < row.length - 1) line.append(" ".repeat(widths[c] - row[c].length() + 2));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
