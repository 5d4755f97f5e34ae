#!/usr/bin/python3
"""Export an LSTM and a GRU sequence classifier with random weights, and sequences to run them on.

They exercise byodt's recurrent operators the way PyTorch exports them (torch.onnx, opset 14):

    lstm-classifier.onnx  input "sequence" [batch, 24, 12] -> 2-layer bidirectional LSTM (hidden 32)
                          -> last step -> Linear 64->10 -> "logits" [batch, 10]
    gru-classifier.onnx   input "sequence" [batch, 24, 12] -> 1-layer GRU (hidden 48)
                          -> last step -> Linear 48->10 -> "logits" [batch, 10]
    sequences.npy         200 sequences [200, 24, 12] float32, standard normal

The weights are PyTorch's default initialisation under a fixed seed, so the files are the same on
every run; nothing is trained. They are made here rather than committed.

Usage: /usr/bin/python3 scripts/export_recurrent_classifiers.py --out DIR
Then, for example:
    scripts/byodt run DIR/lstm-classifier.onnx --data DIR/sequences.npy --dtype custom[posit]16
Requires the Debian packages python3-torch, python3-onnx and python3-numpy.
"""

import argparse
import os

import numpy as np
import torch
from torch import nn

STEPS, FEATURES, CLASSES, ITEMS = 24, 12, 10, 200


class LstmClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(FEATURES, 32, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(64, CLASSES)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y[:, -1, :])


class GruClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(FEATURES, 48, batch_first=True)
        self.fc = nn.Linear(48, CLASSES)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y[:, -1, :])


def export(model, path):
    model.eval()
    example = torch.zeros(1, STEPS, FEATURES)
    torch.onnx.export(model, example, path, opset_version=14, input_names=["sequence"], output_names=["logits"],
                      dynamic_axes={"sequence": {0: "batch"}, "logits": {0: "batch"}})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write into")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(20261126)
    export(LstmClassifier(), os.path.join(args.out, "lstm-classifier.onnx"))
    export(GruClassifier(), os.path.join(args.out, "gru-classifier.onnx"))
    sequences = torch.randn(ITEMS, STEPS, FEATURES).numpy().astype(np.float32)
    np.save(os.path.join(args.out, "sequences.npy"), sequences)
    print("wrote lstm-classifier.onnx, gru-classifier.onnx and sequences.npy to " + args.out)


if __name__ == "__main__":
    main()
