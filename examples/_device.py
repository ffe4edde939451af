"""Where the examples put their tensors: the GPU when tritium can use one, else the CPU."""
import numpy as np


def device() -> str:
    try:
        import torch
        from tritium.backends.nvidia import driver
        if torch.cuda.is_available() and driver.is_available():
            return "cuda"
    except Exception:
        pass
    return "cpu"


def have_torch() -> bool:
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


def to_numpy(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)
