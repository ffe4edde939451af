"""`tl.extra.cuda`: NVIDIA-specific language extensions."""
from . import libdevice
from .utils import (convert_custom_float8_sm70, convert_custom_float8_sm80, gdc_launch_dependents,
                    gdc_wait, globaltimer, num_threads, num_warps, smid)

__all__ = ["libdevice", "globaltimer", "num_threads", "num_warps", "smid",
           "convert_custom_float8_sm70", "convert_custom_float8_sm80", "gdc_launch_dependents",
           "gdc_wait"]
