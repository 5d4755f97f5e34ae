package dev.byodt.compiler.onnx;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.byodt.onnx.Onnx.ModelProto;
import dev.byodt.onnx.Onnx.OperatorSetIdProto;
import dev.byodt.runtime.ByodtException;
import dev.byodt.runtime.InputFiles;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads a .onnx file into a ModelProto and checks that it is a model byodt can read at all. */
final class ModelReader {
    /** IR 3 introduced operator set imports; 13 is the newest version the schema in runtime/ follows. */
    static final long OLDEST_IR_VERSION = 3;
    static final long NEWEST_IR_VERSION = 13;

    private ModelReader() {}

    static ModelProto read(Path file) {
        byte[] bytes = InputFiles.readAllBytes(file);
        ModelProto model;
        try {
            model = ModelProto.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new ByodtException(file + " is not an ONNX model (" + firstSentence(e.getMessage()) + ")", e);
        }
        // Protobuf accepts many other files as a message of unknown fields; every ONNX model states its IR version.
        if (!model.hasIrVersion()) throw new ByodtException(file + " is not an ONNX model (it has no IR version)");
        long ir = model.getIrVersion();
        if (ir < OLDEST_IR_VERSION || ir > NEWEST_IR_VERSION) {
            throw new ByodtException(file + " has IR version " + ir + "; byodt reads IR versions "
                + OLDEST_IR_VERSION + " to " + NEWEST_IR_VERSION);
        }
        if (!model.hasGraph()) throw new ByodtException(file + " has no graph");
        return model;
    }

    /** Operator set version by domain, the default domain spelled "" whether the model says "" or "ai.onnx". */
    static Map<String, Long> opsetImports(ModelProto model) {
        Map<String, Long> versions = new LinkedHashMap<>();
        for (OperatorSetIdProto opset : model.getOpsetImportList()) {
            versions.put(normalizeDomain(opset.getDomain()), opset.getVersion());
        }
        return versions;
    }

    static String normalizeDomain(String domain) { return domain.equals("ai.onnx") ? "" : domain; }

    private static String firstSentence(String message) {
        if (message == null) return "unreadable protobuf";
        int end = message.indexOf(". ");
        return end < 0 ? message : message.substring(0, end);
    }
}
