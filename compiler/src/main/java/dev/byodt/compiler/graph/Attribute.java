package dev.byodt.compiler.graph;

import dev.byodt.runtime.Tensor;

import java.util.List;

/** A node attribute, by ONNX kind. Graph-valued attributes (If, Loop bodies) are not supported. */
public sealed interface Attribute {
    record FloatAttr(float value) implements Attribute {}

    record IntAttr(long value) implements Attribute {}

    record StringAttr(String value) implements Attribute {}

    record TensorAttr(Tensor value) implements Attribute {}

    record FloatsAttr(float[] values) implements Attribute {}

    record IntsAttr(long[] values) implements Attribute {}

    record StringsAttr(List<String> values) implements Attribute {}

    /** An attribute kind byodt does not read (graphs, sparse tensors, type protos); kept to name it in errors. */
    record Unsupported(String kind) implements Attribute {}
}
