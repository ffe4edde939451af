"""Import a kernel file of bench/ (written against `import triton`) with `triton` bound to
upstream Triton or to tritium, so one kernel source is compiled by both."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_kernels_from(filename: str, flavor: str):
    """Import a kernel file of bench/ with `triton` bound to upstream or to tritium."""
    import tritium
    import tritium.language
    saved = {k: sys.modules.get(k) for k in ("triton", "triton.language")}
    if flavor == "tritium":
        sys.modules["triton"], sys.modules["triton.language"] = tritium, tritium.language
    try:
        spec = importlib.util.spec_from_file_location(f"{filename[:-3]}_{flavor}",
                                                      os.path.join(HERE, filename))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return mod
