"""`tl.extra.cuda`: NVIDIA-specific language extensions."""
from . import libdevice

__all__ = ["libdevice"]
