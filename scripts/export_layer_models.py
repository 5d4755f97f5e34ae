#!/usr/bin/python3
"""Export the single-layer models that `scripts/bench layers` times: the convolution shapes of the ImageNet nets.

Each model is a few convolutions of one shape from ResNet-18/50, MobileNetV2, EfficientNet-B0 or RegNetX-400MF
(random weights under a fixed seed, bias, each followed by Relu), ending in a GlobalAveragePool, so that its output
is one value a channel: a benchmark then times the layers, not the allocation of a large output. Input [N, C, H, W]
with a symbolic batch N. Where the shape keeps the channels, the layer repeats four times; a bottleneck's pair of
pointwise layers (C -> 4C -> C, or MobileNet's expansion and projection) repeats twice.

    conv3x3_64_56       ResNet-18 layer1: 3x3, 64 channels, 56x56
    conv3x3_128_28      ResNet-18 layer2: 3x3, 128 channels, 28x28
    conv3x3_256_14      ResNet-18 layer3 (and ResNet-50's 3x3 of layer3): 3x3, 256 channels, 14x14
    conv3x3_512_7       ResNet-18 layer4: 3x3, 512 channels, 7x7
    conv3x3_s2_128_56   a first block's 3x3 of stride 2: 128 channels, 56x56 to 28x28
    conv3x3_s2_256_14   ResNet-18 layer4.0.conv1: 3x3 of stride 2, 256 to 512 channels, 14x14 to 7x7
    conv1x1_s2_256_56   ResNet-50's downsampling: 1x1 of stride 2, 256 to 512 channels, 56x56 to 28x28
    pointwise_64_56     ResNet-50 layer1 bottleneck: 1x1, 64 -> 256 -> 64 channels, 56x56
    pointwise_128_28    ResNet-50 layer2: 128 -> 512 -> 128, 28x28
    pointwise_256_14    ResNet-50 layer3: 256 -> 1024 -> 256, 14x14
    pointwise_512_7     ResNet-50 layer4: 512 -> 2048 -> 512, 7x7
    expand_24_56        MobileNetV2 expansion and projection: 24 -> 144 -> 24, 56x56
    expand_96_14        MobileNetV2: 96 -> 576 -> 96, 14x14
    depthwise_96_112    MobileNetV2/EfficientNet depthwise 3x3: 96 channels, 112x112
    depthwise_144_56    depthwise 3x3: 144 channels, 56x56
    depthwise_576_14    depthwise 3x3: 576 channels, 14x14
    grouped_64_56       RegNetX-400MF: 3x3 in groups of 16 channels, 64 channels, 56x56
    grouped_160_14      RegNetX-400MF: 3x3 in groups of 16 channels, 160 channels, 14x14
    stem_7x7_64         ResNet-18/50's first layer: 7x7 of stride 2, 3 to 64 channels, 224x224 to 112x112
    stem_3x3_32         MobileNetV2's, EfficientNet-B0's and RegNet's first layer: 3x3 of stride 2, 3 to 32 channels

Each NAME.onnx is written only when it is missing (the folder is a cache). Prints the path of each file.

Usage: /usr/bin/python3 scripts/export_layer_models.py OUT_DIR [NAME...]
Requires the Debian package python3-onnx (and its numpy).
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from model_cache import export_missing

SEED = 20261129
OPSET = 17

# name: (input channels, input size, [(output channels, kernel, stride, groups), ...])
LAYERS = {
    "conv3x3_64_56": (64, 56, [(64, 3, 1, 1)] * 4),
    "conv3x3_128_28": (128, 28, [(128, 3, 1, 1)] * 4),
    "conv3x3_256_14": (256, 14, [(256, 3, 1, 1)] * 4),
    "conv3x3_512_7": (512, 7, [(512, 3, 1, 1)] * 4),
    "conv3x3_s2_128_56": (128, 56, [(128, 3, 2, 1)]),
    "conv3x3_s2_256_14": (256, 14, [(512, 3, 2, 1)]),
    "conv1x1_s2_256_56": (256, 56, [(512, 1, 2, 1)]),
    "pointwise_64_56": (64, 56, [(256, 1, 1, 1), (64, 1, 1, 1)] * 2),
    "pointwise_128_28": (128, 28, [(512, 1, 1, 1), (128, 1, 1, 1)] * 2),
    "pointwise_256_14": (256, 14, [(1024, 1, 1, 1), (256, 1, 1, 1)] * 2),
    "pointwise_512_7": (512, 7, [(2048, 1, 1, 1), (512, 1, 1, 1)] * 2),
    "expand_24_56": (24, 56, [(144, 1, 1, 1), (24, 1, 1, 1)] * 2),
    "expand_96_14": (96, 14, [(576, 1, 1, 1), (96, 1, 1, 1)] * 2),
    "depthwise_96_112": (96, 112, [(96, 3, 1, 96)] * 2),
    "depthwise_144_56": (144, 56, [(144, 3, 1, 144)] * 2),
    "depthwise_576_14": (576, 14, [(576, 3, 1, 576)] * 2),
    "grouped_64_56": (64, 56, [(64, 3, 1, 4)] * 4),
    "grouped_160_14": (160, 14, [(160, 3, 1, 10)] * 4),
    "stem_7x7_64": (3, 224, [(64, 7, 2, 1)]),
    "stem_3x3_32": (3, 224, [(32, 3, 2, 1)]),
}


def model(name, channels, size, convs, random):
    nodes, weights, x, image = [], [], "x", ["N", channels, size, size]
    for i, (maps, kernel, stride, groups) in enumerate(convs):
        fan_in = channels // groups * kernel * kernel
        w = (random.standard_normal((maps, channels // groups, kernel, kernel)) / np.sqrt(fan_in)).astype(np.float32)
        b = (random.standard_normal(maps) * 0.01).astype(np.float32)
        weights += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes.append(helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"conv{i}"], kernel_shape=[kernel, kernel],
                                      pads=[kernel // 2] * 4, strides=[stride, stride], group=groups))
        nodes.append(helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"]))
        x, channels = f"relu{i}", maps
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["y"]))
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, image)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", channels, 1, 1])], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def export(name, path):
    channels, size, convs = LAYERS[name]
    onnx.save(model(name, channels, size, convs, np.random.default_rng([SEED, list(LAYERS).index(name)])), path)


if __name__ == "__main__":
    export_missing(__doc__.splitlines()[0], "layer model", list(LAYERS), export)
