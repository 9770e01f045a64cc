"""GE, an open graph engine: compile and run ONNX and TorchScript models and .gem files on
numpy arrays (ge.Session, ge.compile, ge.list_plugins), and PyTorch modules on torch
tensors (ge.torch.compile)."""
from ._ge import Session, TensorInfo, __version__, compile, list_plugins  # noqa: F401
