"""Live sessions under an address-space limit (`ulimit -v`): each ge.Session loads every
plugin of the registry, npu_sim's among them, and npu_sim reserved its 256 MiB of device
memory as it registered, so under `ulimit -v 6G` the 22nd live cpu Session failed with
"registration failed: std::bad_alloc". The device memory is now reserved when npu_sim
first allocates. (ctest runs it as part of ge_python_test.)
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import onnx
from onnx import TensorProto, helper

# The child: 40 live cpu Sessions with 1.5 GiB of address space to spare (about 16 MiB
# each now; 40 npu_sim blocks would take 10 GiB).
CHILD = textwrap.dedent("""
    import resource, sys
    import ge
    with open("/proc/self/status") as status:
        used = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    limit = used + 1536 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sessions = []
    try:
        for _ in range(40):
            sessions.append(ge.Session(sys.argv[1]))
    except Exception as error:
        print(len(sessions), "sessions, then", type(error).__name__, error)
        sys.exit(1)
    print(len(sessions), "sessions")
""")


class AddressSpaceTest(unittest.TestCase):
    def test_forty_live_cpu_sessions_fit_in_a_few_hundred_mib_of_address_space(self):
        with tempfile.TemporaryDirectory() as tmp:
            graph = helper.make_graph(
                [helper.make_node("Relu", ["x"], ["y"])], "relu",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
            model = os.path.join(tmp, "relu.onnx")
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), model)
            child = subprocess.run([sys.executable, "-c", CHILD, model], capture_output=True, text=True, timeout=120)
        self.assertEqual(child.returncode, 0, child.stdout + child.stderr)
        self.assertEqual(child.stdout.strip(), "40 sessions")


if __name__ == "__main__":
    unittest.main()
