#!/usr/bin/python3
"""Export a PyTorch nn.TransformerEncoder with random weights, to measure how byodt's compile time grows with
the number of nodes (scripts/bench).

    embed   Linear 16 -> 64 over 32 positions
    layers  N x TransformerEncoderLayer(d_model 64, 4 heads, feed-forward 128, ReLU, post-norm)
    head    mean over positions, Linear 64 -> 10

Each layer adds about 60 ONNX nodes at opset 17 (6 layers: about 370 nodes, 8: about 490). Nothing is trained:
the weights come from a fixed seed, so the file is the same on every run and need not be kept in the repository.

Usage: /usr/bin/python3 scripts/export_transformer_encoder.py OUT.onnx [--layers 6]
Prints the number of nodes in the exported graph. Requires the Debian packages python3-torch and python3-onnx.
"""

import argparse

import onnx
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.embed = nn.Linear(16, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)).mean(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=6)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Encoder(args.layers).eval()
    torch.onnx.export(model, torch.randn(1, 32, 16), args.out, opset_version=17,
                      input_names=["tokens"], output_names=["logits"])
    print(len(onnx.load(args.out).graph.node))


if __name__ == "__main__":
    main()
