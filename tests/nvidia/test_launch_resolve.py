"""The NVIDIA launcher's pointer check (no GPU: a stand-in for cuPointerGetAttribute)."""
import random

import pytest

from tritium.backends.nvidia import launcher


class _Buffer:
    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


class _MovedBase:
    """What `triton.tools.ragged_tma` passes as a descriptor's base: an address outside the
    tensor it was derived from, and that tensor."""

    def __init__(self, ptr, tensor):
        self._ptr, self._tensor = ptr, tensor

    def data_ptr(self):
        return self._ptr


@pytest.fixture
def resolver():
    rng = random.Random()
    start = rng.randrange(1 << 40, 1 << 44) & ~0xFF
    size = rng.randrange(1 << 12, 1 << 20)

    def device_pointer(p):  # a device allocation [start, start + size), device address = p
        return p if start <= p < start + size else None
    launcher._device_ptrs.clear()
    launcher._device_ptrs[0] = 0
    yield launcher._make_resolver(device_pointer), start, size
    launcher._device_ptrs.clear()
    launcher._device_ptrs[0] = 0


def test_a_moved_descriptor_base_is_checked_through_its_tensor(resolver):
    resolve, start, size = resolver
    moved = (start - (1 << 30) * 4 * 64) % 2**64  # below the allocation, wrapped
    base = _MovedBase(moved, _Buffer(start + 16))
    assert resolve(moved, "desc", 0, base) == moved


def test_a_moved_base_of_a_host_tensor_is_refused(resolver):
    resolve, start, size = resolver
    host = start + size + 4096
    base = _MovedBase((host - 4096) % 2**64, _Buffer(host))
    with pytest.raises(ValueError, match=r"'desc' \(parameter 2\).*host memory"):
        resolve(base.data_ptr(), "desc", 2, base)


def test_a_plain_pointer_outside_device_memory_names_the_parameter(resolver):
    resolve, start, size = resolver
    assert resolve(start + size - 1, "x", 0) == start + size - 1
    with pytest.raises(ValueError, match=r"'y' \(parameter 1\).*CPU tensor"):
        resolve(start + size, "y", 1, _Buffer(start + size))
