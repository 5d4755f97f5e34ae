#!/usr/bin/python3
"""Export one small PyTorch model of each family users bring to byodt, with inputs and PyTorch's outputs.

Families (random weights under a fixed seed, nothing trained, each file well under 1 MB):

    vit            torchvision VisionTransformer (image 32, patch 8, 2 layers, 2 heads, width 32), [1,3,32,32]
    encoder        nn.TransformerEncoder (2 layers) over token ids whose padding mask (ids equal to 0) the graph
                   computes and passes as src_key_padding_mask; mean over the sequence, then 10 classes
    decoder        a GPT-style decoder: token and position embeddings, 2 blocks of causal self-attention whose
                   mask the graph builds (Range, Trilu, Where), logits [1,16,50] over a vocabulary of 50
    lstm, gru      the sequence classifiers of export_recurrent_classifiers.py, [1,24,12] -> [1,10]
    unet           export_unet.py's U-Net (ConvTranspose, skip connections) upsampling with each Resize PyTorch
                   emits (nearest, bilinear with and without align_corners, bicubic), [1,3,32,32] -> [1,4,32,32]
    yolo           a tiny-YOLO head: ZeroPad2d + MaxPool(2, stride 1), two scales (nearest upsample, concat),
                   sigmoid/exp box decode with grid offsets and anchors, [1,3,64,64] -> [1,240,9]
    qdq            a CNN quantized the way PyTorch's fake quantization exports (QuantizeLinear/DequantizeLinear:
                   uint8 activations, int8 conv weights per channel), [1,1,16,16] -> [1,10]

For each family NAME the folder gets NAME.onnx, NAME-input.npy (ITEMS items stacked on the first axis: float32
images or sequences, int64 token ids) and NAME-expected.npy (PyTorch's outputs for those items, stacked the same
way), so that

    scripts/byodt run DIR/NAME.onnx --data DIR/NAME-input.npy --dtype 'custom[posit]16' --reference onnxruntime

compares a datatype with float32 on them (add --class-axis 1 for unet, whose classes are on axis 1).

Usage: /usr/bin/python3 scripts/export_model_families.py OUT_DIR [--items N]
Requires the Debian packages python3-torch, python3-torchvision, python3-onnx and python3-numpy.
"""

import argparse
import math
import os
import sys

import numpy as np
import torch
import torchvision
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_recurrent_classifiers import FEATURES, STEPS, GruClassifier, LstmClassifier  # noqa: E402
from export_unet import UNet  # noqa: E402

SEED = 20261127
OPSET = 17
VOCAB, TOKENS, PAD = 50, 16, 0


def vision_transformer():
    model = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                                 mlp_dim=64, num_classes=10)
    # torchvision starts the classifier at zero (all logits 0 before training); random weights make them differ.
    nn.init.normal_(model.heads.head.weight, std=0.2)
    nn.init.normal_(model.heads.head.bias, std=0.2)
    return model


class PaddedEncoderClassifier(nn.Module):
    """Token ids -> embedding -> nn.TransformerEncoder with the padding mask -> mean over real tokens -> classes."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 10)

    def forward(self, tokens):
        padding = tokens == PAD
        x = self.encoder(self.embed(tokens), src_key_padding_mask=padding)
        keep = (~padding).unsqueeze(-1).float()
        return self.head((x * keep).sum(1) / keep.sum(1))


class CausalBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        batch, steps, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(width, dim=2)
        q, k, v = (t.reshape(batch, steps, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(width // self.heads)
        causal = torch.tril(torch.ones(steps, steps, dtype=torch.bool, device=x.device))
        scores = scores.masked_fill(~causal, float("-inf"))
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, steps, width)
        x = x + self.proj(attended)
        return x + self.mlp(self.norm2(x))


class Decoder(nn.Module):
    """GPT-style: the causal mask is built in the graph from the sequence length, not stored."""

    def __init__(self, width=32, heads=4, blocks=2):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(VOCAB, width), nn.Embedding(TOKENS, width)
        self.blocks = nn.Sequential(*[CausalBlock(width, heads) for _ in range(blocks)])
        self.norm, self.head = nn.LayerNorm(width), nn.Linear(width, VOCAB)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.tokens(tokens) + self.positions(positions)
        return self.head(self.norm(self.blocks(x)))


class ResizeModesUNet(UNet):
    """export_unet.py's U-Net, upsampling by the sum of the other Resize modes PyTorch emits beside its bilinear."""

    def upsample(self, d2, e1):
        up = self.up1(d2)
        up = up + nn.functional.interpolate(d2, size=e1.shape[2:], mode="bilinear", align_corners=True)
        return up + nn.functional.interpolate(d2, scale_factor=2, mode="bicubic", align_corners=False)


