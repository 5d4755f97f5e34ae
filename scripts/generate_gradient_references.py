#!/usr/bin/python3
"""Reference gradients and a reference training run from PyTorch, for byodt's training tests.

Writes compiler/src/test/resources/gradients/:

    CASE/model.onnx     one ONNX node whose real-valued tensors are all graph inputs
    CASE/NAME.pb        the value of input NAME
    CASE/dY.pb          the gradient of the loss with respect to the node's output
    CASE/grad_NAME.pb   PyTorch autograd's gradient with respect to tensor NAME

(BatchNormalization's cases, in training mode, are of random shapes and keep the running statistics as
initializers: they are not differentiated)

and compiler/src/test/resources/training/:

    small-cnn.onnx      a small tanh/average-pool CNN with its initial weights (opset 13)
    sgd-losses.txt      PyTorch's float32 loss at each step of plain SGD (lr 0.05, batch 4) on the first
                        400 images of models/fashion-mnist-sample, in file order (100 steps)
    adam-losses.txt     the same with Adam (lr 0.001)
    bn-cnn.onnx         a small tanh CNN with BatchNorm2d and BatchNorm1d, exported in inference mode (opset 15)
                        with its initial weights and running statistics (tanh, not ReLU: the images' flat
                        background normalizes to one value per channel, and where that value crosses zero a
                        ReLU flips hundreds of gradients at once on a rounding difference)
    bn-sgd-losses.txt   PyTorch's float32 loss at each step of SGD (lr 0.01, batch 8) of bn-cnn in train() on
                        the first 400 sample images (50 steps; at lr 0.05 PyTorch's own float32 and float64
                        runs part by more than 1e-3 within 50 steps, at 0.01 they stay within 2e-7)
    bn-trained-logits.pb  the trained bn-cnn's output in eval() (the running statistics) for the first batch of
                        the next 8 sample images
    bn-trained-NAME.pb  the trained running statistics NAME
    bn-dropout-cnn.onnx bn-cnn with a Dropout (ratio 0.5) between its two Linear layers, as an ONNX Dropout node
    bn-dropout-masks.pb the 50 masks of that Dropout, [50, 8, 32], drawn by PyTorch (0, or 2 for a kept element)
    bn-dropout-sgd-losses.txt  PyTorch's loss at each step of bn-dropout-cnn trained as bn-cnn is, multiplying by
                        those masks (so that the test can feed byodt the same ones)

Usage: /usr/bin/python3 scripts/generate_gradient_references.py
Requires the Debian packages python3-torch, python3-onnx and python3-numpy. Seeds are fixed, so a rerun
writes the same files.
"""

import struct
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper, TensorProto

ROOT = Path(__file__).resolve().parent.parent
GRADIENTS = ROOT / "compiler/src/test/resources/gradients"
TRAINING = ROOT / "compiler/src/test/resources/training"
SAMPLE = ROOT / "models/fashion-mnist-sample"

torch.manual_seed(20261127)
torch.use_deterministic_algorithms(True)
torch.set_num_threads(1)


def tensor(*shape):
    return torch.randn(*shape, dtype=torch.float32)


def write_pb(path, name, array):
    path.write_bytes(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name).SerializeToString())


def case(name, op, inputs, forward, attributes=None, extra_initializers=(), opset=13):
    """One node `op` over named float inputs; forward(*tensors) is PyTorch's computation of its output."""
    leaves = {n: t.clone().requires_grad_(True) for n, t in inputs.items()}
    y = forward(*leaves.values())
    dy = torch.randn(y.shape, dtype=torch.float32)
    y.backward(dy)
    graph_inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(t.shape)) for n, t in inputs.items()]
    node = helper.make_node(op, list(inputs) + [i.name for i in extra_initializers], ["y"], name=name,
                            **(attributes or {}))
    graph = helper.make_graph([node], name, graph_inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))],
                              initializer=list(extra_initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7 if opset <= 13 else 8
    onnx.checker.check_model(model)
    folder = GRADIENTS / name
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, folder / "model.onnx")
    write_pb(folder / "dY.pb", "dY", dy.numpy())
    for n, leaf in leaves.items():
        write_pb(folder / f"{n}.pb", n, inputs[n].numpy())
        write_pb(folder / f"grad_{n}.pb", n, leaf.grad.numpy())


