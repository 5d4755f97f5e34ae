#!/usr/bin/python3
"""Train a small vision transformer on Fashion-MNIST and export models/vit-fashion.onnx.

Architecture (pre-norm ViT, 41,770 parameters):

    Conv 1->48, kernel 7, stride 7          16 patch tokens of width 48
    Concat a learned class token             17 tokens
    Add learned position embeddings
    2 x encoder layer:
        x = x + Attention(LayerNorm(x))      4 heads of width 12, written out with
                                             MatMul/Softmax so the graph holds only
                                             plain ONNX operators
        x = x + MLP(LayerNorm(x))            Linear 48->96, GELU (Erf), Linear 96->48
    LayerNorm, class token -> Linear 48->10  logits, no softmax

Input pixels are float32 pixel/255 in [0, 1] with no normalization, exactly what the
compiler's IDX data reader feeds the model (the same convention as train_lenet5.py,
whose data loading, training loop, evaluation, export and metadata this script reuses).

Outputs (in --out, default: models/ next to this script's folder):
    vit-fashion.onnx   opset 17, input "image" [batch,1,28,28], output "logits" [batch,10]
    vit-fashion.json   accuracies and training metadata

Usage: /usr/bin/python3 scripts/train_vit_fashion.py [--data DIR] [--epochs N] [--out DIR]
Requires only the Debian packages python3-torch, python3-onnx and python3-numpy.
"""

import math

import torch
from torch import nn

from train_lenet5 import (SAMPLE_SIZE, accuracy, export_onnx, load_fashion_mnist, parse_arguments, seed_everything,
                          train, write_metadata)

SEED = 20261127
BATCH_SIZE = 256
PEAK_LEARNING_RATE = 3e-3
WEIGHT_DECAY = 0.05
PATCH = 7
TOKENS = (28 // PATCH) ** 2 + 1  # 16 patches and the class token
DIM = 48
HEADS = 4
HEAD_DIM = DIM // HEADS
MLP_DIM = 2 * DIM
LAYERS = 2
# LayerNormalization (opset 17) keeps each norm one node instead of a dozen.
OPSET = 17


class Attention(nn.Module):
    """Multi-head self-attention with reshapes whose only free dimension is the batch.

    Every reshape target is a constant with -1 in the batch place, so the export needs
    no Shape/Gather arithmetic and the batch dimension stays dynamic.
    """

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)

    def forward(self, x):
        qkv = self.qkv(x).reshape(-1, TOKENS, 3, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]                                 # [batch, heads, tokens, head_dim]
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(HEAD_DIM))
        mixed = scores.softmax(dim=-1) @ v
        return self.proj(mixed.transpose(1, 2).reshape(-1, TOKENS, DIM))


class EncoderLayer(nn.Module):
    """Pre-norm transformer encoder layer."""

    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(DIM)
        self.attn = Attention()
        self.norm2 = nn.LayerNorm(DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, MLP_DIM), nn.GELU(), nn.Linear(MLP_DIM, DIM))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(1, DIM, kernel_size=PATCH, stride=PATCH)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.randn(1, TOKENS, DIM) * 0.02)
        self.layers = nn.Sequential(*[EncoderLayer() for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, 10)

    def forward(self, image):
        patches = self.patch_embed(image).flatten(2).transpose(1, 2)       # [batch, 16, DIM]
        cls = self.cls_token.expand(patches.shape[0], -1, -1)
        x = torch.cat([cls, patches], dim=1) + self.pos_embed
        x = self.norm(self.layers(x))
        return self.head(x[:, 0])


def one_cycle_adamw(model, epochs, train_size):
    """AdamW whose learning rate rises to its peak and anneals over the whole run, stepped per batch."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK_LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=PEAK_LEARNING_RATE, total_steps=epochs * math.ceil(train_size / BATCH_SIZE))
    return optimizer, schedule


def main():
    args = parse_arguments(__doc__.splitlines()[0], default_epochs=1)
    seed_everything(SEED)
    torch.set_num_threads(2)
    _, test_labels, x_train, y_train, x_test, y_test = load_fashion_mnist(args.data)

    model = VisionTransformer()
    parameters = sum(p.numel() for p in model.parameters())
    print(f"{parameters} parameters")
    optimizer, schedule = one_cycle_adamw(model, args.epochs, len(y_train))
    seconds = train(model, x_train, y_train, args.epochs, optimizer, BATCH_SIZE, SEED, schedule)
    test_acc = accuracy(model, x_test, y_test)
    sample_acc = accuracy(model, x_test[:SAMPLE_SIZE], y_test[:SAMPLE_SIZE])
    print(f"training time {seconds:.0f} s; float32 accuracy: test {test_acc:.4f}, sample {sample_acc:.4f}")

    args.out.mkdir(parents=True, exist_ok=True)
    export_onnx(model, args.out / "vit-fashion.onnx", OPSET)
    write_metadata(args.out / "vit-fashion.json", "vit-fashion.onnx", test_acc, sample_acc, len(test_labels),
                   args.epochs, BATCH_SIZE,
                   f"AdamW one-cycle peak lr={PEAK_LEARNING_RATE} weight_decay={WEIGHT_DECAY}", SEED,
                   parameters=parameters)


if __name__ == "__main__":
    main()
