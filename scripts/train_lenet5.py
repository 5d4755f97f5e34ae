#!/usr/bin/python3
"""Train LeNet-5 on Fashion-MNIST and export the model and sample data shipped in models/.

The architecture is the tanh/average-pooling LeNet-5 used in the PyTorch posit
papers (Deep PeNSieve / PositNN):

    conv1 6@5x5 pad 2 -> tanh -> avgpool 2
    conv2 16@5x5      -> tanh -> avgpool 2
    conv3 120@5x5     -> tanh            (120x1x1)
    flatten -> fc1 84 -> tanh -> fc2 10  (logits, no softmax)

Input pixels are float32 pixel/255 in [0, 1] with no mean/std normalization,
because that is exactly what the compiler's IDX data reader feeds the model.

Outputs (in --out, default: models/ next to this script's folder):
    lenet5-fashion.onnx                         opset 13, input "image" [batch,1,28,28], output "logits" [batch,10]
    lenet5-fashion.json                         accuracies and training metadata
    fashion-mnist-sample/t10k-images-idx3-ubyte first 1,000 test images (raw uint8 IDX)
    fashion-mnist-sample/t10k-labels-idx1-ubyte first 1,000 test labels (raw uint8 IDX)

Usage: /usr/bin/python3 scripts/train_lenet5.py [--data DIR] [--epochs N] [--out DIR]
Requires only the Debian packages python3-torch, python3-onnx and python3-numpy
(torchvision is not needed: the IDX files are parsed here).
"""

import argparse
import datetime
import gzip
import json
import random
import struct
import time
from pathlib import Path

import numpy as np
import onnx
import torch
from torch import nn

SEED = 20240601
BATCH_SIZE = 64
LEARNING_RATE = 1e-3
SAMPLE_SIZE = 1000

IDX_IMAGES_MAGIC = 0x00000803  # unsigned byte, 3 dimensions
IDX_LABELS_MAGIC = 0x00000801  # unsigned byte, 1 dimension