def leaky(cin, cout, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=k // 2), nn.LeakyReLU(0.1))


class YoloHead(nn.Module):
    """tiny-YOLOv3 in miniature: its ZeroPad2d + MaxPool(2, stride 1), two detection scales, the usual decode."""

    ANCHORS = ((10, 14), (23, 27), (37, 58), (81, 82), (135, 169), (344, 319))
    CLASSES = 4

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(leaky(3, 8), nn.MaxPool2d(2, 2), leaky(8, 16), nn.MaxPool2d(2, 2), leaky(16, 16),
                                  nn.MaxPool2d(2, 2))
        self.deep = nn.Sequential(leaky(16, 32), nn.MaxPool2d(2, 2), leaky(32, 32), nn.ZeroPad2d((0, 1, 0, 1)),
                                  nn.MaxPool2d(2, 1), leaky(32, 32))
        outputs = 3 * (5 + self.CLASSES)
        self.coarse = nn.Conv2d(32, outputs, 1)
        self.lateral = leaky(32, 16, 1)
        self.fine = nn.Sequential(leaky(32, 16), nn.Conv2d(16, outputs, 1))

    def decode(self, raw, anchors, stride):
        batch, _, rows, cols = raw.shape
        p = raw.reshape(batch, 3, 5 + self.CLASSES, rows, cols).permute(0, 1, 3, 4, 2)
        ys, xs = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
        grid = torch.stack([xs, ys], -1).reshape(1, 1, rows, cols, 2).float()
        sizes = torch.tensor(anchors, dtype=torch.float32).reshape(1, 3, 1, 1, 2)
        xy = (p[..., 0:2].sigmoid() + grid) * stride
        wh = p[..., 2:4].exp() * sizes
        scores = p[..., 4:].sigmoid()
        return torch.cat([xy, wh, scores], -1).reshape(batch, -1, 5 + self.CLASSES)

    def forward(self, image):
        shallow = self.stem(image)
        deep = self.deep(shallow)
        up = nn.functional.interpolate(self.lateral(deep), scale_factor=2, mode="nearest")
        fine = self.fine(torch.cat([up, shallow], 1))
        return torch.cat([self.decode(self.coarse(deep), self.ANCHORS[3:], 16),
                          self.decode(fine, self.ANCHORS[:3], 8)], 1)


class QuantizedCnn(nn.Module):
    """Fake-quantized as quantization-aware training leaves a model: uint8 activations, int8 weights per channel."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    @staticmethod
    def activation(x, scale, zero=0):
        return torch.fake_quantize_per_tensor_affine(x, scale, zero, 0, 255)

    @staticmethod
    def weight(w):
        scale = (w.abs().reshape(w.shape[0], -1).amax(1) / 127).detach()
        return torch.fake_quantize_per_channel_affine(w, scale, torch.zeros(w.shape[0], dtype=torch.int32), 0, -128, 127)

    def forward(self, image):
        x = self.activation(image, 1 / 255)
        x = nn.functional.conv2d(x, self.weight(self.conv1.weight), self.conv1.bias, padding=1)
        x = self.activation(nn.functional.max_pool2d(torch.relu(x), 2), 0.01)
        x = nn.functional.conv2d(x, self.weight(self.conv2.weight), self.conv2.bias, padding=1)
        x = self.activation(nn.functional.max_pool2d(torch.relu(x), 2), 0.02)
        x = nn.functional.linear(x.flatten(1), self.weight(self.fc.weight), self.fc.bias)
        return self.activation(x, 0.05, 128)


def images(rng, items, shape):
    return torch.from_numpy(rng.random((items, *shape), dtype=np.float32))


def token_ids(rng, items, padded):
    """Ids in 1..VOCAB-1; with padded, each item ends in a run of PAD (0) of its own length, at least one real id."""
    ids = rng.integers(1, VOCAB, (items, TOKENS))
    if padded:
        for item in range(items):
            ids[item, rng.integers(1, TOKENS):] = PAD
    return torch.from_numpy(ids.astype(np.int64))


def families(rng, items):
    """name -> (model, inputs [items, ...], the input's and the output's names)."""
    sequences = torch.from_numpy(rng.standard_normal((items, STEPS, FEATURES), dtype=np.float32))
    return {
        "vit": (vision_transformer(), images(rng, items, (3, 32, 32)), "image", "logits"),
        "encoder": (PaddedEncoderClassifier(), token_ids(rng, items, True), "input_ids", "logits"),
        "decoder": (Decoder(), token_ids(rng, items, False), "input_ids", "logits"),
        "lstm": (LstmClassifier(), sequences, "sequence", "logits"),
        "gru": (GruClassifier(), sequences, "sequence", "logits"),
        "unet": (ResizeModesUNet(), images(rng, items, (3, 32, 32)), "image", "logits"),
        "yolo": (YoloHead(), images(rng, items, (3, 64, 64)), "image", "detections"),
        "qdq": (QuantizedCnn(), images(rng, items, (1, 16, 16)), "image", "logits"),
    }


def export(name, model, inputs, input_name, output_name, out):
    """Writes the model for one item; the decoder's sequence length stays symbolic, as a language model's does."""
    model.eval()
    dynamic = {input_name: {1: "sequence"}, output_name: {1: "sequence"}} if name == "decoder" else None
    # With gradients on, attention takes its composite path, which the exporter knows, rather than the fused
    # inference kernel (aten::_native_multi_head_attention), which it does not; the reference takes the same path.
    torch.onnx.export(model, inputs[:1], os.path.join(out, name + ".onnx"), opset_version=OPSET,
                      input_names=[input_name], output_names=[output_name], dynamic_axes=dynamic)
    expected = torch.cat([model(inputs[i:i + 1]).detach() for i in range(len(inputs))])
    np.save(os.path.join(out, name + "-input.npy"), inputs.numpy())
    np.save(os.path.join(out, name + "-expected.npy"), expected.numpy())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="folder to write into")
    parser.add_argument("--items", type=int, default=8, help="items per family (default: 8)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    for name, (model, inputs, input_name, output_name) in families(rng, args.items).items():
        export(name, model, inputs, input_name, output_name, args.out)
        print("wrote " + name + ".onnx, " + name + "-input.npy and " + name + "-expected.npy")


if __name__ == "__main__":
    main()
