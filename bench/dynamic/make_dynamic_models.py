"""Models for the dynamic-shape benchmark (bench/dynamic/run_dynamic.sh), each with a
static twin of the same weights, written into OUT_DIR:

  cnn_dynamic.onnx          (a) a small residual CNN with input x[N,3,H,W] (symbolic N, H, W)
  cnn_static_<N>x<H>x<W>.onnx   the same CNN exported at each benchmark size
  speech_if.onnx            (b) a speech MLP (frames x 40 features -> 2 classes) wrapped in an
                            If on an int64 input `sr`: 16000 takes one set of weights, any
                            other rate the other (the 8 kHz path)
  speech_static.onnx        the 16 kHz branch alone
  nonzero_mid.onnx          (c) a CNN scoring 64 candidate rows, NonZero keeping the rows whose
                            score is above the mean score, an MLP over the kept rows and a sum
  nonzero_static.onnx       the same with the kept rows fixed (a constant index list equal to
                            what NonZero keeps for the benchmark input: KEPT_PB, the
                            output of nonzero_index.onnx, written too, on that input)

Usage: python3 make_dynamic_models.py OUT_DIR [KEPT_PB]
Run with /usr/bin/python3 (Debian's python3-onnx and numpy)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compare"))
from compare_builder import Builder  # noqa: E402

import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

CNN_SIZES = [(1, 3, 64, 64), (1, 3, 96, 160), (2, 3, 128, 128)]


def save(b, path, inputs, outputs, opset=17):
    """inputs/outputs: (name, elem_type, shape) triples."""
    graph = helper.make_graph(b.nodes, os.path.splitext(os.path.basename(path))[0],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                              b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="ge-bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def cnn_body(b, x):
    """Stem, three residual stages, global pool, classifier: [N,3,H,W] -> [N,10]."""
    y = b.op("Relu", [b.conv(x, 3, 32, 3, stride=2)])
    channels = 32
    for out in (32, 64, 128):
        stride = 1 if out == channels else 2
        shortcut = y if stride == 1 else b.conv(y, channels, out, 1, stride=stride)
        z = b.op("Relu", [b.conv(y, channels, out, 3, stride=stride)])
        z = b.conv(z, out, out, 3)
        y = b.op("Relu", [b.op("Add", [z, shortcut])])
        channels = out
    pooled = b.op("GlobalAveragePool", [y])
    flat = b.op("Flatten", [pooled], axis=1)
    return b.op("Gemm", [flat, b.scaled("fc_w", (10, channels), channels), b.weight("fc_b", (10,))], transB=1)


def make_cnn(out_dir):
    b = Builder(seed=11)
    y = cnn_body(b, "x")
    save(b, os.path.join(out_dir, "cnn_dynamic.onnx"), [("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
         [(y, TensorProto.FLOAT, ["N", 10])])
    for n, c, h, w in CNN_SIZES:
        b = Builder(seed=11)
        y = cnn_body(b, "x")
        save(b, os.path.join(out_dir, f"cnn_static_{n}x{h}x{w}.onnx"), [("x", TensorProto.FLOAT, [n, c, h, w])],
             [(y, TensorProto.FLOAT, [n, 10])])


FRAMES, FEATURES, HIDDEN = 64, 40, 256


def speech_mlp(b, x, tag):
    """[1,FRAMES,FEATURES] -> [1,FRAMES,2] through three dense layers."""
    h = b.op("Relu", [b.op("Add", [b.op("MatMul", [x, b.scaled(f"{tag}_w1", (FEATURES, HIDDEN), FEATURES)]),
                                   b.weight(f"{tag}_b1", (HIDDEN,))])])
    h = b.op("Relu", [b.op("Add", [b.op("MatMul", [h, b.scaled(f"{tag}_w2", (HIDDEN, HIDDEN), HIDDEN)]),
                                   b.weight(f"{tag}_b2", (HIDDEN,))])])
    h = b.op("Add", [b.op("MatMul", [h, b.scaled(f"{tag}_w3", (HIDDEN, 2), HIDDEN)]), b.weight(f"{tag}_b3", (2,))])
    return b.op("Softmax", [h], axis=-1)


def branch_graph(b, tag, name):
    """A subgraph of `b` holding one speech MLP over the outer `x` (captured)."""
    outer_nodes, outer_inits = b.nodes, b.initializers
    b.nodes, b.initializers = [], []
    y = speech_mlp(b, "x", tag)
    graph = helper.make_graph(b.nodes, name, [], [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, FRAMES, 2])],
                              b.initializers)
    b.nodes, b.initializers = outer_nodes, outer_inits
    return graph


def make_speech(out_dir):
    b = Builder(seed=23)
    then_graph = branch_graph(b, "k16", "rate_16k")
    else_graph = branch_graph(b, "k8", "rate_8k")
    rate = b.constant("rate", np.asarray(16000, dtype=np.int64))
    cond = b.op("Equal", ["sr", rate])
    b.nodes.append(helper.make_node("If", [cond], ["probs"], name="by_rate", then_branch=then_graph,
                                    else_branch=else_graph))
    save(b, os.path.join(out_dir, "speech_if.onnx"),
         [("x", TensorProto.FLOAT, [1, FRAMES, FEATURES]), ("sr", TensorProto.INT64, [])],
         [("probs", TensorProto.FLOAT, [1, FRAMES, 2])])
    b = Builder(seed=23)
    y = speech_mlp(b, "x", "k16")
    save(b, os.path.join(out_dir, "speech_static.onnx"), [("x", TensorProto.FLOAT, [1, FRAMES, FEATURES])],
         [(y, TensorProto.FLOAT, [1, FRAMES, 2])])


ROWS, ROW_FEATURES = 64, 128


def nonzero_model(out_dir, kept_rows):
    """kept_rows None: NonZero picks the rows; else those rows, as a constant."""
    b = Builder(seed=37)
    y = b.op("Relu", [b.conv("x", 3, 32, 3, stride=2)])
    y = b.op("Relu", [b.conv(y, 32, 64, 3, stride=2)])
    y = b.op("Relu", [b.conv(y, 64, ROWS, 3, stride=2)])  # [1,64,8,8]
    rows = b.op("Reshape", [y, b.i64("rows_shape", [ROWS, -1])])  # [64,64]
    feats = b.op("MatMul", [rows, b.scaled("proj", (64, ROW_FEATURES), 64)])  # [64,128]
    row_mean = b.op("ReduceMean", [feats], axes=[1], keepdims=0)  # [64]
    score = b.op("Sub", [row_mean, b.op("ReduceMean", [row_mean], keepdims=0)])  # above the mean of all rows
    if kept_rows is None:
        index = b.op("Squeeze", [b.op("NonZero", [b.op("Greater", [score, b.f32("zero", 0.0)])]), b.i64("ax0", [0])])
    else:
        index = b.i64("kept", np.asarray(kept_rows, dtype=np.int64))
    kept = b.op("Gather", [feats, index], axis=0)  # [K,128]
    h = b.op("Relu", [b.op("MatMul", [kept, b.scaled("m1", (ROW_FEATURES, 512), ROW_FEATURES)])])
    h = b.op("Relu", [b.op("MatMul", [h, b.scaled("m2", (512, 512), 512)])])
    h = b.op("MatMul", [h, b.scaled("m3", (512, 16), 512)])
    total = b.op("ReduceSum", [h, b.i64("ax_rows", [0])], keepdims=0)  # [16]
    name = "nonzero_mid.onnx" if kept_rows is None else "nonzero_static.onnx"
    save(b, os.path.join(out_dir, name), [("x", TensorProto.FLOAT, [1, 3, 64, 64])], [(total, TensorProto.FLOAT, [16])])
    return index


def write_index_model(out_dir):
    """nonzero_index.onnx: nonzero_mid.onnx cut at the kept-row index (its only output),
    for an engine to say which rows the benchmark input keeps."""
    model = onnx.load(os.path.join(out_dir, "nonzero_mid.onnx"))
    index = [n for n in model.graph.node if n.op_type == "Squeeze"][0].output[0]
    del model.graph.output[:]
    model.graph.output.append(helper.make_tensor_value_info(index, TensorProto.INT64, ["K"]))
    onnx.save(model, os.path.join(out_dir, "nonzero_index.onnx"))


def read_int64s(pb_path):
    from onnx import numpy_helper
    tensor = onnx.TensorProto()
    with open(pb_path, "rb") as f:
        tensor.ParseFromString(f.read())
    return [int(v) for v in numpy_helper.to_array(tensor).reshape(-1)]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    make_cnn(out_dir)
    make_speech(out_dir)
    nonzero_model(out_dir, None)
    write_index_model(out_dir)
    if len(sys.argv) > 2:
        kept = read_int64s(sys.argv[2])
        nonzero_model(out_dir, kept)
        print(f"nonzero_static.onnx keeps {len(kept)} of {ROWS} rows")


if __name__ == "__main__":
    main()
