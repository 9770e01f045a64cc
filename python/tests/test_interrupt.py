"""Ctrl-C during ge.Session.run: a Loop of 2^62 iterations, run in a child process, gets
SIGINT and the child raises KeyboardInterrupt within moments and exits cleanly; the session
runs again afterwards. (ctest runs it as part of ge_python_test.)
"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper

import ge  # noqa: F401  (the child imports it; fail here first when it does not load)


def counting_loop_model(path):
    """final = x + M: a Loop whose body adds 1 to x per iteration; M is an input."""
    value = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Identity", ["cin"], ["cout"]), helper.make_node("Add", ["v", "one"], ["vout"])], "body",
        [value("i", TensorProto.INT64, []), value("cin", TensorProto.BOOL, []), value("v", TensorProto.FLOAT, [1])],
        [value("cout", TensorProto.BOOL, []), value("vout", TensorProto.FLOAT, [1])],
        [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "cond", "x"], ["y"], body=body)], "g",
        [value("M", TensorProto.INT64, []), value("x", TensorProto.FLOAT, [1])], [value("y", TensorProto.FLOAT, [1])],
        [helper.make_tensor("cond", TensorProto.BOOL, [], [True])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


# The child: one short run, then 'running' on stdout and a run of 2^62 iterations that
# only SIGINT ends; then a short run again. `handler` installs a SIGINT handler that only
# notes the signal (the run must still stop, with KeyboardInterrupt).
CHILD = textwrap.dedent("""
    import signal, sys, time
    import numpy as np
    import ge
    model, handler = sys.argv[1], sys.argv[2]
    noted = []
    if handler == "noting":
        signal.signal(signal.SIGINT, lambda number, frame: noted.append(number))
    session = ge.Session(model)
    x = np.zeros(1, np.float32)
    assert session.run({"M": np.array(3, np.int64), "x": x})["y"][0] == 3
    print("running", flush=True)
    start = time.monotonic()
    try:
        session.run({"M": np.array(2**62, np.int64), "x": x})
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("KeyboardInterrupt after %.3f s" % (time.monotonic() - start), flush=True)
    print("handler saw", noted, flush=True)
    print("after", session.run({"M": np.array(5, np.int64), "x": x})["y"][0], flush=True)
""")


class InterruptTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = counting_loop_model(os.path.join(cls.tmp.name, "loop.onnx"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def interrupt(self, handler):
        """Runs the child, sends SIGINT 0.5 s into its long run; returns its stdout lines
        and exit status."""
        child = subprocess.Popen([sys.executable, "-c", CHILD, self.model, handler], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(child.stdout.readline().strip(), "running")
            time.sleep(0.5)
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=20)
            exited_after = time.monotonic() - sent
        finally:
            if child.poll() is None:
                child.kill()
                child.communicate()
        self.assertEqual(child.returncode, 0, err)
        self.assertLess(exited_after, 10, "the run went on long after SIGINT")
        return out.splitlines()

    def test_sigint_raises_keyboard_interrupt_and_the_session_stays_usable(self):
        lines = self.interrupt("default")
        self.assertEqual(len(lines), 3, lines)
        self.assertRegex(lines[0], r"^KeyboardInterrupt after \d+\.\d+ s$")
        self.assertEqual(lines[1:], ["handler saw []", "after 5.0"])

    def test_a_python_handler_runs_and_the_run_still_stops(self):
        lines = self.interrupt("noting")
        self.assertEqual(len(lines), 3, lines)
        self.assertRegex(lines[0], r"^KeyboardInterrupt after \d+\.\d+ s$")
        self.assertEqual(lines[1:], ["handler saw [%d]" % signal.SIGINT, "after 5.0"])


if __name__ == "__main__":
    unittest.main()
