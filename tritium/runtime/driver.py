"""`triton.runtime.driver`: which driver runs kernels.

`driver.active` is the driver user code talks to (`driver.active.get_current_target()`,
`driver.active.utils.get_device_properties(0)`, `get_active_torch_device()`). By default it
is the one active driver among the registered backends' (`tritium.backends`), a GPU's in
preference to the CPU's, or the backend TRITON_DEFAULT_BACKEND names (upstream's: "nvidia",
"cpu"; the others are not asked); `driver.set_active(d)` replaces it and `driver.reset_active()`
goes back. Drivers are created on first use, not at import.
"""
from __future__ import annotations

from typing import Dict

_CPU_NAME = "cpu"


def _create_default():
    from ..backends import backends
    from .knobs import default_backend
    selected = default_backend()
    if selected:  # as upstream: that backend's driver, the others not asked
        if selected not in backends:
            raise RuntimeError(f"Unknown backend device '{selected}' (TRITON_DEFAULT_BACKEND). "
                               f"Available backends: {sorted(backends)}")
        chosen = backends[selected].driver
        if not chosen.is_active():
            raise RuntimeError(f"Backend device '{selected}' (TRITON_DEFAULT_BACKEND) is not "
                               "active.")
        return chosen()
    active = {name: b.driver for name, b in backends.items() if b.driver.is_active()}
    preferred = {n: d for n, d in active.items() if n != _CPU_NAME} or active
    if len(preferred) != 1:
        raise RuntimeError(f"{len(preferred)} active drivers ({', '.join(sorted(preferred))}); "
                           "there should be exactly one (TRITON_ACTIVE_DRIVER picks one)")
    return next(iter(preferred.values()))()


class DriverConfig:
    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            self._default = _create_default()
        return self._default

    @property
    def active(self):
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver) -> None:
        self._active = driver
        _bump()

    def reset_active(self) -> None:
        self._active = self.default
        _bump()

    def is_user_set(self) -> bool:
        """Whether `set_active` chose a driver other than the default."""
        return self._active is not None and self._active is not self._default


driver = DriverConfig()
# Bumped by set_active/reset_active so the JIT's per-launch device choice can be cached.
generation = [0]


def _bump():
    generation[0] += 1


_BY_BACKEND: Dict[str, object] = {}


def driver_for_target(target):
    """The driver that loads and launches code made for `target`: the active one when it
    serves that kind of target, else the registered backend's own driver."""
    active = driver._active
    if active is not None:
        try:
            if active.get_current_target().backend == target.backend:
                return active
        except Exception:
            pass
    drv = _BY_BACKEND.get(target.backend)
    if drv is None:
        from ..backends import backends
        for b in backends.values():
            if b.compiler.supports_target(target):
                drv = _BY_BACKEND[target.backend] = b.driver()
                break
        else:
            raise RuntimeError(f"no registered driver runs code for {target}")
    return drv


def __getattr__(name):
    # `triton.runtime.driver` may be this module or the object (upstream's attribute is the
    # object; importing the module by name through compat rebinds it): both answer `.active`.
    return getattr(driver, name)
