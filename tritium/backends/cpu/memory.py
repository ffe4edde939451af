"""Pointers are real host byte addresses; memory is the set of buffers a launch registered
(plus live torch tensors that integer-made pointers reach, see `adopt_live_tensors`).

Every access is translated from addresses to (buffer, element index) before anything is read
or written, so a bad pointer raises `OutOfBoundsError` instead of crashing the process, and a
store that fails its check writes nothing. The common case (all addresses in one buffer) costs
a min/max and an alignment test; otherwise a `searchsorted` over buffer starts sorts lanes
into buffers.
"""
from __future__ import annotations

import ctypes
import gc
import sys
from typing import List, Optional, Tuple

import numpy as np

from ...tensor_wrapper import TensorWrapper


class OutOfBoundsError(Exception):
    """A kernel accessed memory outside every buffer it was given (or misaligned)."""


class Buffer:
    __slots__ = ("start", "end", "label", "raw", "typed")

    def __init__(self, start: int, end: int, label: str):
        self.start, self.end, self.label = start, end, label
        self.raw = np.frombuffer((ctypes.c_uint8 * (end - start)).from_address(start), np.uint8)
        self.typed = {}

    def view(self, dt: np.dtype) -> Tuple[np.ndarray, int]:
        """The buffer as an array of `dt` starting at the first aligned address, and that
        address (element i lives at base + i * itemsize)."""
        hit = self.typed.get(dt)
        if hit is None:
            k = dt.itemsize
            base = -(-self.start // k) * k
            n = max(0, (self.end - base) // k)
            off = base - self.start
            hit = (self.raw[off:off + n * k].view(dt), base)
            self.typed[dt] = hit
        return hit


def buffer_extent(obj) -> Tuple[int, int, int]:
    """(data address, storage start, storage end) of a buffer-like argument.

    The extent is the whole allocation behind the object (a torch tensor's untyped storage, a
    numpy view's owning array), so kernels may address any part of it, as on the GPU."""
    if isinstance(obj, TensorWrapper):  # `reinterpret`: the base's memory, another dtype
        obj = obj.base
    if isinstance(obj, np.ndarray):
        ptr = obj.__array_interface__["data"][0]
        owner = obj
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        lo, hi = np.lib.array_utils.byte_bounds(owner)
        lo2, hi2 = np.lib.array_utils.byte_bounds(obj)
        return ptr, min(lo, lo2), max(hi, hi2)
    if hasattr(obj, "untyped_storage"):                     # torch.Tensor
        if getattr(obj, "device", None) is not None and obj.device.type != "cpu":
            raise ValueError(f"CPU backend: tensor on device {obj.device}; pass CPU tensors")
        st = obj.untyped_storage()
        start = st.data_ptr()
        return obj.data_ptr(), start, start + st.nbytes()
    if hasattr(obj, "__array_interface__"):
        return buffer_extent(np.asarray(obj))
    if hasattr(obj, "data_ptr"):
        ptr = obj.data_ptr()
        nbytes = getattr(obj, "nbytes", None)
        if callable(nbytes):
            nbytes = nbytes()
        if nbytes is None:
            raise TypeError(f"CPU backend: cannot find the extent of {type(obj).__name__} "
                            "(give it `nbytes` or `untyped_storage()`)")
        return ptr, ptr, ptr + int(nbytes)
    raise TypeError(f"CPU backend: {type(obj).__name__} is not a buffer (numpy array, torch "
                    "CPU tensor, or object with data_ptr() and nbytes)")


class Memory:
    """The buffers of one launch. `kernel` names the kernel in error messages."""

    def __init__(self, kernel: str = "<kernel>"):
        self.kernel = kernel
        self._pending: List[Tuple[int, int, str, object]] = []
        self.buffers: List[Buffer] = []
        self.starts = np.empty(0, np.int64)
        self.ends = np.empty(0, np.int64)
        self._keep: list = []

    # -- registration
    def register(self, obj, label: str = "buffer") -> int:
        """Register a buffer-like and return the address of its first element."""
        ptr, start, end = buffer_extent(obj)
        self._keep.append(obj)
        if end > start:
            self._pending.append((start, end, label, obj))
            self._finalize()
        return ptr

    def register_range(self, start: int, nbytes: int, label: str = "buffer") -> None:
        if nbytes > 0:
            self._pending.append((start, start + nbytes, label, None))
            self._finalize()

    def _finalize(self) -> None:
        spans = sorted([(b.start, b.end, b.label) for b in self.buffers]
                       + [(s, e, l) for s, e, l, _ in self._pending])
        self._pending = []
        merged: List[List] = []
        for s, e, label in spans:
            # Overlapping ranges are one allocation seen twice (views of one storage); touching
            # but distinct allocations stay apart so running off the end of one is reported.
            if merged and s < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
                if label not in merged[-1][2].split(" / "):
                    merged[-1][2] += " / " + label
            else:
                merged.append([s, e, label])
        old = {(b.start, b.end): b for b in self.buffers}
        self.buffers = [old.get((s, e)) or Buffer(s, e, label) for s, e, label in merged]
        for b, (_, _, label) in zip(self.buffers, merged):
            b.label = label
        self.starts = np.array([b.start for b in self.buffers], np.int64)
        self.ends = np.array([b.end for b in self.buffers], np.int64)

    # -- translation
    def locate(self, addrs: np.ndarray, dt: np.dtype, what: str, loc, adopt: bool = True
               ) -> List[Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]]:
        """Translate flat int64 addresses (of active lanes only) to a list of
        (typed view, element indices, lane selection or None for all lanes). Raises before
        returning if any address is outside every buffer (and every live tensor, see
        `adopt_live_tensors`) or misaligned."""
        n = addrs.size
        if n == 0:
            return []
        k = dt.itemsize
        lo = int(addrs.min())
        hi = int(addrs.max())
        i = int(np.searchsorted(self.starts, lo, side="right")) - 1
        if i >= 0 and hi + k <= self.ends[i]:
            view, base = self.buffers[i].view(dt)
            rel = addrs - base
            if k > 1:
                # One OR-reduction (no temporary) finds any lane with low address bits set.
                if int(np.bitwise_or.reduce(rel, axis=None)) & (k - 1):
                    bad = addrs[(rel & (k - 1)) != 0][0]
                    self._fail(int(bad), k, what, loc, misaligned=True)
                rel >>= (k.bit_length() - 1)
            return [(view, rel, None)]
        # Several buffers, or some lane outside all of them.
        bid = np.searchsorted(self.starts, addrs, side="right") - 1
        ok = bid >= 0
        safe = np.where(ok, bid, 0)
        ok &= addrs + k <= self.ends[safe] if len(self.ends) else False
        if not np.all(ok):
            if adopt and self.adopt_live_tensors(addrs[~ok], k):
                return self.locate(addrs, dt, what, loc, adopt=False)
            self._fail(int(addrs[~ok][0]), k, what, loc)
        if k > 1 and (addrs & (k - 1)).any():
            self._fail(int(addrs[(addrs & (k - 1)) != 0][0]), k, what, loc, misaligned=True)
        out = []
        for b in np.unique(bid):
            sel = np.flatnonzero(bid == b)
            view, base = self.buffers[b].view(dt)
            out.append((view, (addrs[sel] - base) // k, sel))
        return out

    def adopt_live_tensors(self, addrs: np.ndarray, k: int) -> bool:
        """Register the live torch CPU tensors whose storage holds some of `addrs`.

        A kernel may reach memory that is no argument of it: upstream's grouped GEMM passes a
        table of `data_ptr()`s and casts the loaded integers to pointers. Upstream's
        interpreter dereferences such addresses blindly; here they are checked against the
        tensors the process holds (found through the garbage collector, only when an access
        misses every registered buffer), so a wild pointer is still an error."""
        torch = sys.modules.get("torch")
        if torch is None:
            return False
        wanted = np.unique(addrs)
        tensor_type = torch.Tensor
        spans = {}
        for obj in gc.get_objects():
            if not issubclass(type(obj), tensor_type):   # type(): no proxy __class__ lookups
                continue
            try:
                if obj.device.type != "cpu" or obj.is_meta:
                    continue
                st = obj.untyped_storage()
                start, nbytes = st.data_ptr(), st.nbytes()
            except Exception:   # sparse, meta or otherwise storage-less tensors
                continue
            if nbytes and (start, nbytes) not in spans:
                lo = int(np.searchsorted(wanted, start))
                if lo < wanted.size and wanted[lo] + k <= start + nbytes:
                    spans[(start, nbytes)] = obj
        for (start, nbytes), obj in spans.items():
            self._keep.append(obj)
            self.register_range(start, nbytes, "a tensor reached through an integer address")
        return bool(spans)

    def _fail(self, addr: int, k: int, what: str, loc, misaligned: bool = False):
        where = f"{getattr(loc, 'file', '<unknown>')}:{getattr(loc, 'line', 0)}"
        if misaligned:
            msg = (f"misaligned {what} of {k}-byte elements at address 0x{addr:x} "
                   f"(address % {k} == {addr % k})")
        else:
            msg = f"out-of-bounds {what} at address 0x{addr:x}"
        near = self.describe(addr)
        if near:
            msg += f" ({near})"
        raise OutOfBoundsError(f"kernel '{self.kernel}': {msg}, at {where}")

    def describe(self, addr: int) -> str:
        """Where an address is relative to the buffer it most likely ran off: the closest one
        starting at or below it (else the lowest)."""
        if not self.buffers:
            return "no buffers are registered"
        i = int(np.searchsorted(self.starts, addr, side="right")) - 1
        b = self.buffers[max(i, 0)]
        size = b.end - b.start
        text = f"byte offset {addr - b.start} from the start of {b.label}, which is {size} bytes"
        if addr >= b.end:
            text += f": {addr - b.end} bytes past its end"
        return text

    # -- bulk accesses
    def gather(self, addrs: np.ndarray, dt: np.dtype, loc) -> np.ndarray:
        parts = self.locate(addrs, dt, "load", loc)
        # Indices were checked by locate: np.take's 'clip' mode skips a second bounds check
        # and is faster than fancy indexing.
        if len(parts) == 1 and parts[0][2] is None:
            view, idx, _ = parts[0]
            return view.take(idx, mode="clip")
        out = np.empty(addrs.size, dt)
        for view, idx, sel in parts:
            out[sel] = view.take(idx, mode="clip")
        return out

    def scatter(self, addrs: np.ndarray, vals: np.ndarray, dt: np.dtype, loc) -> None:
        parts = self.locate(addrs, dt, "store", loc)   # every lane checked before any write
        for view, idx, sel in parts:
            # Duplicate addresses: numpy assigns in lane order, so the last lane wins.
            view[idx] = vals if sel is None else vals[sel]
