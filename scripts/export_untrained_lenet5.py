#!/usr/bin/python3
"""Export the LeNet-5 of scripts/train_lenet5.py before any training: models/lenet5-fashion-untrained.onnx.

Its weights are PyTorch's default initialization under the same seed train_lenet5.py starts from, so it is
where that script's training begins; `byodt train` starts from it to train LeNet-5 in a datatype.

Usage: /usr/bin/python3 scripts/export_untrained_lenet5.py [--out FILE]
Requires the Debian packages python3-torch and python3-onnx.
"""

import argparse
from pathlib import Path

from train_lenet5 import SEED, LeNet5, export_onnx, seed_everything


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent.parent / "models/lenet5-fashion-untrained.onnx")
    args = parser.parse_args()
    seed_everything(SEED)
    export_onnx(LeNet5(), args.out)


if __name__ == "__main__":
    main()
