#!/usr/bin/env python3
"""Runs every case of op_cases.py (and, with --models, torchvision models) through GE's
TorchScript parser (ge.Session on the archive's bytes) and compares with torch.
Exit 1 naming each case that fails or differs. Usage:
  PYTHONPATH=<build>/lib/python3/dist-packages run_op_tests.py [--filter SUBSTR] [-O N]"""
import argparse
import io
import sys

import numpy as np
import torch

import ge
import ge.torch as ge_torch
from op_cases import cases


def flatten(value):
    if isinstance(value, torch.Tensor):
        return [value]
    out = []
    for v in (value.values() if isinstance(value, dict) else value):
        out.extend(flatten(v))
    return out


def check(name, module, inputs, opt_level, rtol, atol):
    module.eval()
    with torch.no_grad():
        expected = [t.numpy() for t in flatten(module(*inputs))]
        if isinstance(module, torch.jit.ScriptModule):
            archive = module
        else:
            archive = torch.jit.trace(module, inputs, check_trace=False, strict=False)
    data = io.BytesIO()
    torch.jit.save(archive, data)
    names = ge_torch.input_names(archive)
    shapes = {n: ge_torch.shape_spec(t) for n, t in zip(names, inputs)}
    session = ge.Session(data.getvalue(), model_format="torchscript", input_shapes=shapes, opt_level=opt_level)
    results = session.run({n: t.numpy() for n, t in zip(names, inputs)})
    got = [results[o.name] for o in session.outputs]
    if len(got) != len(expected):
        return f"{len(got)} outputs, torch has {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape:
            return f"output {i}: shape {g.shape}, torch {e.shape}"
        if g.dtype != e.dtype:
            return f"output {i}: dtype {g.dtype}, torch {e.dtype}"
        if e.dtype == np.bool_ or np.issubdtype(e.dtype, np.integer):
            if not np.array_equal(g, e):
                return f"output {i}: {int((g != e).sum())} elements differ"
            continue
        scale = max(float(np.abs(e).max()) if e.size else 0.0, 1.0)
        err = float(np.abs(g.astype(np.float64) - e).max()) if e.size else 0.0
        if not np.isfinite(g).all() == np.isfinite(e).all() or err > atol * scale + rtol * scale:
            return f"output {i}: max error {err:.3g} (scale {scale:.3g})"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--filter", default="")
    parser.add_argument("-O", dest="opt_level", type=int, default=2)
    parser.add_argument("--models", choices=["none", "small", "all"], default="none",
                        help="also torchvision models and transformers (model_cases.py): the small set or all")
    args = parser.parse_args()
    torch.set_num_threads(1)
    failures = []
    ran = 0
    all_cases = [(name, module, inputs, 1e-4) for name, module, inputs in cases()]
    if args.models != "none":
        import model_cases
        # Models compare to 1e-3 of their output's scale (deep float32 chains reassociate).
        all_cases += [(name, make, (x,), 1e-3) for name, make, x in model_cases.cases(large=args.models == "all")]
    for name, module, inputs, tolerance in all_cases:
        if args.filter not in name:
            continue
        ran += 1
        try:
            if not isinstance(module, torch.nn.Module):
                module = module()
            problem = check(name, module, list(inputs), args.opt_level, tolerance, tolerance)
        except Exception as e:  # noqa: BLE001 - a case's error is its failure
            problem = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        status = "ok" if problem is None else "FAILED: " + problem
        print(f"{name}: {status}", flush=True)
        if problem is not None:
            failures.append(name)
    print(f"{ran - len(failures)} of {ran} cases match torch at -O{args.opt_level}")
    if failures:
        print("failed: " + ", ".join(failures))
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
