"""precision= of ge.Session and ge.compile (issue 37): bf16 where the CPU has bfloat16
arithmetic, float32 (with a warning) where the backend has none, recorded in a .gem.

    PYTHONPATH=build/release/lib/python3/dist-packages GE_SOURCE_DIR=. \\
        /usr/bin/python3 -m unittest discover -s python/tests -p test_precision.py -v
"""

import os
import tempfile
import unittest

import numpy as np
from onnx import TensorProto, numpy_helper

import ge

SOURCE_DIR = os.environ.get("GE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(SOURCE_DIR, "samples", "models", "small_cnn.onnx")
SAMPLE_DATA = os.path.join(SOURCE_DIR, "samples", "models", "small_cnn")


def cpu_has_bf16():
    """What the cpu backend should find: AVX512_BF16 in /proc/cpuinfo, unless oneDNN is capped."""
    if os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA"):
        return None  # the cap decides: the tests take the backend's answer
    with open("/proc/cpuinfo") as f:
        return "avx512_bf16" in f.read().split()


class PrecisionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.x = np.load(os.path.join(SAMPLE_DATA, "input_0.npy"))
        with open(os.path.join(SAMPLE_DATA, "output_0.pb"), "rb") as f:
            cls.expected = numpy_helper.to_array(TensorProto.FromString(f.read()))
        cls.tmp = tempfile.TemporaryDirectory()
        cls.bf16 = ge.Session(SAMPLE, precision="bf16")
        has = cpu_has_bf16()
        cls.has_bf16 = cls.bf16.precision == "bf16" if has is None else has

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_default_is_fp32(self):
        self.assertEqual(ge.Session(SAMPLE).precision, "fp32")
        self.assertEqual(ge.Session(SAMPLE, precision="fp32").precision, "fp32")

    def test_bf16_runs_in_bf16_where_the_cpu_has_it(self):
        self.assertEqual(self.bf16.precision, "bf16" if self.has_bf16 else "fp32")
        got = self.bf16.run({"input": self.x})["output"]
        # bfloat16 keeps 8 bits of mantissa: the softmax stays within 1e-2 of float32's.
        np.testing.assert_allclose(got, self.expected, rtol=0, atol=1e-2)
        mixed = ge.Session(SAMPLE, precision="mixed")
        self.assertEqual(mixed.precision, "mixed" if self.has_bf16 else "fp32")
        np.testing.assert_allclose(mixed.run({"input": self.x})["output"], self.expected, rtol=0, atol=1e-2)

    def test_a_backend_without_it_runs_fp32(self):
        session = ge.Session(SAMPLE, backend="npu_sim", precision="bf16")
        self.assertEqual(session.precision, "fp32")
        np.testing.assert_allclose(session.run({"input": self.x})["output"], self.expected, rtol=0, atol=1e-5)

    def test_unknown_precision_is_a_value_error(self):
        with self.assertRaisesRegex(ValueError, r"^precision must be 'fp32', 'bf16' or 'mixed', got 'fp16'$"):
            ge.Session(SAMPLE, precision="fp16")
        with self.assertRaisesRegex(ValueError, r"got 'BF16'"):
            ge.compile(SAMPLE, os.path.join(self.tmp.name, "x.gem"), precision="BF16")

    def test_gem_records_the_precision_and_runs_in_it(self):
        gem = os.path.join(self.tmp.name, "bf16.gem")
        ge.compile(SAMPLE, gem, precision="bf16")
        stored = "bf16" if self.has_bf16 else "fp32"
        loaded = ge.Session(gem)
        self.assertEqual(loaded.precision, stored)
        self.assertEqual(ge.Session(gem, precision=stored).precision, stored)
        got = loaded.run({"input": self.x})["output"]
        np.testing.assert_array_equal(got, self.bf16.run({"input": self.x})["output"])
        other = "fp32" if stored == "bf16" else "mixed"
        with self.assertRaisesRegex(ValueError, "was compiled with precision %s, not %s" % (stored, other)):
            ge.Session(gem, precision=other)
        fp32 = os.path.join(self.tmp.name, "fp32.gem")
        ge.compile(SAMPLE, fp32)
        self.assertEqual(ge.Session(fp32).precision, "fp32")


if __name__ == "__main__":
    unittest.main()
