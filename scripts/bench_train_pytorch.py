#!/usr/bin/python3
"""Time PyTorch training LeNet-5 on one CPU thread, the run `scripts/bench train` sets byodt's against.

The same model and weights (an ONNX export of scripts/train_lenet5.py's LeNet-5, whose initializers are loaded by
name), the first STEPS x BATCH Fashion-MNIST training images in file order, pixel/255, Adam with PyTorch's
defaults (lr 0.001) and cross-entropy: what `byodt train MODEL --optimizer adam --limit STEPS*BATCH` does. Prints
one line: the steps' wall time (the loop over batches: slicing, forward, loss, backward, update), images per
second and the mean loss, which byodt's float32 run should match to about four digits.

Usage: /usr/bin/python3 scripts/bench_train_pytorch.py MODEL.onnx --steps N [--batch 32] [--data DIR]
Requires the Debian packages python3-torch and python3-onnx.
"""

import argparse
import time
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from train_lenet5 import LeNet5, load_split, to_tensor


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--data", type=Path, default=Path("/usr/share/datasets/fashion-mnist"))
    args = parser.parse_args()
    torch.set_num_threads(1)

    model = LeNet5()
    weights = {w.name: torch.from_numpy(numpy_helper.to_array(w).copy()) for w in onnx.load(args.model).graph.initializer}
    model.load_state_dict(weights)
    images, labels = load_split(args.data, "train")
    count = args.steps * args.batch
    x, y = to_tensor(images[:count]), torch.from_numpy(labels[:count].astype(np.int64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_function = torch.nn.CrossEntropyLoss()

    loss_sum = 0.0
    start = time.perf_counter()
    for step in range(args.steps):
        batch = slice(step * args.batch, (step + 1) * args.batch)
        optimizer.zero_grad()
        loss = loss_function(model(x[batch]), y[batch])
        loss.backward()
        optimizer.step()
        loss_sum += loss.item()
    seconds = time.perf_counter() - start
    print(f"pytorch {torch.__version__}, 1 thread: {args.steps} steps in {seconds:.3f} s, "
          f"{count / seconds:.0f} img/s, mean loss {loss_sum / args.steps:.4f}")


if __name__ == "__main__":
    main()