def gradient_cases():
    case("gemm", "Gemm", {"A": tensor(5, 7), "B": tensor(3, 7), "C": tensor(3)},
         lambda a, b, c: 0.5 * a @ b.T + 2.0 * c, {"transB": 1, "alpha": 0.5, "beta": 2.0})
    case("gemm_transposed_a", "Gemm", {"A": tensor(6, 4), "B": tensor(6, 5), "C": tensor(4, 1)},
         lambda a, b, c: a.T @ b + c, {"transA": 1})
    case("matmul", "MatMul", {"A": tensor(2, 3, 6), "B": tensor(6, 4)}, lambda a, b: a @ b)
    case("conv", "Conv", {"X": tensor(2, 4, 9, 8), "W": tensor(6, 2, 3, 3), "B": tensor(6)},
         lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2),
         {"pads": [1, 1, 1, 1], "strides": [2, 2], "group": 2, "kernel_shape": [3, 3]})
    case("conv_dilated", "Conv", {"X": tensor(1, 3, 10, 10), "W": tensor(4, 3, 3, 2)},
         lambda x, w: F.conv2d(x, w, dilation=(2, 1), padding=(0, 2)),
         {"pads": [0, 2, 0, 2], "dilations": [2, 1]})
    case("conv_lenet", "Conv", {"X": tensor(2, 1, 12, 12), "W": tensor(3, 1, 5, 5), "B": tensor(3)},
         lambda x, w, b: F.conv2d(x, w, b, padding=2), {"pads": [2, 2, 2, 2]})
    case("maxpool", "MaxPool", {"X": tensor(2, 3, 8, 8)}, lambda x: F.max_pool2d(x, 2, 2),
         {"kernel_shape": [2, 2], "strides": [2, 2]})
    case("maxpool_overlapping", "MaxPool", {"X": tensor(1, 2, 7, 7)}, lambda x: F.max_pool2d(x, 3, 2, padding=1),
         {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})
    case("averagepool", "AveragePool", {"X": tensor(2, 3, 8, 8)}, lambda x: F.avg_pool2d(x, 2, 2),
         {"kernel_shape": [2, 2], "strides": [2, 2]})
    case("averagepool_padded", "AveragePool", {"X": tensor(1, 2, 6, 6)},
         lambda x: F.avg_pool2d(x, 3, 1, padding=1, count_include_pad=False),
         {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
    case("globalaveragepool", "GlobalAveragePool", {"X": tensor(2, 3, 4, 5)},
         lambda x: F.adaptive_avg_pool2d(x, 1))
    case("relu", "Relu", {"X": tensor(3, 17)}, F.relu)
    case("leakyrelu", "LeakyRelu", {"X": tensor(3, 17)}, lambda x: F.leaky_relu(x, 0.1), {"alpha": 0.1})
    case("tanh", "Tanh", {"X": tensor(3, 17)}, torch.tanh)
    case("sigmoid", "Sigmoid", {"X": tensor(3, 17)}, torch.sigmoid)
    case("add", "Add", {"A": tensor(2, 3, 4), "B": tensor(3, 1)}, lambda a, b: a + b)
    case("sub", "Sub", {"A": tensor(4, 1), "B": tensor(2, 1, 5)}, lambda a, b: a - b)
    case("mul", "Mul", {"A": tensor(2, 3, 4), "B": tensor(4)}, lambda a, b: a * b)
    case("flatten", "Flatten", {"X": tensor(2, 3, 2, 2)}, lambda x: torch.flatten(x, 1))
    case("reshape", "Reshape", {"X": tensor(2, 12)}, lambda x: x.reshape(4, 3, 2),
         extra_initializers=[numpy_helper.from_array(np.array([4, 3, 2], dtype=np.int64), "shape")])
    case("softmax", "Softmax", {"X": tensor(3, 2, 5)}, lambda x: torch.softmax(x, -1))
    case("logsoftmax", "LogSoftmax", {"X": tensor(4, 6)}, lambda x: torch.log_softmax(x, 1), {"axis": 1})
    shapes = torch.Generator().manual_seed(14)
    batch_normalization_case("batchnormalization", torch.randint(2, 6, (4,), generator=shapes).tolist(), 1e-5)
    batch_normalization_case("batchnormalization_1d", torch.randint(3, 9, (2,), generator=shapes).tolist(), 1e-3)


def batch_normalization_case(name, shape, epsilon):
    """BatchNormalization in training mode over X of the given shape: normalized by the batch's statistics."""
    channels = shape[1]
    mean, var = tensor(channels), tensor(channels).abs() + 0.5
    case(name, "BatchNormalization", {"X": 3 * tensor(*shape) + 1, "scale": tensor(channels), "B": tensor(channels)},
         lambda x, scale, b: F.batch_norm(x, mean.clone(), var.clone(), scale, b, training=True, eps=epsilon),
         {"epsilon": epsilon, "training_mode": 1},
         [numpy_helper.from_array(mean.numpy(), "mean"), numpy_helper.from_array(var.numpy(), "var")], opset=15)


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(4, 8, 5)
        self.fc1 = torch.nn.Linear(8 * 5 * 5, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        # count_include_pad=False: with the default the exporter puts a no-op Pad before the AveragePool.
        x = F.avg_pool2d(torch.tanh(self.conv1(x)), 2, count_include_pad=False)
        x = F.max_pool2d(torch.tanh(self.conv2(x)), 2)
        x = torch.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


class BnCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 5, padding=2)
        self.bn1 = torch.nn.BatchNorm2d(4)
        self.conv2 = torch.nn.Conv2d(4, 8, 5)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.fc1 = torch.nn.Linear(8 * 5 * 5, 32)
        self.bn3 = torch.nn.BatchNorm1d(32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.tanh(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(torch.tanh(self.bn2(self.conv2(x))), 2)
        return self.fc2(self.dropped(torch.tanh(self.bn3(self.fc1(torch.flatten(x, 1))))))

    def dropped(self, x):
        return x


class BnDropoutCnn(BnCnn):
    """BnCnn whose Dropout multiplies by the next of the given masks at each forward pass."""

    def __init__(self, masks):
        super().__init__()
        self.masks = iter(masks)

    def dropped(self, x):
        return x * next(self.masks)


def idx(path):
    data = path.read_bytes()
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def training_run(model, optimizer, images, labels, batch):
    losses = []
    for start in range(0, len(images), batch):
        x = torch.from_numpy(images[start:start + batch])
        y = torch.from_numpy(labels[start:start + batch])
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def training_reference():
    TRAINING.mkdir(parents=True, exist_ok=True)
    images = (idx(SAMPLE / "t10k-images-idx3-ubyte")[:400].astype(np.float32) / 255).reshape(400, 1, 28, 28)
    labels = idx(SAMPLE / "t10k-labels-idx1-ubyte")[:400].astype(np.int64)
    torch.manual_seed(7)
    initial = SmallCnn()
    torch.onnx.export(initial, torch.zeros(4, 1, 28, 28), TRAINING / "small-cnn.onnx", input_names=["image"],
                      output_names=["logits"], opset_version=13, do_constant_folding=True)
    runs = {"sgd": lambda m: torch.optim.SGD(m.parameters(), lr=0.05),
            "adam": lambda m: torch.optim.Adam(m.parameters(), lr=0.001)}
    for name, make in runs.items():
        model = SmallCnn()
        model.load_state_dict(initial.state_dict())
        losses = training_run(model, make(model), images, labels, 4)
        (TRAINING / f"{name}-losses.txt").write_text("".join(f"{v!r}\n" for v in losses))
    batch_normalization_reference(images, labels)


def batch_normalization_reference(images, labels):
    """bn-cnn's files. Exported from eval() with TrainingMode.PRESERVE: eval() makes BatchNormalization an
    inference node, and PRESERVE keeps the exporter from folding it into the convolution before it. The
    BatchNorms' scales and biases start random, not at PyTorch's ones and zeros: the exporter would otherwise
    merge them with the equal running variance and mean into one initializer."""
    torch.manual_seed(8)
    model = BnCnn()
    for bn in (model.bn1, model.bn2, model.bn3):
        torch.nn.init.uniform_(bn.weight, 0.5, 1.5)
        torch.nn.init.uniform_(bn.bias, -0.5, 0.5)
    model.eval()
    torch.onnx.export(model, torch.zeros(8, 1, 28, 28), TRAINING / "bn-cnn.onnx", input_names=["image"],
                      output_names=["logits"], opset_version=15, training=torch.onnx.TrainingMode.PRESERVE)
    exported = onnx.load(TRAINING / "bn-cnn.onnx")
    dropout_reference(model.state_dict(), images, labels)
    model.train()
    losses = training_run(model, torch.optim.SGD(model.parameters(), lr=0.01), images, labels, 8)
    (TRAINING / "bn-sgd-losses.txt").write_text("".join(f"{v!r}\n" for v in losses))
    model.eval()
    with torch.no_grad():
        write_pb(TRAINING / "bn-trained-logits.pb", "logits", model(torch.from_numpy(images_after(8))).numpy())
    for name, buffer in model.named_buffers():
        if name.endswith(("running_mean", "running_var")):
            write_pb(TRAINING / f"bn-trained-{name}.pb", name, buffer.numpy())
    with_dropout(exported)


def dropout_reference(initial, images, labels):
    """bn-dropout-cnn's masks and losses, from bn-cnn's initial weights."""
    generator = torch.Generator().manual_seed(9)
    masks = (torch.rand(50, 8, 32, generator=generator) >= 0.5).float() * 2
    model = BnDropoutCnn(masks)
    model.load_state_dict(initial)
    model.train()
    losses = training_run(model, torch.optim.SGD(model.parameters(), lr=0.01), images, labels, 8)
    (TRAINING / "bn-dropout-sgd-losses.txt").write_text("".join(f"{v!r}\n" for v in losses))
    write_pb(TRAINING / "bn-dropout-masks.pb", "masks", masks.numpy())


def images_after(count):
    """The `count` sample images after the 400 trained on."""
    return (idx(SAMPLE / "t10k-images-idx3-ubyte")[400:400 + count].astype(np.float32) / 255).reshape(count, 1, 28, 28)


def with_dropout(model):
    """bn-dropout-cnn.onnx: bn-cnn with Dropout(ratio 0.5) on the input of its last Gemm."""
    graph = model.graph
    last = [n for n in graph.node if n.op_type == "Gemm"][-1]
    graph.initializer.append(numpy_helper.from_array(np.array(0.5, dtype=np.float32), "dropout_ratio"))
    dropout = helper.make_node("Dropout", [last.input[0], "dropout_ratio"], ["dropped"], name="dropout")
    last.input[0] = "dropped"
    graph.node.insert(list(graph.node).index(last), dropout)
    onnx.checker.check_model(model)
    onnx.save(model, TRAINING / "bn-dropout-cnn.onnx")


if __name__ == "__main__":
    gradient_cases()
    training_reference()
