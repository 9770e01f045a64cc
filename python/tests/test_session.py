"""The ge Python module end to end, on the bundled sample CNN and small generated models.

    PYTHONPATH=build/release/lib/python3/dist-packages GE_SOURCE_DIR=. \
        /usr/bin/python3 -m unittest discover -s python/tests -v

(ctest runs it as ge_python_test.)
"""

import json
import os
import re
import tempfile
import threading
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ge

SOURCE_DIR = os.environ.get("GE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(SOURCE_DIR, "samples", "models", "small_cnn.onnx")
SAMPLE_DATA = os.path.join(SOURCE_DIR, "samples", "models", "small_cnn")


def load_expected():
    with open(os.path.join(SAMPLE_DATA, "output_0.pb"), "rb") as f:
        return numpy_helper.to_array(TensorProto.FromString(f.read()))


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def dynamic_model(path):
    """y = Relu(x), x float32[N,4]: a symbolic batch dim."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "dynamic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])])
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def dtypes_model(path):
    """Neg on int32 and int64, Abs on float16 and float64, Not on bool; `same` passes `i`
    through (Identity); `k` is a constant."""
    graph = helper.make_graph(
        [helper.make_node("Neg", ["i"], ["i_neg"]),
         helper.make_node("Neg", ["l"], ["l_neg"]),
         helper.make_node("Abs", ["h"], ["h_abs"]),
         helper.make_node("Abs", ["d"], ["d_abs"]),
         helper.make_node("Not", ["b"], ["b_not"]),
         helper.make_node("Identity", ["i"], ["same"]),
         helper.make_node("Constant", [], ["k"],
                          value=helper.make_tensor("kv", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0]))],
        "dtypes",
        [helper.make_tensor_value_info("i", TensorProto.INT32, [3]),
         helper.make_tensor_value_info("l", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT16, [3]),
         helper.make_tensor_value_info("d", TensorProto.DOUBLE, [3]),
         helper.make_tensor_value_info("b", TensorProto.BOOL, [3])],
        [helper.make_tensor_value_info(name, type, [3]) for name, type in
         [("i_neg", TensorProto.INT32), ("l_neg", TensorProto.INT64), ("h_abs", TensorProto.FLOAT16),
          ("d_abs", TensorProto.DOUBLE), ("b_not", TensorProto.BOOL), ("same", TensorProto.INT32),
          ("k", TensorProto.FLOAT)]])
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


class SampleModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.session = ge.Session(SAMPLE)
        cls.x = np.load(os.path.join(SAMPLE_DATA, "input_0.npy"))
        cls.expected = load_expected()
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_output_matches_expected(self):
        outputs = self.session.run({"input": self.x})
        self.assertEqual(list(outputs), ["output"])
        self.assertEqual(outputs["output"].dtype, np.float32)
        np.testing.assert_allclose(outputs["output"], self.expected, rtol=0, atol=1e-4)

    def test_every_opt_level_and_thread_count(self):
        for opt_level in range(4):
            session = ge.Session(SAMPLE, opt_level=opt_level, threads=1)
            np.testing.assert_allclose(session.run({"input": self.x})["output"], self.expected, rtol=0, atol=1e-4)

    def test_outputs_outlive_later_runs(self):
        first = self.session.run({"input": self.x})["output"]
        kept = first.copy()
        for _ in range(3):
            self.session.run({"input": np.zeros_like(self.x)})
        np.testing.assert_array_equal(first, kept)

    def test_non_contiguous_input_is_copied(self):
        strided = np.zeros((1, 3, 16, 32), np.float32)
        strided[..., ::2] = self.x
        view = strided[..., ::2]
        self.assertFalse(view.flags.c_contiguous)
        np.testing.assert_allclose(self.session.run({"input": view})["output"], self.expected, rtol=0, atol=1e-4)
        fortran = np.asfortranarray(self.x)
        np.testing.assert_allclose(self.session.run({"input": fortran})["output"], self.expected, rtol=0, atol=1e-4)

    def test_misaligned_input_is_copied_not_bound(self):
        # A C-contiguous array 4 bytes past an aligned address: the engine binds only
        # 32-byte-aligned buffers zero-copy and copies this one.
        raw = np.zeros(self.x.size * 4 + 64, dtype=np.uint8)
        start = (-raw.ctypes.data) % 64 + 4
        misaligned = raw[start:start + self.x.nbytes].view(np.float32).reshape(self.x.shape)
        misaligned[...] = self.x
        self.assertEqual(misaligned.ctypes.data % 32, 4)
        for _ in range(2):
            np.testing.assert_allclose(self.session.run({"input": misaligned})["output"], self.expected,
                                       rtol=0, atol=1e-4)

    def test_wrong_dtype_raises_the_engine_message(self):
        with self.assertRaises(ValueError) as caught:
            self.session.run({"input": self.x.astype(np.float64)})
        self.assertEqual(str(caught.exception), "input 'input' has dtype float64 but the model expects float32")

    def test_wrong_shape_raises_the_engine_message(self):
        with self.assertRaises(ValueError) as caught:
            self.session.run({"input": self.x[:, :, :8]})
        self.assertEqual(str(caught.exception),
                         "input 'input' has shape [1,3,8,16] but the model expects float32[1,3,16,16]")

    def test_missing_and_unknown_inputs_raise_the_engine_message(self):
        with self.assertRaises(ValueError) as caught:
            self.session.run({})
        self.assertEqual(str(caught.exception), "input 'input' is not bound; the model's inputs are: input")
        with self.assertRaises(ValueError) as caught:
            self.session.run({"input": self.x, "extra": self.x})
        self.assertEqual(str(caught.exception), "unknown input 'extra'; the model's inputs are: input")

    def test_unsupported_numpy_dtype_and_bad_names(self):
        with self.assertRaisesRegex(ValueError, "input 'input' has numpy dtype object, which GE does not take"):
            self.session.run({"input": np.array([None])})
        with self.assertRaisesRegex(TypeError, "input names must be str"):
            self.session.run({0: self.x})

    def test_bad_model_path_and_backend(self):
        with self.assertRaises(ValueError) as caught:
            ge.Session(os.path.join(self.tmp.name, "missing.onnx"))
        self.assertEqual(str(caught.exception),
                         "model file '" + os.path.join(self.tmp.name, "missing.onnx") + "' does not exist")
        with self.assertRaisesRegex(ValueError, "no backend named 'nope'"):
            ge.Session(SAMPLE, backend="nope")
        with self.assertRaisesRegex(ValueError, "opt_level must be 0, 1, 2 or 3, got 7"):
            ge.Session(SAMPLE, opt_level=7)

    def test_plugin_options_reach_the_plugins(self):
        session = ge.Session(SAMPLE, opt_level=0, plugin_options={"cpu.kernel_providers": ["reference"],
                                                                  "cpu.winograd": False})
        np.testing.assert_allclose(session.run({"input": self.x})["output"], self.expected, rtol=0, atol=1e-4)
        # The backend reads them: a list that does not end with the reference kernels is refused.
        with self.assertRaisesRegex(RuntimeError, "the list must end with 'reference'"):
            ge.Session(SAMPLE, plugin_options={"cpu.kernel_providers": ("dnnl",)})
        with self.assertRaisesRegex(RuntimeError, "option winograd must be a bool, got \"maybe\""):
            ge.Session(SAMPLE, plugin_options={"cpu.winograd": "maybe"})
        with self.assertRaisesRegex(ValueError, "no registry defines a plugin named 'gpu'"):
            ge.Session(SAMPLE, plugin_options={"gpu.threads": 2})
        with self.assertRaisesRegex(ValueError, "plugin_options key 'cpu' is not PLUGIN.KEY"):
            ge.Session(SAMPLE, plugin_options={"cpu": 1})
        with self.assertRaisesRegex(TypeError, "must be a bool, int, float, str or list of str, got dict"):
            ge.Session(SAMPLE, plugin_options={"cpu.winograd": {}})
        gem = os.path.join(self.tmp.name, "reference.gem")
        ge.compile(SAMPLE, gem, plugin_options={"cpu.kernel_providers": ["reference"]})
        reference_only = ge.Session(gem, plugin_options={"cpu.kernel_providers": ["reference"]})
        np.testing.assert_allclose(reference_only.run({"input": self.x})["output"], self.expected, rtol=0, atol=1e-4)
        # Loaded with the default providers, its stored plan no longer fits the kernels.
        with self.assertRaisesRegex(ValueError, "was compiled for kernel 'cpu.Conv.im2col'.*recompile the model"):
            ge.Session(gem)
        with self.assertRaisesRegex(RuntimeError, "did you mean 'winograd'"):
            ge.compile(SAMPLE, gem, plugin_options={"cpu.winogrd": False})

    def test_metadata(self):
        self.assertEqual(self.session.inputs, [("input", np.dtype(np.float32), [1, 3, 16, 16])])
        self.assertEqual(self.session.outputs, [("output", np.dtype(np.float32), [1, 10])])
        self.assertEqual(self.session.inputs[0].name, "input")
        self.assertEqual(self.session.backend, "cpu")

    def test_gem_round_trip(self):
        gem = os.path.join(self.tmp.name, "small_cnn.gem")
        ge.compile(SAMPLE, gem)
        self.assertGreater(os.path.getsize(gem), 0)
        loaded = ge.Session(gem)
        self.assertEqual(loaded.backend, "cpu")
        self.assertEqual(loaded.inputs, self.session.inputs)
        self.assertEqual(loaded.outputs, self.session.outputs)
        from_gem = loaded.run({"input": self.x})["output"]
        np.testing.assert_array_equal(from_gem, self.session.run({"input": self.x})["output"])
        np.testing.assert_allclose(from_gem, self.expected, rtol=0, atol=1e-4)

    def test_two_threads_share_one_session(self):
        inputs = [self.x, self.x[:, :, ::-1].copy()]
        references = [self.session.run({"input": x})["output"] for x in inputs]
        start = threading.Barrier(2)
        mismatches, errors = [], []

        def client(index):
            try:
                start.wait()
                for _ in range(100):
                    out = self.session.run({"input": inputs[index]})["output"]
                    if not np.array_equal(out, references[index]):
                        mismatches.append(index)
            except Exception as error:  # reported below: a thread's exception is lost otherwise
                errors.append(error)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])
        self.assertEqual(mismatches, [])
        np.testing.assert_allclose(references[0], self.expected, rtol=0, atol=1e-4)
        self.assertFalse(np.array_equal(references[0], references[1]))

    def test_profile_writes_a_chrome_trace(self):
        trace_file = os.path.join(self.tmp.name, "trace.json")
        outputs = self.session.run({"input": self.x}, profile=trace_file)
        np.testing.assert_allclose(outputs["output"], self.expected, rtol=0, atol=1e-4)
        with open(trace_file) as f:
            trace = json.load(f)
        events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        self.assertEqual([e["name"] for e in events if e.get("cat") == "run"], ["run 0"])
        self.assertTrue(any(e.get("cat") == "compile" for e in events))
        self.assertEqual(trace["otherData"]["backend"], "cpu")
        self.assertEqual(trace["otherData"]["device_traced"], 1)
        self.assertTrue(any(e.get("cat") == "kernel" for e in events))


class ModuleTest(unittest.TestCase):
    def test_version_is_ge_version(self):
        with open(os.path.join(SOURCE_DIR, "core", "include", "ge", "version.h")) as f:
            parts = dict(re.findall(r"#define GE_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
        self.assertEqual(ge.__version__, "{MAJOR}.{MINOR}.{PATCH}".format(**parts))

    def test_list_plugins_has_the_cpu_backend(self):
        plugins = {p["name"]: p for p in ge.list_plugins()}
        self.assertIn("cpu", plugins)
        self.assertEqual(plugins["cpu"]["kind"], "backend")
        self.assertTrue(plugins["cpu"]["loaded"])
        self.assertIsNone(plugins["cpu"]["error"])
        self.assertTrue(os.path.isfile(plugins["cpu"]["library"]))
        self.assertTrue(plugins["cpu"]["registry"].endswith("ge_plugins.toml"))

    def test_extra_and_environment_registries(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.toml")
            with open(bad, "w") as f:
                f.write("[[plugin]\n")
            with self.assertRaisesRegex(RuntimeError, re.escape(bad)):
                ge.list_plugins(plugins=[bad])
            with self.assertRaisesRegex(RuntimeError, re.escape(bad)):
                ge.Session(SAMPLE, plugins=[bad])
            os.environ["GE_PLUGINS"] = bad
            try:
                with self.assertRaisesRegex(RuntimeError, re.escape(bad)):
                    ge.Session(SAMPLE)
            finally:
                del os.environ["GE_PLUGINS"]
            # An extra registry redefining a built-in plugin overrides it, as ge-run --plugins does.
            cpu = {p["name"]: p for p in ge.list_plugins()}["cpu"]
            extra = os.path.join(tmp, "extra.toml")
            with open(extra, "w") as f:
                f.write('[[plugin]]\nname = "cpu"\nkind = "backend"\nlibrary = "%s"\n' % cpu["library"])
            records = [p for p in ge.list_plugins(plugins=[extra]) if p["name"] == "cpu"]
            self.assertEqual([(p["registry"], p["loaded"]) for p in records],
                             [(extra, True), (cpu["registry"], False)])
            self.assertEqual(ge.Session(SAMPLE, plugins=[extra]).backend, "cpu")


class DtypesAndDynamicShapesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_symbolic_dims(self):
        session = ge.Session(dynamic_model(os.path.join(self.tmp.name, "dynamic.onnx")))
        self.assertEqual(session.inputs, [("x", np.dtype(np.float32), ["N", 4])])
        for batch in (1, 3):
            x = np.linspace(-1, 1, batch * 4, dtype=np.float32).reshape(batch, 4)
            np.testing.assert_array_equal(session.run({"x": x})["y"], np.maximum(x, 0))

    def test_specialise_after(self):
        path = dynamic_model(os.path.join(self.tmp.name, "dynamic_after.onnx"))
        for after in (1, 2, 3):
            session = ge.Session(path, specialise_after=after)
            x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
            for _ in range(3):
                np.testing.assert_array_equal(session.run({"x": x})["y"], np.maximum(x, 0))
        with self.assertRaisesRegex(ValueError, "specialise_after must be at least 1, got 0"):
            ge.Session(path, specialise_after=0)

    def test_statistics_report_signatures_plans_and_the_pool(self):
        session = ge.Session(dynamic_model(os.path.join(self.tmp.name, "dynamic_stats.onnx")))
        empty = session.statistics()
        self.assertEqual(empty["signatures"], [])
        self.assertEqual(empty["specialisations"]["misses"], 0)
        x = np.ones((2, 4), np.float32)
        for _ in range(3):  # per op once, compiled on the second run, a hit on the third
            session.run({"x": x})
        session.run({"x": np.ones((5, 4), np.float32)})  # seen once: per op
        stats = session.statistics()
        self.assertEqual(len(stats["signatures"]), 1)
        self.assertIn("float32[2,4]", stats["signatures"][0])
        self.assertIn("task sink", stats["signatures"][0])
        self.assertIn("2 runs", stats["signatures"][0])  # compiled on the second run, found on the third
        self.assertEqual(stats["specialisations"]["misses"], 1)
        self.assertEqual(stats["specialisations"]["hits"], 1)
        self.assertEqual(stats["specialisations"]["unseen"], 2)
        self.assertGreater(stats["specialisations"]["compile_ms"], 0)
        self.assertEqual(stats["kernels"]["plans_built"], 2)
        self.assertGreater(stats["tensor_pool"]["hits"] + stats["tensor_pool"]["misses"], 0)

    def test_dtypes_pass_through(self):
        session = ge.Session(dtypes_model(os.path.join(self.tmp.name, "dtypes.onnx")))
        self.assertEqual([(i.name, i.dtype) for i in session.inputs],
                         [("i", np.int32), ("l", np.int64), ("h", np.float16), ("d", np.float64), ("b", np.bool_)])
        feeds = {"i": np.array([1, -2, 3], np.int32), "l": np.array([1, -2, 2**40], np.int64),
                 "h": np.array([-1.5, 2, -0.25], np.float16), "d": np.array([-1e300, 2, -3], np.float64),
                 "b": np.array([True, False, True])}
        out = session.run(feeds)
        expected = {"i_neg": -feeds["i"], "l_neg": -feeds["l"], "h_abs": np.abs(feeds["h"]),
                    "d_abs": np.abs(feeds["d"]), "b_not": ~feeds["b"], "same": feeds["i"],
                    "k": np.array([1, 2, 3], np.float32)}
        self.assertEqual(list(out), list(expected))
        for name, value in expected.items():
            self.assertEqual(out[name].dtype, value.dtype, name)
            np.testing.assert_array_equal(out[name], value, name)
        # Neither a pass-through output nor a constant one shares bytes with the caller's
        # input or the model's weights.
        self.assertFalse(np.shares_memory(out["same"], feeds["i"]))
        out["k"][:] = 0
        np.testing.assert_array_equal(session.run(feeds)["k"], expected["k"])


    def test_bound_outputs_are_written_in_place(self):
        """outputs={name: array}: the run writes into the caller's array and returns it;
        a decode-like loop reuses its buffers at a new shape every run (symbolic dims);
        the constant output 'k' and a pass-through one are copied into theirs."""
        session = ge.Session(dynamic_model(os.path.join(self.tmp.name, "bound.onnx")))
        for batch in (1, 3, 2, 5):
            x = np.linspace(-1, 1, batch * 4, dtype=np.float32).reshape(batch, 4)
            y = np.full((batch, 4), -7, np.float32)
            out = session.run({"x": x}, outputs={"y": y})
            self.assertIs(out["y"], y)
            np.testing.assert_array_equal(y, np.maximum(x, 0))
        dtypes = ge.Session(dtypes_model(os.path.join(self.tmp.name, "bound_dtypes.onnx")))
        feeds = {"i": np.array([1, -2, 3], np.int32), "l": np.array([1, -2, 4], np.int64),
                 "h": np.array([-1.5, 2, -0.25], np.float16), "d": np.array([-1, 2, -3], np.float64),
                 "b": np.array([True, False, True])}
        k, same, neg = np.zeros(3, np.float32), np.zeros(3, np.int32), np.zeros(3, np.int64)
        out = dtypes.run(feeds, outputs={"k": k, "same": same, "l_neg": neg})
        self.assertIs(out["k"], k)
        np.testing.assert_array_equal(k, [1, 2, 3])
        np.testing.assert_array_equal(same, feeds["i"])
        np.testing.assert_array_equal(neg, -feeds["l"])

    def test_bound_outputs_that_cannot_be_right_raise(self):
        session = ge.Session(dynamic_model(os.path.join(self.tmp.name, "bound_bad.onnx")))
        x = np.ones((2, 4), np.float32)
        with self.assertRaisesRegex(ValueError, r"output 'y' is bound to float32\[3,4\], but this run computes float32\[2,4\]"):
            session.run({"x": x}, outputs={"y": np.zeros((3, 4), np.float32)})
        with self.assertRaisesRegex(ValueError, r"output 'y' is bound to float64\[2,4\]"):
            session.run({"x": x}, outputs={"y": np.zeros((2, 4), np.float64)})
        with self.assertRaisesRegex(ValueError, "bound output 'z' is not an output of the model"):
            session.run({"x": x}, outputs={"z": np.zeros((2, 4), np.float32)})
        with self.assertRaisesRegex(ValueError, "overlaps the memory of input 'x'"):
            session.run({"x": x}, outputs={"y": x})
        with self.assertRaisesRegex(ValueError, "not C-contiguous"):
            session.run({"x": x}, outputs={"y": np.zeros((4, 2), np.float32).T})
        read_only = np.zeros((2, 4), np.float32)
        read_only.flags.writeable = False
        with self.assertRaisesRegex(ValueError, "read-only"):
            session.run({"x": x}, outputs={"y": read_only})
        with self.assertRaisesRegex(TypeError, "must be a numpy array"):
            session.run({"x": x}, outputs={"y": [0.0] * 8})
        np.testing.assert_array_equal(session.run({"x": x})["y"], x)

if __name__ == "__main__":
    unittest.main()
