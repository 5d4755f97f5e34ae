#!/usr/bin/python3
"""Generate the ONNX backend node cases of byodt's activations, Hardmax and reductions with Debian's python3-onnx.

../shared/onnx-node holds only ReduceSumSquare's cases (in their opset 18 form), so byodt's tests keep the cases
this writes in compiler/src/test/resources/onnx-node-math: onnx 1.12's generators, their models (opset 13 for the
reductions, so the axes are attributes), seeded inputs and numpy reference outputs.

Left out: ReduceLogSumExp's cases, whose tensors are double, an element type byodt lacks. Not generated at all:
Mish and GroupNormalization came in opset 18, after onnx 1.12; byodt's tests cover them, and the opset 18 forms
of the reductions, by hand.

Usage: /usr/bin/python3 scripts/generate_math_node_cases.py OUT_DIR   (the cases go to OUT_DIR/node/)
"""

from generate_indexing_node_cases import generate_from_command_line

OP_TYPES = ["Softplus", "Softsign", "Celu", "ThresholdedRelu", "Hardmax", "ReduceMin", "ReduceProd", "ReduceL1",
            "ReduceL2", "ReduceSumSquare"]


if __name__ == "__main__":
    generate_from_command_line(OP_TYPES, [], __doc__)
