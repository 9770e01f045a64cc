"""Tests of the benchmark's quantisers, float16 rewrite, interpreter and agreement rules.
Bench code, so not in ctest; run: /usr/bin/python3 -m unittest discover -s bench/precision -p 'test_*.py'"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
import precision_models as pm  # noqa: E402


def tiny_cnn():
    """x [1,3,8,8] -> Conv 3->4 3x3 -> Relu -> Conv 4->2 1x1 -> y; seeded weights."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array((rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "w1"),
             numpy_helper.from_array((rng.standard_normal(4) * 0.1).astype(np.float32), "b1"),
             numpy_helper.from_array((rng.standard_normal((2, 4, 1, 1)) * 0.5).astype(np.float32), "w2"),
             numpy_helper.from_array((rng.standard_normal(2) * 0.1).astype(np.float32), "b2")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["y"], name="conv2")]
    g = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8, 8])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def initializers(model):
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


class QuantizeLinearTest(unittest.TestCase):
    def test_rounds_half_to_even_and_saturates(self):
        x = torch.tensor([0.5, 1.5, 2.5, -0.5, 1000.0, -3.0])
        q = pm._quantize(x, torch.tensor(1.0), torch.tensor(0, dtype=torch.uint8), 1)
        self.assertEqual(q.tolist(), [0, 2, 2, 0, 255, 0])
        q = pm._quantize(x, torch.tensor(1.0), torch.tensor(0, dtype=torch.int8), 1)
        self.assertEqual(q.tolist(), [0, 2, 2, 0, 127, -3])


class StaticQdqTest(unittest.TestCase):
    def setUp(self):
        self.model = tiny_cnn()
        feeds = [{"x": pm.random_input((1, 3, 8, 8), k)} for k in range(3)]
        self.qdq = pm.quantize_static_qdq(self.model, feeds, op_types=("Conv",))

    def test_layout(self):
        ops = [n.op_type for n in self.qdq.graph.node]
        self.assertNotIn("Relu", ops)  # folded into conv1's output quantisation
        self.assertEqual(ops.count("Conv"), 2)
        self.assertEqual(ops.count("QuantizeLinear"), 3)  # x, r1, y
        self.assertEqual(ops.count("DequantizeLinear"), 3 + 4)  # those, 2 weights, 2 biases
        conv1 = next(n for n in self.qdq.graph.node if n.name == "conv1")
        self.assertEqual(conv1.output[0], "r1_prequant")
        self.assertEqual(self.qdq.graph.output[0].name, "y")

    def test_weights_and_bias(self):
        inits = initializers(self.qdq)
        w, ws = inits["w1_quantized"], inits["w1_scale"]
        self.assertEqual(w.dtype, np.int8)
        self.assertEqual(ws.shape, (4,))  # per output channel
        self.assertEqual(int(np.abs(w).max(axis=(1, 2, 3)).min()), 127)  # symmetric, full range per channel
        self.assertEqual(inits["r1_zero_point"], 0)  # Relu range [0, max]
        bias_scale = inits["b1_quantized_scale"]
        np.testing.assert_allclose(bias_scale, inits["x_scale"] * ws, rtol=1e-6)
        self.assertEqual(inits["b1_quantized"].dtype, np.int32)
        dq = next(n for n in self.qdq.graph.node if n.output[0] == "w1_DequantizeLinear_Output")
        self.assertEqual(helper.get_attribute_value(dq.attribute[0]), 0)

    def test_close_to_float(self):
        feeds = {"x": pm.random_input((1, 3, 8, 8), 9)}
        f = pm.run_graph(self.model, feeds)["y"]
        q = pm.run_graph(self.qdq, feeds)["y"]
        self.assertLess(np.abs(f - q).max(), 0.05 * np.abs(f).max())
        self.assertGreater(np.abs(f - q).max(), 0)  # it did quantise


class DynamicConvTest(unittest.TestCase):
    def test_layout_and_values(self):
        model = tiny_cnn()
        dyn = pm.quantize_dynamic_conv(model)
        ops = [n.op_type for n in dyn.graph.node]
        self.assertEqual(ops, ["DynamicQuantizeLinear", "ConvInteger", "Cast", "Mul", "Mul", "Add", "Relu"] +
                         ["DynamicQuantizeLinear", "ConvInteger", "Cast", "Mul", "Mul", "Add"])
        inits = initializers(dyn)
        self.assertEqual(inits["w1_quantized"].dtype, np.uint8)
        self.assertEqual(inits["w1_zero_point"].dtype, np.uint8)
        self.assertEqual(inits["b1_reshaped"].shape, (1, 4, 1, 1))
        feeds = {"x": pm.random_input((1, 3, 8, 8), 9)}
        f = pm.run_graph(model, feeds)["y"]
        q = pm.run_graph(dyn, feeds)["y"]
        self.assertLess(np.abs(f - q).max(), 0.05 * np.abs(f).max())


class Float16Test(unittest.TestCase):
    def test_whole_graph(self):
        f16 = pm.to_float16(tiny_cnn())
        self.assertTrue(all(i.data_type == TensorProto.FLOAT16 for i in f16.graph.initializer))
        self.assertEqual(f16.graph.input[0].type.tensor_type.elem_type, TensorProto.FLOAT16)
        self.assertEqual(f16.graph.output[0].type.tensor_type.elem_type, TensorProto.FLOAT16)


class CompareOutputsTest(unittest.TestCase):
    def run_rule(self, rule, got, ref, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            for name, arr in (("got", got), ("ref", ref)):
                os.mkdir(os.path.join(tmp, name))
                onnx.save_tensor(numpy_helper.from_array(arr.astype(np.float32)), os.path.join(tmp, name, "output_0.pb"))
            r = subprocess.run([sys.executable, os.path.join(HERE, "compare_outputs.py"), "--rule", rule, "--got",
                                os.path.join(tmp, "got"), "--ref", os.path.join(tmp, "ref"), *extra],
                               capture_output=True, text=True)
            return r.returncode, r.stdout

    def test_int8(self):
        ref = np.linspace(-1, 1, 1000) * 255 / 2 * 0.01  # range 2.55: one step is 0.01
        got = ref.copy()
        got[:10] += 0.01  # 1% of elements one step off: agree
        self.assertEqual(self.run_rule("int8", got, ref)[0], 0)
        got[0] += 0.01  # one element two steps off
        self.assertEqual(self.run_rule("int8", got, ref)[0], 1)
        got = ref.copy()
        got[:30] += 0.008  # 3% of elements over half a step
        self.assertEqual(self.run_rule("int8", got, ref)[0], 1)

    def test_bf16_top1(self):
        ref = np.array([[0.1, 1.0, 0.99]])
        self.assertEqual(self.run_rule("bf16", ref * 1.001, ref, "--top1")[0], 0)
        got = ref.copy()
        got[0, 2] = 1.005  # within 2e-2 but the class changes
        self.assertEqual(self.run_rule("bf16", got, ref)[0], 0)
        self.assertEqual(self.run_rule("bf16", got, ref, "--top1")[0], 1)

    def test_shape_mismatch_is_an_error(self):
        code, out = self.run_rule("fp32", np.zeros((2, 3)), np.zeros((3, 2)))
        self.assertEqual(code, 2)
        self.assertIn("shape", out)


if __name__ == "__main__":
    unittest.main()
