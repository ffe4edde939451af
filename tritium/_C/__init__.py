"""`triton._C`: upstream's compiled extension. Tritium has no C++ core; the few names user
programs reach for live here, written in Python (see `libtriton`)."""
from . import libtriton  # noqa: E402,F401  (upstream: `triton._C.libtriton.ir` by attribute)
