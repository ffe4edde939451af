"""`tl.extra`: target libraries (`libdevice`) and target-specific extensions (`cuda`)."""
from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]
