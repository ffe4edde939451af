"""The plugin entry of the NVIDIA backend's compiler (`<package>.compiler`, as upstream's
`triton.backends.nvidia.compiler`); the backend itself is in `backend.py`."""
from .backend import CUDABackend, CUDAOptions  # noqa: F401
