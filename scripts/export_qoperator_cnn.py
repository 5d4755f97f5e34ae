#!/usr/bin/python3
"""Writes a tiny QOperator-quantized CNN (models/qoperator-cnn.onnx), the layout ONNX Runtime's quantizer
produces in QOperator format: the float image quantized to uint8 once, then QLinearConv (int8 weights with
per-output-channel scales, int32 bias, padding and stride 2) and QLinearMatMul (uint8 weights) on the integers,
and the result dequantized ("dense"). Beside it, the dynamic quantization of a dense layer as ONNX Runtime's
quantize_dynamic writes it, DynamicQuantizeLinear then MatMulInteger, its int32 product scaled back to reals
("dynamic"), and a ConvInteger of the quantized image with asymmetric padding, cast to float ("conv_integer").
Seeded, so the file is the same every run.

    /usr/bin/python3 scripts/export_qoperator_cnn.py [OUT]
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(13)

IMAGE_SCALE = 1 / 255
CONV_SCALE, CONV_ZERO = 0.01, 5
DENSE_SCALE, DENSE_ZERO = 0.05, 100


def constant(name, value, dtype):
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def main(out):
    conv_w = rng.normal(0, 0.3, (4, 1, 3, 3)).astype(np.float32)
    conv_w_scale = (np.abs(conv_w).reshape(4, -1).max(axis=1) / 127).astype(np.float32)
    conv_w_q = np.clip(np.round(conv_w / conv_w_scale.reshape(4, 1, 1, 1)), -127, 127).astype(np.int8)
    conv_b = rng.normal(0, 0.1, 4).astype(np.float32)
    conv_b_q = np.round(conv_b / (np.float32(IMAGE_SCALE) * conv_w_scale)).astype(np.int32)
    dense_w_q = rng.integers(0, 256, (64, 10)).astype(np.uint8)
    dynamic_w_q = rng.integers(0, 256, (64, 6)).astype(np.uint8)
    inits = [
        constant("image_scale", IMAGE_SCALE, np.float32), constant("image_zero", 0, np.uint8),
        numpy_helper.from_array(conv_w_q, "conv_w"), numpy_helper.from_array(conv_w_scale, "conv_w_scale"),
        constant("conv_w_zero", np.zeros(4), np.int8), numpy_helper.from_array(conv_b_q, "conv_b"),
        constant("conv_scale", CONV_SCALE, np.float32), constant("conv_zero", CONV_ZERO, np.uint8),
        constant("flat_shape", [1, 64], np.int64),
        numpy_helper.from_array(dense_w_q, "dense_w"), constant("dense_w_scale", 0.004, np.float32),
        constant("dense_w_zero", 128, np.uint8),
        constant("dense_scale", DENSE_SCALE, np.float32), constant("dense_zero", DENSE_ZERO, np.uint8),
        numpy_helper.from_array(dynamic_w_q, "dynamic_w"), constant("dynamic_w_scale", 0.003, np.float32),
        constant("dynamic_w_zero", 120, np.uint8),
        numpy_helper.from_array(rng.integers(0, 256, (2, 1, 2, 2)).astype(np.uint8), "integer_w"),
        constant("integer_w_zero", 3, np.uint8),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["image", "image_scale", "image_zero"], ["image_q"]),
        helper.make_node("QLinearConv", ["image_q", "image_scale", "image_zero", "conv_w", "conv_w_scale", "conv_w_zero",
                                         "conv_scale", "conv_zero", "conv_b"], ["conv_q"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Reshape", ["conv_q", "flat_shape"], ["flat_q"]),
        helper.make_node("QLinearMatMul", ["flat_q", "conv_scale", "conv_zero", "dense_w", "dense_w_scale", "dense_w_zero",
                                           "dense_scale", "dense_zero"], ["dense_q"]),
        helper.make_node("DequantizeLinear", ["dense_q", "dense_scale", "dense_zero"], ["dense"]),
        helper.make_node("Reshape", ["image", "flat_shape"], ["image_flat"]),
        helper.make_node("DynamicQuantizeLinear", ["image_flat"], ["dynamic_x", "dynamic_x_scale", "dynamic_x_zero"]),
        helper.make_node("MatMulInteger", ["dynamic_x", "dynamic_w", "dynamic_x_zero", "dynamic_w_zero"], ["dynamic_int"]),
        helper.make_node("Cast", ["dynamic_int"], ["dynamic_real"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["dynamic_x_scale", "dynamic_w_scale"], ["dynamic_scale"]),
        helper.make_node("Mul", ["dynamic_real", "dynamic_scale"], ["dynamic"]),
        helper.make_node("ConvInteger", ["image_q", "integer_w", "image_zero", "integer_w_zero"], ["integer_int"],
                         pads=[1, 0, 0, 1]),
        helper.make_node("Cast", ["integer_int"], ["conv_integer"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(nodes, "qoperator_cnn",
                              [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 1, 8, 8])],
                              [helper.make_tensor_value_info("dense", TensorProto.FLOAT, [1, 10]),
                               helper.make_tensor_value_info("dynamic", TensorProto.FLOAT, [1, 6]),
                               helper.make_tensor_value_info("conv_integer", TensorProto.FLOAT, [1, 2, 8, 8])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="byodt export_qoperator_cnn.py")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "models/qoperator-cnn.onnx")
