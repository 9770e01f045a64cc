"""Independent cross-check for ge_memory_bench: the lower bound of a model's feature map
with no sharing rules (no in-place, views or Concat slices), from ONNX's own shape
inference and the model's node order. Graph inputs/outputs (zero-copy) and initializers
are not in the feature map; sizes are rounded up to 512 bytes.

usage: /usr/bin/python3 reference_bound.py MODEL.onnx"""

import sys

import numpy as np
import onnx
from onnx import mapping, shape_inference


def main():
    model = shape_inference.infer_shapes(onnx.load(sys.argv[1]))
    g = model.graph
    shapes = {}
    for vi in list(g.value_info) + list(g.output) + list(g.input):
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        itemsize = np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[vi.type.tensor_type.elem_type]).itemsize
        shapes[vi.name] = int(np.prod(dims)) * itemsize
    excluded = {i.name for i in g.initializer} | {i.name for i in g.input} | {o.name for o in g.output}
    first, last = {}, {}
    for step, node in enumerate(g.node, start=1):
        for out in node.output:
            if out and out not in excluded:
                first[out] = last[out] = step
        for name in node.input:
            if name in first:
                last[name] = step
    peak = 0
    for step in range(1, len(g.node) + 1):
        live = sum((shapes[v] + 511) // 512 * 512 for v in first if first[v] <= step <= last[v])
        peak = max(peak, live)
    print(f"{sys.argv[1]}: {len(g.node)} nodes, no-sharing lower bound {peak} bytes ({peak / 2**20:.3f} MiB)")


if __name__ == "__main__":
    main()
