package dev.byodt.runtime;

/** A tensor with the ONNX name it carries in a TensorProto file (empty when the file names none). */
public record NamedTensor(String name, Tensor tensor) {}
