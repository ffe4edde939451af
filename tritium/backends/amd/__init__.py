"""`triton.backends.amd`: only the AMD backend's argument specialisation (see `compiler.py`).
tritium has no AMD code generator or driver; this package is not a registered backend."""
