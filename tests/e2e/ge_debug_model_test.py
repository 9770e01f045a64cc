#!/usr/bin/env python3
"""Debugging a model, end to end: `ge-compile --export-onnx` writes the optimised graph as
an ONNX model that the onnx package loads (GE's fused ops in their own domains), and
`ge-run --dump-tensors` writes every intermediate value of the compiled graph with an
index that matches the files.

    ge_debug_model_test.py GE_RUN GE_COMPILE SAMPLES_DIR OUT_DIR

Exit 77 (skipped) when the onnx Python package is missing.
"""

import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as error:
    print("SKIP: %s" % error)
    sys.exit(77)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def run(args):
    result = subprocess.run(args, capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def make_residual_model(path):
    """Conv + bias, residual Add, Relu: -O3 fuses it into one ge::FusedConv. Names with
    '/' and ':' (as exporters write them) check the file-name sanitising."""
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((8, 8, 3, 3)).astype(np.float32) * 0.1, "conv/w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32) * 0.1, "conv/b")
    nodes = [
        helper.make_node("Conv", ["x", "conv/w", "conv/b"], ["conv/out:0"], "conv", pads=[1, 1, 1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node("Add", ["conv/out:0", "x"], ["add/out:0"], "add"),
        helper.make_node("Relu", ["add/out:0"], ["y"], "relu"),
    ]
    graph = helper.make_graph(nodes, "residual", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])], [w, b])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def read_index(folder):
    with open(os.path.join(folder, "index.tsv")) as f:
        lines = f.read().splitlines()
    check(lines[0] == "value\tfile\tdtype\tshape\tformat\tnode\top", "index header: %r" % lines[0])
    rows = [dict(zip(lines[0].split("\t"), line.split("\t"))) for line in lines[1:]]
    for row in rows:
        proto = onnx.load_tensor(os.path.join(folder, row["file"]))
        array = numpy_helper.to_array(proto)
        check(proto.name == row["value"], "%s: TensorProto named %r" % (row["file"], proto.name))
        shape = "[" + ",".join(str(d) for d in array.shape) + "]"
        check(shape == row["shape"], "%s: shape %s, index says %s" % (row["file"], shape, row["shape"]))
        check(row["dtype"] == "float32" and array.dtype == np.float32, "%s: dtype %s" % (row["file"], row["dtype"]))
        row["array"] = array
    return rows


def check_export(ge_compile, model, out_dir):
    exported = os.path.join(out_dir, "small_cnn_O3.onnx")
    code, out, err = run([ge_compile, model, "-O3", "--export-onnx", exported])
    check(code == 0, "ge-compile --export-onnx failed (%d): %s%s" % (code, out, err))
    check("exported the optimised graph" in out, "no summary line: " + out)
    m = onnx.load(exported)  # GE's domains have no schemas: no checker here
    ops = [(n.domain, n.op_type) for n in m.graph.node]
    check(ops.count(("ge", "FusedConv")) == 2, "expected 2 ge::FusedConv: %s" % ops)
    for op in ["Conv", "BatchNormalization", "Relu"]:
        check(("", op) not in ops, "%s should be fused at -O3: %s" % (op, ops))
    plain = [op for domain, op in ops if domain == "" and op != "MaxPool"]
    check(plain == ["Flatten", "Gemm", "Softmax"], "default-domain ops: %s" % ops)
    opsets = {o.domain: o.version for o in m.opset_import}
    check(opsets.get("") == 13 and opsets.get("ge") == 1, "opset_import: %s" % opsets)
    check([i.name for i in m.graph.input] == ["input"], "inputs: %s" % [i.name for i in m.graph.input])
    check([o.name for o in m.graph.output] == ["output"], "outputs: %s" % [o.name for o in m.graph.output])
    dims = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
    check(dims == [1, 10], "output shape %s" % dims)
    check(len(m.graph.initializer) >= 4, "initializers: %d" % len(m.graph.initializer))
    infos = {v.name: v for v in m.graph.value_info}
    check("relu1" in infos and "pool2" in infos, "value_info: %s" % sorted(infos))
    meta = {p.key: p.value for p in m.metadata_props}
    check(meta.get("ge.opt_level") == "3" and meta.get("ge.backend") == "cpu", "metadata: %s" % meta)
    for key, value in meta.items():
        if key.startswith("ge.format:"):
            name = key[len("ge.format:"):]
            check(infos[name].doc_string == "ge.format: " + value, "format of %s: %r" % (name, infos[name].doc_string))

    # -O0 keeps the ONNX ops: the export passes the full checker and names the same ops.
    exported0 = os.path.join(out_dir, "small_cnn_O0.onnx")
    code, out, err = run([ge_compile, "--model", model, "-O0", "--export-onnx", exported0])
    check(code == 0, "ge-compile -O0 --export-onnx failed (%d): %s%s" % (code, out, err))
    m0 = onnx.load(exported0)
    onnx.checker.check_model(m0)
    source = onnx.load(model)
    check([n.op_type for n in m0.graph.node] == [n.op_type for n in source.graph.node],
          "-O0 ops: %s" % [n.op_type for n in m0.graph.node])

    code, out, err = run([ge_compile, model, "--export-onnx", os.path.join(out_dir, "no_such_dir", "m.onnx")])
    check(code == 1 and "--export-onnx" in err and "no_such_dir" in err, "unwritable export: %d %r" % (code, err))
    print("OK: export (%d nodes at -O3)" % len(m.graph.node))


