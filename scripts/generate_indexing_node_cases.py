#!/usr/bin/python3
"""Generate the ONNX backend node cases of byodt's shape and indexing operators with Debian's python3-onnx.

../shared/onnx-node holds only a few of them, so byodt's tests keep the cases this writes in
compiler/src/test/resources/onnx-node-indexing. Each operator's cases are written by
generate_recurrent_node_cases.py --op-type (onnx 1.12's generators: its models, its seeded inputs, its numpy
reference outputs); cases byodt cannot run for want of an element type or operator are left out, as listed.

Usage: /usr/bin/python3 scripts/generate_indexing_node_cases.py OUT_DIR   (the cases go to OUT_DIR/node/)
"""

import os
import shutil
import subprocess
import sys

OP_TYPES = ["Expand", "Range", "Trilu", "Tile", "ArgMax", "ArgMin", "GatherElements", "GatherND", "TopK",
            "Scatter", "ScatterElements", "ScatterND", "DepthToSpace", "SpaceToDepth", "CumSum", "Einsum", "CastLike"]

# Left out: the _expanded Range cases need Loop, and test_range_float_type_positive_delta feeds its
# length-deciding float scalars at run time (only integer inputs are bound at compile time). CastLike's string
# cases have no byodt type, and onnx 1.12 writes its bfloat16 test data as uint16 tensors (the newer cases in
# ../shared/onnx-node hold bfloat16 and pass). Not generated at all: NonZero's input is bool, fed at run time,
# and OneHot's depth is a float32 input fed at run time; byodt's tests cover these operators by hand.
LEFT_OUT = ["_expanded", "test_range_float_type_positive_delta", "STRING", "BFLOAT16"]


def generate(op_types, left_out, out_dir):
    """Writes the node cases of each op_type to OUT_DIR/node/, then removes those whose name has a left_out part."""
    generator = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generate_recurrent_node_cases.py")
    for op_type in op_types:
        subprocess.run([sys.executable, generator, "--op-type", op_type, out_dir], check=True)
    node = os.path.join(out_dir, "node")
    for case in os.listdir(node):
        if any(part in case for part in left_out):
            shutil.rmtree(os.path.join(node, case))


def generate_from_command_line(op_types, left_out, doc):
    """What each generator script does when run: OUT_DIR is its one argument, else the usage line ending doc is printed."""
    if len(sys.argv) != 2:
        sys.exit(doc.strip().splitlines()[-1])
    generate(op_types, left_out, sys.argv[1])


if __name__ == "__main__":
    generate_from_command_line(OP_TYPES, LEFT_OUT, __doc__)
