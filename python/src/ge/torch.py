"""PyTorch modules on GE, through GE's TorchScript parser plugin.

    import ge.torch
    fast = ge.torch.compile(model, (example,))   # traces, compiles; returns a callable
    y = fast(x)                                  # torch tensors in, torch tensors out

`ge.torch.save(module, example_inputs, path)` writes a TorchScript archive that stores
its input shapes, for `ge-run model.pt` and `ge-compile model.pt` without --input-shape.
"""
import io
import re
import warnings

import torch

from ._ge import Session

# torch dtypes as GE's dtype names (ge/data_type.h).
_DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.int64: "int64", torch.int32: "int32", torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
    torch.bool: "bool",
}

# The archive member GE's parser reads input shapes from (torchscript_parser.h).
INPUT_SHAPES_FILE = "ge_input_shapes"


def _as_tuple(example_inputs):
    return (example_inputs,) if isinstance(example_inputs, torch.Tensor) else tuple(example_inputs)


def input_names(archive):
    """The names GE gives a TorchScript module's inputs: forward's arguments, a trailing
    '.N' (TorchScript's renaming) dropped, a repeated name suffixed '_K' (its position)."""
    names = []
    for k, value in enumerate(list(archive.graph.inputs())[1:]):
        name = re.sub(r"\.\d+$", "", value.debugName())
        if name in names:
            name = f"{name}_{k}"
        names.append(name)
    return names


def shape_spec(tensor):
    """'DTYPE[D0,D1,...]' of a tensor, as --input-shape writes it."""
    if tensor.dtype not in _DTYPE_NAMES:
        raise TypeError(f"GE has no dtype for torch's {tensor.dtype}")
    return f"{_DTYPE_NAMES[tensor.dtype]}[{','.join(str(d) for d in tensor.shape)}]"


def _script(module, example_inputs):
    if isinstance(module, torch.jit.ScriptModule):
        return module
    with torch.no_grad():
        # strict=False: a module may return a dict (torchvision's segmentation models do).
        return torch.jit.trace(module.eval(), example_inputs, check_trace=False, strict=False)


def _archive(module, example_inputs):
    """(the TorchScript module, its bytes with the input shapes stored, input names)."""
    scripted = _script(module, example_inputs)
    names = input_names(scripted)
    if len(names) != len(example_inputs):
        raise ValueError(f"the module takes {len(names)} inputs ({', '.join(names)}), "
                         f"{len(example_inputs)} example inputs were given")
    shapes = ";".join(f"{n}={shape_spec(t)}" for n, t in zip(names, example_inputs))
    data = io.BytesIO()
    torch.jit.save(scripted, data, _extra_files={INPUT_SHAPES_FILE: shapes})
    return scripted, data.getvalue(), names


def save(module, example_inputs, path):
    """Traces `module` (a ScriptModule is kept as it is) and saves it to `path` with its
    input shapes, which GE's TorchScript parser reads."""
    _, data, _ = _archive(module, _as_tuple(example_inputs))
    with open(path, "wb") as f:
        f.write(data)


def _structure(value):
    """The nesting of a module's output: 'T' for a tensor, or (type, [children])."""
    if isinstance(value, torch.Tensor):
        return "T"
    if isinstance(value, (tuple, list)):
        return (type(value), [_structure(v) for v in value])
    if isinstance(value, dict):
        return (type(value), [(k, _structure(v)) for k, v in value.items()])
    raise TypeError(f"GE returns tensors, and tuples, lists and dicts of them; the module returns a "
                    f"{type(value).__name__}")


def _rebuild(structure, tensors):
    if structure == "T":
        return next(tensors)
    kind, children = structure
    if issubclass(kind, dict):
        return kind((k, _rebuild(c, tensors)) for k, c in children)
    return kind(_rebuild(c, tensors) for c in children)


class CompiledModule:
    """A module compiled by GE for the example inputs' shapes and dtypes. Call it with
    torch tensors of those; it returns what the module returns, as torch tensors that
    share GE's output buffers (no copy)."""

    def __init__(self, module, example_inputs, backend, opt_level, precision, threads):
        with torch.no_grad():
            self._structure = _structure(module.eval()(*example_inputs))
        _, data, self._names = _archive(module, example_inputs)
        self._session = Session(data, model_format="torchscript", backend=backend, opt_level=opt_level,
                                precision=precision, threads=threads)
        self._outputs = [o.name for o in self._session.outputs]

    @property
    def session(self):
        """The ge.Session that runs it."""
        return self._session

    def __call__(self, *inputs):
        if len(inputs) != len(self._names):
            raise TypeError(f"expected {len(self._names)} inputs ({', '.join(self._names)}), got {len(inputs)}")
        feeds = {}
        for name, t in zip(self._names, inputs):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"input '{name}' must be a torch.Tensor, got {type(t).__name__}")
            feeds[name] = t.detach().contiguous().numpy()  # no copy for a contiguous CPU tensor
        results = self._session.run(feeds)
        return _rebuild(self._structure, iter(torch.from_numpy(results[o]) for o in self._outputs))


def compile(module, example_inputs, backend="cpu", opt_level=2, precision=None, threads=0, fallback=None):
    """Traces `module` on `example_inputs` (a tensor or a tuple of them; a ScriptModule is
    used as it is), hands the TorchScript archive to GE's parser in memory and compiles it
    for those shapes. Returns a CompiledModule. A module GE cannot compile raises
    RuntimeError/ValueError with the parser's message; with fallback="eager" it warns why
    and returns `module` itself, to run in PyTorch."""
    if fallback not in (None, "eager"):
        raise ValueError(f"fallback must be None or 'eager', got {fallback!r}")
    example_inputs = _as_tuple(example_inputs)
    try:
        return CompiledModule(module, example_inputs, backend, opt_level, precision, threads)
    except (RuntimeError, ValueError, TypeError, NotImplementedError) as e:
        if fallback != "eager":
            raise
        warnings.warn(f"ge.torch.compile: running the module in PyTorch eager: {e}", RuntimeWarning, stacklevel=2)
        return module
