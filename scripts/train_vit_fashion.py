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
whose Fashion-MNIST reading and evaluation this script reuses).

Outputs (in --out, default: models/ next to this script's folder):
    vit-fashion.onnx   opset 17, input "image" [batch,1,28,28], output "logits" [batch,10]
    vit-fashion.json   accuracies and training metadata

Usage: /usr/bin/python3 scripts/train_vit_fashion.py [--data DIR] [--epochs N] [--out DIR]
Requires only the Debian packages python3-torch, python3-onnx and python3-numpy.
"""

import datetime
import json
import math

import onnx
import torch
from torch import nn

from train_lenet5 import SAMPLE_SIZE, accuracy, load_fashion_mnist, parse_arguments, seed_everything

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


def train(model, images, labels, epochs):
    """AdamW with one-cycle learning rate and a fixed-seed shuffle per epoch."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK_LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    steps_per_epoch = math.ceil(len(labels) / BATCH_SIZE)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=PEAK_LEARNING_RATE, total_steps=epochs * steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(SEED)
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(len(labels), generator=generator)
        total_loss = 0.0
        for i in range(0, len(order), BATCH_SIZE):
            batch = order[i:i + BATCH_SIZE]
            optimizer.zero_grad()
            loss = loss_fn(model(images[batch]), labels[batch])
            loss.backward()
            optimizer.step()
            schedule.step()
            total_loss += loss.item() * len(batch)
        print(f"epoch {epoch}/{epochs}: loss {total_loss / len(order):.4f}", flush=True)


def export_onnx(model, path):
    """Export with a dynamic batch dimension and check the result."""
    model.eval()
    torch.onnx.export(
        model, torch.zeros(1, 1, 28, 28), str(path),
        input_names=["image"], output_names=["logits"],
        dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=OPSET, do_constant_folding=True)
    exported = onnx.load(str(path))
    onnx.checker.check_model(exported, full_check=True)
    ops = sorted({node.op_type for node in exported.graph.node})
    print(f"exported {path}: IR {exported.ir_version}, opset {OPSET}, "
          f"{len(exported.graph.node)} nodes: {' '.join(ops)}")


def main():
    args = parse_arguments(__doc__.splitlines()[0], default_epochs=1)
    seed_everything(SEED)
    torch.set_num_threads(2)
    _, test_labels, x_train, y_train, x_test, y_test = load_fashion_mnist(args.data)

    model = VisionTransformer()
    parameters = sum(p.numel() for p in model.parameters())
    print(f"{parameters} parameters")
    train(model, x_train, y_train, args.epochs)
    test_acc = accuracy(model, x_test, y_test)
    sample_acc = accuracy(model, x_test[:SAMPLE_SIZE], y_test[:SAMPLE_SIZE])
    print(f"float32 accuracy: test {test_acc:.4f}, sample {sample_acc:.4f}")

    args.out.mkdir(parents=True, exist_ok=True)
    export_onnx(model, args.out / "vit-fashion.onnx")
    metadata = {
        "model": "vit-fashion.onnx",
        "dataset": "Fashion-MNIST",
        "preprocessing": "pixel/255, no normalization",
        "parameters": parameters,
        "float32_test_accuracy": round(test_acc, 4),
        "float32_sample_accuracy": round(sample_acc, 4),
        "test_images": len(test_labels),
        "sample_images": SAMPLE_SIZE,
        "epochs": args.epochs,
        "batch_size": BATCH_SIZE,
        "optimizer": f"AdamW one-cycle peak lr={PEAK_LEARNING_RATE} weight_decay={WEIGHT_DECAY}",
        "seed": SEED,
        "torch_version": torch.__version__,
        "trained": datetime.date.today().isoformat(),
    }
    with open(args.out / "vit-fashion.json", "w") as f:
        json.dump(metadata, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
