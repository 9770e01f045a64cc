"""The TorchScript frontend end to end: ge.torch.compile, ge.torch.save, ge-run and
ge-compile on .pt archives, and the errors a PyTorch user meets. Run by ctest with
PYTHONPATH at the built ge package and GE_BUILD_DIR at the build tree."""
import io
import os
import subprocess
import tempfile
import unittest
import warnings
import zipfile

import numpy as np
import torch
import torch.nn as nn

import ge
import ge.torch

BIN = os.path.join(os.environ.get("GE_BUILD_DIR", "build/release"), "bin")


class TwoInTupleOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, image, scale):
        features = self.conv(image).relu().mean(dim=(2, 3))
        return self.fc(features) * scale, features


class DataDependentBranch(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class GatedBlock(nn.Module):
    """An If on the input's data whose branches read weights, a value computed before
    the If, and (in the then branch) an inner If on the data again."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.scale = nn.Parameter(torch.tensor(0.5))

    def forward(self, x, gate):
        y = torch.relu(self.conv(x))
        if gate.mean() > 0:
            z = y * self.scale + x
            if z.amax() > 1.0:
                z = z / z.amax()
        else:
            z = torch.sigmoid(y) - x
        return z + 1, y


class BranchesOfTwoShapes(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x[:2]
        return x


class RaisingBranch(nn.Module):
    def forward(self, x):
        if bool(x.min() < -100.0):
            raise ValueError("out of range")
        return x * 2


class BranchInvalidForTheseShapes(nn.Module):
    def forward(self, x):
        if x.abs().sum() >= 0:  # always, but on the data: the else branch is never taken
            return x * 2
        return x.view(2, -1).view(-1)  # no view of 3 elements as 2 rows


class DataDependentLoop(nn.Module):
    def forward(self, x):
        while bool(x.sum() < 100.0):
            x = x * 2 + 1
        return x


class NonZero(nn.Module):
    def forward(self, x):
        return torch.nonzero(x > 0)


def run_tool(*args):
    return subprocess.run([os.path.join(BIN, args[0]), *args[1:]], capture_output=True, text=True, timeout=300)


class TorchCompileTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.module = TwoInTupleOut().eval()
        self.inputs = (torch.randn(2, 3, 16, 16), torch.randn(2, 4))

    def test_two_inputs_and_a_tuple_output_match_torch(self):
        compiled = ge.torch.compile(self.module, self.inputs)
        got = compiled(*self.inputs)
        with torch.no_grad():
            expected = self.module(*self.inputs)
        self.assertIsInstance(got, tuple)
        self.assertEqual(len(got), 2)
        for g, e in zip(got, expected):
            self.assertIsInstance(g, torch.Tensor)
            self.assertEqual(g.shape, e.shape)
            torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)
        # New data of the same shapes runs on the same compiled model.
        other = (torch.randn(2, 3, 16, 16), torch.randn(2, 4))
        with torch.no_grad():
            torch.testing.assert_close(compiled(*other)[0], self.module(*other)[0], rtol=1e-4, atol=1e-4)

    def test_outputs_share_ges_buffers(self):
        compiled = ge.torch.compile(self.module, self.inputs)
        out, _ = compiled(*self.inputs)
        self.assertFalse(out.numpy().flags["OWNDATA"])  # a view of GE's array, not a copy

    def test_wrong_inputs_raise(self):
        compiled = ge.torch.compile(self.module, self.inputs)
        with self.assertRaisesRegex(TypeError, "expected 2 inputs"):
            compiled(self.inputs[0])
        with self.assertRaisesRegex(ValueError, "shape"):
            compiled(torch.randn(1, 3, 16, 16), self.inputs[1])

    def test_an_unsupported_op_names_the_op_its_schema_and_source_line(self):
        with self.assertRaises(RuntimeError) as caught:
            ge.torch.compile(NonZero(), (torch.randn(4, 4),))
        message = str(caught.exception)
        self.assertIn("unsupported TorchScript op 'aten::nonzero'", message)
        self.assertIn("aten::nonzero(Tensor self) -> Tensor", message)
        self.assertIn("test_frontend.py", message)  # the line of forward that called it

    def test_fallback_eager_warns_and_runs_in_pytorch(self):
        module = NonZero()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fallback = ge.torch.compile(module, (torch.randn(4, 4),), fallback="eager")
        self.assertIs(fallback, module)
        self.assertTrue(any("aten::nonzero" in str(w.message) and "eager" in str(w.message) for w in caught))

    def test_an_if_on_the_inputs_data_runs_either_branch(self):
        scripted = torch.jit.script(DataDependentBranch())
        compiled = ge.torch.compile(scripted, (torch.randn(3),))
        for x in (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([-1.0, -2.0, 0.5])):
            torch.testing.assert_close(compiled(x), scripted(x))

    def test_nested_ifs_with_weights_and_outer_values(self):
        torch.manual_seed(1)
        scripted = torch.jit.script(GatedBlock().eval())
        x = torch.randn(1, 4, 8, 8)
        compiled = ge.torch.compile(scripted, (x, torch.randn(3)))
        # Both branches, and the inner If both ways (a large x makes z's maximum exceed 1).
        for xs, gate in ((x, torch.ones(3)), (x * 0.01, torch.ones(3)), (x, -torch.ones(3))):
            got = compiled(xs, gate)
            with torch.no_grad():
                expected = scripted(xs, gate)
            for g, e in zip(got, expected):
                torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-5)

    def test_branches_returning_different_shapes_are_refused(self):
        with self.assertRaisesRegex(RuntimeError, "prim::If.*same dtypes and shapes"):
            ge.torch.compile(torch.jit.script(BranchesOfTwoShapes()), (torch.randn(4, 3),))

    def test_a_check_that_raises_is_refused(self):
        with self.assertRaisesRegex(RuntimeError, "prim::If.*raises an exception.*cannot raise at run time"):
            ge.torch.compile(torch.jit.script(RaisingBranch()), (torch.randn(3),))

    def test_a_branch_that_cannot_run_on_the_example_values_is_refused(self):
        with self.assertRaisesRegex(
                RuntimeError, r"branch the example run did not take could not be run.*shape '\[2, -1\]' is invalid"):
            ge.torch.compile(torch.jit.script(BranchInvalidForTheseShapes()), (torch.randn(3),))

    def test_a_loop_on_the_inputs_data_is_refused(self):
        with self.assertRaisesRegex(RuntimeError, "prim::Loop.*loop whose trip count or condition depends"):
            ge.torch.compile(torch.jit.script(DataDependentLoop()), (torch.randn(3),))

    def test_bad_fallback_value(self):
        with self.assertRaisesRegex(ValueError, "fallback"):
            ge.torch.compile(self.module, self.inputs, fallback="yes")


class ToolsTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(1)
        self.dir = tempfile.TemporaryDirectory()
        self.module = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 5))
        self.module.eval()
        self.x = torch.randn(1, 3, 8, 8)
        with torch.no_grad():
            self.expected = self.module(self.x).numpy()
        self.npy = self.path("x.npy")
        np.save(self.npy, self.x.numpy())

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def output_of(self, out_dir):
        # ge-run writes ONNX TensorProtos; read one with the onnx package.
        import onnx.numpy_helper
        from onnx import TensorProto
        tensor = TensorProto()
        with open(os.path.join(out_dir, "output_0.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        return onnx.numpy_helper.to_array(tensor)

    def test_ge_run_reads_the_shapes_ge_torch_save_stores(self):
        model = self.path("m.pt")
        ge.torch.save(self.module, (self.x,), model)
        result = run_tool("ge-run", model, "--input", f"input={self.npy}", "--output-dir", self.path("out"))
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_allclose(self.output_of(self.path("out")), self.expected, rtol=1e-4, atol=1e-4)

    def test_a_plain_archive_needs_input_shape(self):
        model = self.path("plain.pt")
        torch.jit.trace(self.module, self.x).save(model)
        result = run_tool("ge-run", model, "--input", f"input={self.npy}")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("stores no input shapes", result.stderr)
        self.assertIn("--input-shape input:", result.stderr)
        result = run_tool("ge-run", model, "--input-shape", "input:1,3,8,8", "--input", f"input={self.npy}",
                          "--output-dir", self.path("out"))
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_allclose(self.output_of(self.path("out")), self.expected, rtol=1e-4, atol=1e-4)
        result = run_tool("ge-run", model, "--input-shape", "nosuch:1,3,8,8")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("the module has no input 'nosuch' (its inputs: 'input')", result.stderr)

    def test_ge_compile_and_export_onnx(self):
        model = self.path("m.pt")
        ge.torch.save(self.module, (self.x,), model)
        gem = self.path("m.gem")
        result = run_tool("ge-compile", model, "--output", gem)
        self.assertEqual(result.returncode, 0, result.stderr)
        result = run_tool("ge-run", gem, "--input", f"input={self.npy}", "--output-dir", self.path("out_gem"))
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_allclose(self.output_of(self.path("out_gem")), self.expected, rtol=1e-4, atol=1e-4)
        onnx_path = self.path("m.onnx")
        result = run_tool("ge-compile", model, "--export-onnx", onnx_path)
        self.assertEqual(result.returncode, 0, result.stderr)
        result = run_tool("ge-run", onnx_path, "--input", f"input={self.npy}", "--output-dir", self.path("out_onnx"))
        self.assertEqual(result.returncode, 0, result.stderr)
        np.testing.assert_allclose(self.output_of(self.path("out_onnx")), self.expected, rtol=1e-4, atol=1e-4)

    def test_python_session_on_a_pt_file(self):
        model = self.path("m.pt")
        ge.torch.save(self.module, (self.x,), model)
        session = ge.Session(model)
        self.assertEqual([i.name for i in session.inputs], ["input"])
        got = session.run({"input": self.x.numpy()})[session.outputs[0].name]
        np.testing.assert_allclose(got, self.expected, rtol=1e-4, atol=1e-4)

    def test_corrupt_and_truncated_archives_are_clean_errors(self):
        model = self.path("m.pt")
        ge.torch.save(self.module, (self.x,), model)
        data = open(model, "rb").read()
        for name, content in [("random.pt", os.urandom(4096)), ("truncated.pt", data[: len(data) // 2]),
                              ("empty.pt", b"")]:
            with open(self.path(name), "wb") as f:
                f.write(content)
            result = run_tool("ge-run", self.path(name), "--input-shape", "input:1,3,8,8")
            self.assertEqual(result.returncode, 1, name + ": " + result.stderr)
            self.assertIn("not a TorchScript archive libtorch can load", result.stderr, name)
            # ge-compile blames the file, not the shape it was given.
            result = run_tool("ge-compile", self.path(name), "--input-shape", "input:1,3,8,8", "--output",
                              self.path("m.gem"))
            self.assertEqual(result.returncode, 1, name + ": " + result.stderr)
            self.assertIn("not a TorchScript archive libtorch can load", result.stderr, name)
            self.assertNotIn("--input-shape:", result.stderr, name)

    def test_an_archive_of_a_newer_version_says_so(self):
        model = self.path("m.pt")
        ge.torch.save(self.module, (self.x,), model)
        newer = self.path("newer.pt")
        with zipfile.ZipFile(model) as src, zipfile.ZipFile(newer, "w") as dst:
            for item in src.infolist():
                content = src.read(item.filename)
                if item.filename.endswith("/version"):
                    content = b"99\n"
                dst.writestr(item, content)
        result = run_tool("ge-run", newer)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("unsupported TorchScript archive version", result.stderr)

    def test_missing_file(self):
        result = run_tool("ge-run", self.path("absent.pt"))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("absent.pt", result.stderr)


if __name__ == "__main__":
    unittest.main()
