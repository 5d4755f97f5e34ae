#!/usr/bin/python3
"""Generate the ONNX backend node cases of byodt's quantized operators with Debian's python3-onnx.

../shared/onnx-node holds MatMulInteger's and ConvInteger's cases but none of QLinearMatMul, QLinearConv or
DynamicQuantizeLinear, so byodt's tests keep the cases this writes in compiler/src/test/resources/onnx-node-quantized:
onnx 1.12's generators, their models, their inputs and their expected outputs.

Usage: /usr/bin/python3 scripts/generate_quantized_node_cases.py OUT_DIR   (the cases go to OUT_DIR/node/)
"""

from generate_indexing_node_cases import generate_from_command_line

OP_TYPES = ["QLinearMatMul", "QLinearConv", "DynamicQuantizeLinear"]


if __name__ == "__main__":
    generate_from_command_line(OP_TYPES, [], __doc__)