def read_idx(path):
    """Return the uint8 array stored in a (possibly gzipped) IDX file."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    if magic >> 8 != 0x08:  # only the unsigned-byte element type is used by MNIST-style files
        raise ValueError(f"{path}: unsupported IDX magic 0x{magic:08x}")
    ndim = magic & 0xFF
    shape = struct.unpack(f">{ndim}I", data[4:4 + 4 * ndim])
    array = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    return array.reshape(shape)


def write_idx(path, array, magic):
    """Write a uint8 array as an uncompressed big-endian IDX file."""
    assert array.dtype == np.uint8 and array.ndim == magic & 0xFF
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(array.tobytes())


def load_split(data_dir, prefix):
    """Load one split ("train" or "t10k") as raw uint8 images [N,28,28] and labels [N]."""
    images = read_idx(data_dir / f"{prefix}-images-idx3-ubyte.gz")
    labels = read_idx(data_dir / f"{prefix}-labels-idx1-ubyte.gz")
    assert images.shape[0] == labels.shape[0]
    return images, labels


def to_tensor(images):
    """uint8 [N,28,28] -> float32 [N,1,28,28] holding pixel/255 (no normalization, see module docstring)."""
    return torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)


def avg_pool():
    # No padding, so count_include_pad changes nothing numerically; leaving it at
    # the default True makes torch's exporter insert a no-op Pad before each AveragePool.
    return nn.AvgPool2d(kernel_size=2, stride=2, count_include_pad=False)


class LeNet5(nn.Module):
    """Tanh / average-pooling LeNet-5 for 1x28x28 inputs.

    Every layer is its own named module so the exported ONNX nodes get readable
    names (/conv1/Conv, /tanh1/Tanh, /pool1/AveragePool, ...).
    """

    def __init__(self):
        super().__init__()
        # Padding 2 turns the 28x28 input into the 32x32 field the original LeNet-5 expects.
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)
        self.tanh1 = nn.Tanh()
        self.pool1 = avg_pool()
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.tanh2 = nn.Tanh()
        self.pool2 = avg_pool()
        self.conv3 = nn.Conv2d(16, 120, kernel_size=5)
        self.tanh3 = nn.Tanh()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(120, 84)
        self.tanh4 = nn.Tanh()
        self.fc2 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool1(self.tanh1(self.conv1(x)))  # 6x14x14
        x = self.pool2(self.tanh2(self.conv2(x)))  # 16x5x5
        x = self.tanh3(self.conv3(x))              # 120x1x1
        x = self.flatten(x)
        x = self.tanh4(self.fc1(x))
        return self.fc2(x)


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)


def train(model, images, labels, epochs, optimizer, batch_size, seed, schedule=None):
    """Cross-entropy with a shuffle per epoch drawn from `seed`, the learning rate schedule stepped per batch;
    returns the wall time in seconds."""
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(seed)
    start = time.monotonic()
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(len(labels), generator=generator)
        total_loss = 0.0
        for i in range(0, len(order), batch_size):
            batch = order[i:i + batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(images[batch]), labels[batch])
            loss.backward()
            optimizer.step()
            if schedule is not None:
                schedule.step()
            total_loss += loss.item() * len(batch)
        print(f"epoch {epoch}/{epochs}: loss {total_loss / len(order):.4f} "
              f"({time.monotonic() - start:.0f} s)", flush=True)
    return time.monotonic() - start


@torch.no_grad()
def accuracy(model, images, labels):
    """Top-1 accuracy as a fraction."""
    model.eval()
    predictions = torch.cat([model(images[i:i + 1000]).argmax(1) for i in range(0, len(images), 1000)])
    return (predictions == labels).double().mean().item()


def export_onnx(model, path, opset=13):
    """Export with a dynamic batch dimension and check the result."""
    model.eval()
    torch.onnx.export(
        model, torch.zeros(1, 1, 28, 28), str(path),
        input_names=["image"], output_names=["logits"],
        dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=opset, do_constant_folding=True)
    exported = onnx.load(str(path))
    onnx.checker.check_model(exported, full_check=True)
    opset = next(o.version for o in exported.opset_import if o.domain in ("", "ai.onnx"))
    print(f"exported {path}: IR {exported.ir_version}, opset {opset}")
    for node in exported.graph.node:
        print(f"  {node.op_type:12} {node.name}")


def parse_arguments(description, default_epochs):
    """The --data, --epochs and --out options every training script in this folder takes."""
    script_dir = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=Path("/usr/share/datasets/fashion-mnist"),
                        help="folder with the gzipped Fashion-MNIST IDX files")
    parser.add_argument("--epochs", type=int, default=default_epochs)
    parser.add_argument("--out", type=Path, default=script_dir.parent / "models")
    return parser.parse_args()


def load_fashion_mnist(data_dir):
    """Raw uint8 test images and labels (for the shipped sample), then tensors x_train, y_train, x_test, y_test."""
    train_images, train_labels = load_split(data_dir, "train")
    test_images, test_labels = load_split(data_dir, "t10k")
    x_train, y_train = to_tensor(train_images), torch.from_numpy(train_labels.astype(np.int64))
    x_test, y_test = to_tensor(test_images), torch.from_numpy(test_labels.astype(np.int64))
    return test_images, test_labels, x_train, y_train, x_test, y_test


def write_metadata(path, model_file, test_acc, sample_acc, test_images, epochs, batch_size, optimizer, seed, **extra):
    """The JSON record next to a trained model; `byodt run` prints its accuracy as "recorded at training"."""
    metadata = {
        "model": model_file,
        "dataset": "Fashion-MNIST",
        "preprocessing": "pixel/255, no normalization",
        "float32_test_accuracy": round(test_acc, 4),
        "float32_sample_accuracy": round(sample_acc, 4),
        "test_images": test_images,
        "sample_images": SAMPLE_SIZE,
        "epochs": epochs,
        "batch_size": batch_size,
        "optimizer": optimizer,
        "seed": seed,
        "torch_version": torch.__version__,
        "trained": datetime.date.today().isoformat(),
        **extra,
    }
    with open(path, "w") as f:
        json.dump(metadata, f, indent=2)
        f.write("\n")


def main():
    args = parse_arguments(__doc__.splitlines()[0], default_epochs=10)
    seed_everything(SEED)
    torch.set_num_threads(2)
    test_images, test_labels, x_train, y_train, x_test, y_test = load_fashion_mnist(args.data)

    model = LeNet5()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    seconds = train(model, x_train, y_train, args.epochs, optimizer, BATCH_SIZE, SEED)
    test_acc = accuracy(model, x_test, y_test)
    sample_acc = accuracy(model, x_test[:SAMPLE_SIZE], y_test[:SAMPLE_SIZE])
    print(f"training time {seconds:.0f} s; float32 accuracy: test {test_acc:.4f}, "
          f"sample {sample_acc:.4f}")

    args.out.mkdir(parents=True, exist_ok=True)
    export_onnx(model, args.out / "lenet5-fashion.onnx")

    # The sample keeps the original uint8 pixels so the compiler reads exactly what torch saw.
    sample_dir = args.out / "fashion-mnist-sample"
    write_idx(sample_dir / "t10k-images-idx3-ubyte", test_images[:SAMPLE_SIZE], IDX_IMAGES_MAGIC)
    write_idx(sample_dir / "t10k-labels-idx1-ubyte", test_labels[:SAMPLE_SIZE], IDX_LABELS_MAGIC)

    write_metadata(args.out / "lenet5-fashion.json", "lenet5-fashion.onnx", test_acc, sample_acc, len(test_labels),
                   args.epochs, BATCH_SIZE, f"Adam lr={LEARNING_RATE}", SEED)


if __name__ == "__main__":
    main()
