#!/usr/bin/python3
"""Generate the ONNX backend node cases of LSTM, GRU and RNN with the case generators of Debian's python3-onnx.

../shared/onnx-node holds none of them, so byodt's tests keep the 12 cases this writes (test_lstm_*,
test_gru_*, test_rnn_seq_length, test_simple_rnn_*) in compiler/src/test/resources/onnx-node-recurrent.
The models are those of onnx's test suite; the inputs are drawn by its generators (numpy's global random
state), the expected outputs computed by its numpy reference implementations.

Usage: /usr/bin/python3 scripts/generate_recurrent_node_cases.py OUT_DIR   (the cases go to OUT_DIR/node/)
"""

import subprocess
import sys

import numpy as np

# onnx 1.12 (Debian 12) still names numpy aliases that numpy 1.24 removed; they mean the builtins.
for alias, builtin in [("complex", complex), ("object", object), ("bool", bool), ("float", float), ("int", int)]:
    if alias not in np.__dict__:
        setattr(np, alias, builtin)

from onnx.backend.test import cmd_tools  # noqa: E402  (after the aliases it needs)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--op-type":
        # One operator per process: onnx collects its node cases once per process, for the first op_type asked.
        sys.argv = ["generate_recurrent_node_cases", "generate-data", "-o", sys.argv[3], "--op_type", sys.argv[2]]
        cmd_tools.main()
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    for op_type in ("LSTM", "GRU", "RNN"):
        subprocess.run([sys.executable, __file__, "--op-type", op_type, sys.argv[1]], check=True)


if __name__ == "__main__":
    main()
