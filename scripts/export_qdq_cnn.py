#!/usr/bin/python3
"""Writes a tiny QDQ-quantized CNN (models/qdq-cnn.onnx), the layout ONNX Runtime's quantizer produces:
uint8 activations quantized and dequantized around each layer, int8 conv weights quantized per output
channel (axis 0), int8 dense weights per tensor, float biases. Seeded, so the file is the same every run.

    /usr/bin/python3 scripts/export_qdq_cnn.py [OUT]
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(13)


def quantized_weight(name, w, axis=None):
    """int8 weights with symmetric scales (per tensor, or per slice along axis) and their DequantizeLinear."""
    if axis is None:
        scale = np.array(np.abs(w).max() / 127, dtype=np.float32)
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        zero = np.array(0, dtype=np.int8)
    else:
        scale = (np.abs(w).reshape(w.shape[0], -1).max(axis=1) / 127).astype(np.float32)
        q = np.clip(np.round(w / scale.reshape(-1, *[1] * (w.ndim - 1))), -127, 127).astype(np.int8)
        zero = np.zeros(w.shape[0], dtype=np.int8)
    inits = [numpy_helper.from_array(q, name + "_q"), numpy_helper.from_array(scale, name + "_scale"),
             numpy_helper.from_array(zero, name + "_zero")]
    attrs = {} if axis is None else {"axis": axis}
    node = helper.make_node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zero"], [name], **attrs)
    return inits, [node]


def qdq(tensor, scale, zero):
    """Quantizes an activation to uint8 and back, as a QDQ export does between layers."""
    inits = [numpy_helper.from_array(np.array(scale, dtype=np.float32), tensor + "_act_scale"),
             numpy_helper.from_array(np.array(zero, dtype=np.uint8), tensor + "_act_zero")]
    nodes = [helper.make_node("QuantizeLinear", [tensor, tensor + "_act_scale", tensor + "_act_zero"], [tensor + "_q"]),
             helper.make_node("DequantizeLinear", [tensor + "_q", tensor + "_act_scale", tensor + "_act_zero"], [tensor + "_dq"])]
    return inits, nodes


def main(out):
    inits, nodes = [], []
    for part in [qdq("image", 1 / 255, 0),
                 quantized_weight("conv_w", rng.normal(0, 0.3, (4, 1, 3, 3)).astype(np.float32), axis=0)]:
        inits += part[0]
        nodes += part[1]
    inits.append(numpy_helper.from_array(rng.normal(0, 0.1, 4).astype(np.float32), "conv_b"))
    nodes.append(helper.make_node("Conv", ["image_dq", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Relu", ["conv"], ["relu"]))
    part = qdq("relu", 0.01, 0)
    inits += part[0]
    nodes += part[1]
    nodes.append(helper.make_node("MaxPool", ["relu_dq"], ["pool"], kernel_shape=[2, 2], strides=[2, 2]))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"]))
    part = quantized_weight("dense_w", rng.normal(0, 0.2, (64, 10)).astype(np.float32))
    inits += part[0]
    nodes += part[1]
    inits.append(numpy_helper.from_array(rng.normal(0, 0.1, 10).astype(np.float32), "dense_b"))
    nodes.append(helper.make_node("Gemm", ["flat", "dense_w", "dense_b"], ["dense"]))
    part = qdq("dense", 0.02, 128)
    inits += part[0]
    nodes += part[1]
    graph = helper.make_graph(nodes, "qdq_cnn",
                              [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 8, 8])],
                              [helper.make_tensor_value_info("dense_dq", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="byodt export_qdq_cnn.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models/qdq-cnn.onnx")
