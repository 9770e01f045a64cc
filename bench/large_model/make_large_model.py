#!/usr/bin/env python3
"""Writes ONNX models whose weights (external data, one file) exceed protobuf's 2 GB limit.

    make_large_model.py OUT_DIR [--gib 2.2]

OUT_DIR/gather/model.onnx: y = MatMul(Gather(E, ids), W): an embedding table E of
  [V, 1024] float32 (about --gib GiB) of which a run reads 16 rows, and W [1024, 256].
OUT_DIR/matvec/model.onnx: y = MatMul(x, E^T) with the same table stored as [1024, V]:
  every weight is read once per run.
OUT_DIR/layers/model.onnx: a chain of MatMul + Tanh layers with [4096, 4096] weights
  (64 MiB each, about --gib GiB in all): many weights that oneDNN repacks, as in a
  transformer.
Each folder also gets inputs (input_0.pb). Values are seeded, so runs are repeatable.
"""
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

D = 1024


def external(name, dims, location, offset, length):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def write_table(path, rows, cols, seed, scale=1.0, mode="wb"):
    """Writes (or appends) a [rows, cols] float32 table in 64 MiB chunks; returns its byte
    length."""
    rng = np.random.default_rng(seed)
    chunk_rows = max(1, (64 << 20) // (cols * 4))
    with open(path, mode) as f:
        for start in range(0, rows, chunk_rows):
            n = min(chunk_rows, rows - start)
            f.write((rng.standard_normal((n, cols), dtype=np.float32) * np.float32(scale)).tobytes())
    return rows * cols * 4


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--gib", type=float, default=2.2)
    args = parser.parse_args()
    vocab = int(args.gib * (1 << 30) / (D * 4))

    # gather: E [V, D] then W [D, 256] in one file, W at a 64-byte aligned offset.
    folder = os.path.join(args.out, "gather")
    os.makedirs(folder, exist_ok=True)
    weights = os.path.join(folder, "weights.bin")
    table_bytes = write_table(weights, vocab, D, 1)
    w = np.random.default_rng(2).standard_normal((D, 256), dtype=np.float32)
    with open(weights, "ab") as f:
        f.write(w.tobytes())
    graph = helper.make_graph(
        [helper.make_node("Gather", ["E", "ids"], ["h"], axis=0), helper.make_node("MatMul", ["h", "W"], ["y"])],
        "gather_large",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 256])],
        initializer=[external("E", [vocab, D], "weights.bin", 0, table_bytes),
                     external("W", [D, 256], "weights.bin", table_bytes, w.nbytes)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    save(model, os.path.join(folder, "model.onnx"))
    ids = np.random.default_rng(3).integers(0, vocab, size=(1, 16), dtype=np.int64)
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ids, "ids").SerializeToString())

    # matvec: x [1, D] times E^T stored as [D, V]: reads every weight.
    folder = os.path.join(args.out, "matvec")
    os.makedirs(folder, exist_ok=True)
    table_bytes = write_table(os.path.join(folder, "weights.bin"), D, vocab, 4)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "ET"], ["y"])],
        "matvec_large",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, D])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, vocab])],
        initializer=[external("ET", [D, vocab], "weights.bin", 0, table_bytes)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    save(model, os.path.join(folder, "model.onnx"))
    x = np.random.default_rng(5).standard_normal((1, D), dtype=np.float32)
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())

    # layers: h = tanh(h @ W_i), W_i [4096, 4096] scaled by 1/64 so activations stay O(1).
    folder = os.path.join(args.out, "layers")
    os.makedirs(folder, exist_ok=True)
    width = 4096
    count = max(1, int(args.gib * (1 << 30) / (width * width * 4)))
    weights = os.path.join(folder, "weights.bin")
    nodes, inits, offset = [], [], 0
    for i in range(count):
        length = write_table(weights, width, width, 10 + i, scale=1.0 / 64, mode="wb" if i == 0 else "ab")
        inits.append(external(f"W{i}", [width, width], "weights.bin", offset, length))
        offset += length
        source = "x" if i == 0 else f"h{i - 1}"
        nodes.append(helper.make_node("MatMul", [source, f"W{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Tanh", [f"m{i}"], ["y" if i == count - 1 else f"h{i}"]))
    graph = helper.make_graph(nodes, "layers_large",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    save(model, os.path.join(folder, "model.onnx"))
    x = np.random.default_rng(6).standard_normal((1, width), dtype=np.float32)
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    print(f"weights: {table_bytes / (1 << 30):.2f} GiB per model, vocab {vocab}; {count} layers")


if __name__ == "__main__":
    main()
