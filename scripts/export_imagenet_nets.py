#!/usr/bin/python3
"""Export the ImageNet-sized torchvision nets that `scripts/bench imagenet` times, with random weights.

Nets (torchvision's own definitions, 1000 classes, input [1,3,224,224] with a symbolic batch dimension, weights
drawn under a fixed seed, batch normalization statistics left at their initial values, nothing trained):

    resnet18, resnet50, mobilenet_v2, mobilenet_v3_small, efficientnet_b0, regnet_x_400mf, densenet121, vit_b_32

MobileNetV3 is the small one (the issue's 0.22x was measured on it). The ViT is vit_b_32, not vit_b_16: both are
ViT-Base (12 layers, width 768, the same 88 million weights); 32-pixel patches make 50 tokens instead of 197, so
its 4.4 billion multiply-adds per image are a quarter of vit_b_16's and a batch of 16 takes seconds, not minutes,
on two cores, while the kernels (MatMul over [tokens, 768] x [768, 3072], attention, LayerNorm) are the same.

Each NAME.onnx is written only when it is missing (the folder is a cache; delete a file to export it again).
Prints the path of each file.

Usage: /usr/bin/python3 scripts/export_imagenet_nets.py OUT_DIR [NAME...]
Requires the Debian packages python3-torch, python3-torchvision and python3-onnx.
"""

import torch
import torchvision

from model_cache import export_missing

SEED = 20261127
OPSET = 17
NETS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "regnet_x_400mf",
        "densenet121", "vit_b_32"]


def export(name, path):
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, name)(weights=None).eval()
    if name.startswith("vit"):
        # torchvision starts the classifier at zero (all logits 0); random weights make the outputs differ.
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    image = torch.randn(1, 3, 224, 224)
    torch.onnx.export(model, image, path, opset_version=OPSET, input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    export_missing(__doc__.splitlines()[0], "net", NETS, export)
