#!/usr/bin/python3
"""Export a small U-Net-style segmentation network with random weights, to exercise byodt's image operators.

    enc1  conv 3x3 (3->8) relu, conv 3x3 (8->8) relu            64x64
    enc2  maxpool 2, conv 3x3 (8->16) relu                      32x32
    mid   maxpool 2, conv 3x3 (16->32) relu                     16x16
    up2   ConvTranspose 2x2 stride 2 (32->16), concat enc2, conv 3x3 relu
    up1   bilinear Upsample x2 (Resize linear), conv 1x1 (16->8), concat enc1, conv 3x3 relu
    head  nearest Upsample x2 (Resize nearest) of a 1/2-size side branch, added; conv 1x1 (8->4 classes)

Nothing is trained: the weights come from a fixed seed, so the file is the same on every run and need not be
kept in the repository. Also writes N seeded random images as .npy for `byodt run --data`.

Usage: /usr/bin/python3 scripts/export_unet.py OUT_DIR [--opset 13] [--items 8] [--size 64]
Writes OUT_DIR/unet.onnx (input "image" [1,3,S,S], output "logits" [1,4,S,S]) and OUT_DIR/images.npy.
Requires the Debian packages python3-torch and python3-numpy.
"""

import argparse
import os

import numpy as np
import torch
from torch import nn


def conv(cin, cout, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=k // 2), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.enc1 = nn.Sequential(conv(3, 8), conv(8, 8))
        self.enc2 = conv(8, 16)
        self.mid = conv(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = conv(32, 16)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.reduce1 = nn.Conv2d(16, 8, 1)
        self.dec1 = conv(16, 8)
        self.side = nn.Conv2d(8, 8, 1)
        self.up_side = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, image):
        e1 = self.enc1(image)
        e2 = self.enc2(nn.functional.max_pool2d(e1, 2))
        m = self.mid(nn.functional.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        d1 = self.dec1(torch.cat([self.reduce1(self.upsample(d2, e1)), e1], 1))
        side = self.up_side(self.side(nn.functional.avg_pool2d(d1, 2)))
        return self.head(d1 + side)

    def upsample(self, d2, e1):
        """The decoder's features brought up to the first level's size (e1's); here bilinear x2."""
        return self.up1(d2)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--items", type=int, default=8)
    parser.add_argument("--size", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(20261126)
    model = UNet().eval()
    os.makedirs(args.out, exist_ok=True)
    example = torch.rand(1, 3, args.size, args.size)
    torch.onnx.export(model, example, os.path.join(args.out, "unet.onnx"), opset_version=args.opset,
                      input_names=["image"], output_names=["logits"])
    images = np.random.default_rng(20261126).random((args.items, 3, args.size, args.size), dtype=np.float32)
    np.save(os.path.join(args.out, "images.npy"), images)


if __name__ == "__main__":
    main()
