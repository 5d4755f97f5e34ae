#!/usr/bin/python3
"""Reference gradients and a reference training run from PyTorch, for byodt's training tests.

Writes compiler/src/test/resources/gradients/:

    CASE/model.onnx     one ONNX node whose real-valued tensors are all graph inputs
    CASE/NAME.pb        the value of input NAME
    CASE/dY.pb          the gradient of the loss with respect to the node's output
    CASE/grad_NAME.pb   PyTorch autograd's gradient with respect to tensor NAME

and compiler/src/test/resources/training/:

    small-cnn.onnx      a small tanh/average-pool CNN with its initial weights (opset 13)
    sgd-losses.txt      PyTorch's float32 loss at each step of plain SGD (lr 0.05, batch 4) on the first
                        400 images of models/fashion-mnist-sample, in file order (100 steps)
    adam-losses.txt     the same with Adam (lr 0.001)

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


def case(name, op, inputs, forward, attributes=None, extra_initializers=()):
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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
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


if __name__ == "__main__":
    gradient_cases()
    training_reference()
