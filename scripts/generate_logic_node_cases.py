#!/usr/bin/python3
"""Generate the ONNX backend node cases of byodt's comparison and logic operators with Debian's python3-onnx.

../shared/onnx-node holds none of them, so byodt's tests keep the cases this writes in
compiler/src/test/resources/onnx-node-logic: Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not, And, Or,
Xor, Where, IsNaN, IsInf, Sign, Mod and Dropout, each written by generate_recurrent_node_cases.py --op-type
(onnx 1.12's generators: its models, its seeded inputs, its numpy reference outputs). Their inputs are of
every element type byodt has (bool, 8- to 64-bit integers, float16, float32, double).

Left out: the _expanded cases of the *OrEqual operators (their function body is the same operators again) and
Dropout's training-mode cases (byodt compiles for inference; they draw random masks).

Usage: /usr/bin/python3 scripts/generate_logic_node_cases.py OUT_DIR   (the cases go to OUT_DIR/node/)
"""

from generate_indexing_node_cases import generate_from_command_line

OP_TYPES = ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Not", "And", "Or", "Xor", "Where",
            "IsNaN", "IsInf", "Sign", "Mod", "Dropout"]

LEFT_OUT = ["_expanded", "test_training_dropout"]

if __name__ == "__main__":
    generate_from_command_line(OP_TYPES, LEFT_OUT, __doc__)