def check_dump(ge_run, ge_compile, model, data, out_dir):
    inputs = ["--input", "input=" + os.path.join(data, "input_0.pb")]
    dump0 = os.path.join(out_dir, "dump_O0")
    code, out, err = run([ge_run, model, "-O0", "--dump-tensors", dump0] + inputs)
    check(code == 0, "ge-run -O0 --dump-tensors failed (%d): %s%s" % (code, out, err))
    check("dumped 10 intermediate value(s)" in out, "summary: " + out)
    rows0 = read_index(dump0)
    names = [r["value"] for r in rows0]
    check(names == ["conv1", "bn1", "relu1", "pool1", "conv2", "relu2", "pool2", "flat", "logits", "output"],
          "values at -O0: %s" % names)
    by_name0 = {r["value"]: r for r in rows0}
    check(by_name0["conv1"]["op"] == "Conv" and by_name0["conv1"]["node"] == "conv1", "conv1 row: %s" % by_name0["conv1"])
    check(np.array_equal(by_name0["relu1"]["array"], np.maximum(by_name0["bn1"]["array"], 0)), "relu1 != relu(bn1)")
    check(np.array_equal(by_name0["flat"]["array"], by_name0["pool2"]["array"].reshape(1, -1)), "flat != pool2")
    expected = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "output_0.pb")))
    check(np.allclose(by_name0["output"]["array"], expected, rtol=1e-5, atol=1e-5), "output differs from numpy")

    # -O3: the fused-away values are absent; what is left matches -O0, blocked ones too.
    dump3 = os.path.join(out_dir, "dump_O3")
    code, out, err = run([ge_run, model, "-O3", "--repeat", "2", "--dump-tensors", dump3] + inputs)
    check(code == 0, "ge-run -O3 --dump-tensors failed (%d): %s%s" % (code, out, err))
    rows3 = read_index(dump3)
    names3 = [r["value"] for r in rows3]
    check("conv1" not in names3 and "bn1" not in names3 and "relu1" in names3, "values at -O3: %s" % names3)
    for row in rows3:
        if row["value"] in by_name0:
            check(np.allclose(row["array"], by_name0[row["value"]]["array"], rtol=1e-4, atol=1e-5),
                  "%s (format %r) differs between -O3 and -O0" % (row["value"], row["format"]))
    check({r["value"]: r["op"] for r in rows3}["relu1"] == "ge::FusedConv", "relu1 op: %s" % rows3)

    # A compiled .gem dumps its stored graph.
    gem = os.path.join(out_dir, "small_cnn.gem")
    code, out, err = run([ge_compile, "--model", model, "--output", gem, "-O3"])
    check(code == 0, "ge-compile failed: %s%s" % (out, err))
    dump_gem = os.path.join(out_dir, "dump_gem")
    code, out, err = run([ge_run, gem, "--dump-tensors", dump_gem] + inputs)
    check(code == 0, "ge-run .gem --dump-tensors failed (%d): %s%s" % (code, out, err))
    check([r["value"] for r in read_index(dump_gem)] == names3, "the .gem's values differ from -O3's")

    # Names sanitised into file names; the fused model keeps the Relu's output only.
    residual = os.path.join(out_dir, "residual.onnx")
    make_residual_model(residual)
    dump_res = os.path.join(out_dir, "dump_residual")
    code, out, err = run([ge_run, residual, "-O0", "--input", "x=random", "--dump-tensors", dump_res])
    check(code == 0, "ge-run residual failed (%d): %s%s" % (code, out, err))
    files = {r["value"]: r["file"] for r in read_index(dump_res)}
    check(files == {"conv/out:0": "conv_out_0.pb", "add/out:0": "add_out_0.pb", "y": "y.pb"}, "files: %s" % files)
    dump_res3 = os.path.join(out_dir, "dump_residual_O3")
    code, out, err = run([ge_run, residual, "-O3", "--input", "x=random", "--dump-tensors", dump_res3])
    check(code == 0, "ge-run residual -O3 failed (%d): %s%s" % (code, out, err))
    rows = read_index(dump_res3)
    check([(r["value"], r["op"]) for r in rows] == [("y", "ge::FusedConv")], "residual at -O3: %s" % rows)

    # Errors name the option and the path.
    not_dir = os.path.join(out_dir, "a_file")
    open(not_dir, "w").close()
    code, out, err = run([ge_run, model, "--dump-tensors", not_dir] + inputs)
    check(code == 1 and "--dump-tensors '%s' exists and is not a directory" % not_dir in err,
          "dump to a file: %d %r" % (code, err))
    code, out, err = run([ge_run, model, "--dump-tensors"])
    check(code == 1 and "--dump-tensors expects a value" in err, "missing value: %d %r" % (code, err))
    print("OK: dump (%d values at -O0, %d at -O3)" % (len(rows0), len(rows3)))


def main():
    ge_run, ge_compile, samples, out_dir = sys.argv[1:5]
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    model = os.path.join(samples, "small_cnn.onnx")
    check_export(ge_compile, model, out_dir)
    check_dump(ge_run, ge_compile, model, os.path.join(samples, "small_cnn"), out_dir)


if __name__ == "__main__":
    main()
