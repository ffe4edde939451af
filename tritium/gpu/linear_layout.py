"""Linear layouts: linear maps over GF(2) between named power-of-two dims.

A layout maps hardware coordinates (``register``, ``lane``, ``warp``,
``block``; or ``offset`` for shared memory) to tensor coordinates (``dim0``
...). ``bases[in_dim][i]`` is the image of the input with only bit ``i`` of
``in_dim`` set; any other input is the XOR of the bases of its set bits.

Internally every basis is also kept "flat": the out-dims are packed into one
integer, first out-dim in the lowest bits, so all algebra is XOR on ints.
Dim order matters only for reshapes and for that packing (minor-to-major).
"""
from __future__ import annotations

import functools

from typing import Iterable, Mapping, Sequence

__all__ = ["LinearLayout", "XorBasis", "gf2_rank", "gf2_solver", "log2"]


def log2(n: int) -> int:
    """Exact log2 of a power of two."""
    if n <= 0 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


def _next_pow2(x: int) -> int:
    # Smallest power of two strictly greater than x (upstream's NextPowerOf2).
    return 1 << x.bit_length()


class XorBasis:
    """Incremental echelon basis that remembers which inputs built each row.

    Rows are keyed by leading bit. Inserting vectors in order and keeping only
    the independent ones picks the leftmost pivot columns, the same choice an
    RREF makes; solving then uses only those, which yields the numerically
    smallest solution (the one upstream's lstsq returns).
    """

    __slots__ = ("rows",)

    def __init__(self):
        self.rows: dict[int, tuple[int, int]] = {}

    def insert(self, vec: int, tag: int) -> bool:
        while vec:
            hb = vec.bit_length() - 1
            row = self.rows.get(hb)
            if row is None:
                self.rows[hb] = (vec, tag)
                return True
            vec ^= row[0]
            tag ^= row[1]
        return False

    def solve(self, vec: int) -> int | None:
        tag = 0
        while vec:
            row = self.rows.get(vec.bit_length() - 1)
            if row is None:
                return None
            vec ^= row[0]
            tag ^= row[1]
        return tag


def gf2_rank(vectors: Iterable[int]) -> int:
    basis = XorBasis()
    return sum(basis.insert(v, 0) for v in vectors)


def memoized_layout(to_linear_layout):
    """Memoise an encoding's `to_linear_layout(shape)`: encodings are frozen dataclasses and
    linear layouts immutable, and the passes and the lowering ask for the same few pairs
    again and again (Inductor's flex-attention kernel: 5 distinct mma layouts asked for 96
    times; building one is a chain of layout products)."""
    @functools.lru_cache(maxsize=4096)
    def cached(encoding, shape):
        return to_linear_layout(encoding, shape)

    @functools.wraps(to_linear_layout)
    def wrapper(self, shape):
        try:
            return cached(self, tuple(shape))
        except TypeError:  # an unhashable field: build it each time
            return to_linear_layout(self, shape)
    return wrapper


def gf2_solver(columns: Sequence[int]):
    """Return f(b) -> smallest mask x with XOR_{i in x} columns[i] == b, or None."""
    basis = XorBasis()
    for i, c in enumerate(columns):
        basis.insert(c, 1 << i)
    return basis.solve


def _supremum(x: Sequence[str], y: Sequence[str]) -> list[str]:
    """Shortest list with x and y as subsequences (their common dims must be in
    the same relative order); between two common dims x's own dims go first."""
    out, j = [], 0
    for d in x:
        if d in y:
            k = y.index(d)
            out += [e for e in y[j:k] if e not in x]
            j = k + 1
        out.append(d)
    return out + [e for e in y[j:] if e not in x]


class LinearLayout:
    """A linear map over GF(2) from named input dims to named output dims."""

    __slots__ = ("_bases", "_out", "_flat", "_shifts", "_surj", "_hash")

    def __init__(self, bases: Mapping[str, Sequence[Sequence[int]]] | Sequence,
                 out_dims: Sequence[str] | Mapping[str, int] | Sequence[tuple[str, int]],
                 require_surjective: bool | None = None):
        """``out_dims`` as names infers sizes (and then must be surjective, as
        upstream); as (name, size) pairs or a dict the sizes are explicit."""
        items = list(bases.items()) if isinstance(bases, Mapping) else list(bases)
        self._bases = {str(k): tuple(tuple(int(x) for x in b) for b in v) for k, v in items}
        if isinstance(out_dims, Mapping):
            out = {str(k): int(v) for k, v in out_dims.items()}
            inferred = False
        else:
            out_dims = list(out_dims)
            inferred = all(isinstance(d, str) for d in out_dims)
            if inferred:
                out = {d: 1 for d in out_dims}
                names = list(out_dims)
                for vecs in self._bases.values():
                    for b in vecs:
                        for i, v in enumerate(b):
                            out[names[i]] = max(out[names[i]], _next_pow2(v))
            else:
                out = {str(k): int(v) for k, v in out_dims}
        self._out = out
        self._hash = None
        self._surj = None
        self._check()
        if require_surjective is None:
            require_surjective = inferred
        if require_surjective and not self.is_surjective():
            raise ValueError("layout is expected to be surjective but is not:" + repr(self))

    def _check(self) -> None:
        n = len(self._out)
        shifts, acc = {}, 0
        for d, size in self._out.items():
            shifts[d] = acc
            acc += log2(size)
        self._shifts = shifts
        sizes = list(self._out.values())
        flat = []
        for dim, vecs in self._bases.items():
            for b in vecs:
                if len(b) != n:
                    raise ValueError(f"basis {b} of {dim!r} needs {n} entries")
                v = 0
                for (d, sh), x, size in zip(shifts.items(), b, sizes):
                    if not 0 <= x < size:
                        raise ValueError(f"basis value {x} of {dim!r} out of range for {d!r} (size {size})")
                    v |= x << sh
                flat.append(v)
        self._flat = flat

    # ----------------------------------------------------------- constructors
    @classmethod
    def empty(cls) -> "LinearLayout":
        return cls({}, [])

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> "LinearLayout":
        if size == 0:
            return cls.empty()
        return cls({in_dim: [[1 << i] for i in range(log2(size))]}, [out_dim])

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> "LinearLayout":
        if size == 0:
            return cls.empty()
        # The codomain is [0, size * stride); only stride 1 covers all of it.
        return cls({in_dim: [[stride << i] for i in range(log2(size))]},
                   [(out_dim, size * stride)], require_surjective=stride == 1)

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_dim_size: int = 1) -> "LinearLayout":
        if size == 0:
            return cls.empty()
        return cls({in_dim: [[0]] * log2(size)}, [(out_dim, out_dim_size)],
                   require_surjective=out_dim_size == 1)

    @classmethod
    def _from_flat(cls, in_dims: Sequence[tuple[str, int]], flat: Sequence[int],
                   out_dims: Sequence[tuple[str, int]]) -> "LinearLayout":
        """Build from packed bases (first out-dim in the low bits)."""
        fields, sh = [], 0
        for _, size in out_dims:
            fields.append((sh, size - 1))
            sh += log2(size)
        bases, k = {}, 0
        for name, size in in_dims:
            n = log2(size)
            bases[name] = [[(v >> s) & m for s, m in fields] for v in flat[k:k + n]]
            k += n
        return cls(bases, list(out_dims), require_surjective=False)

    # ------------------------------------------------------------- accessors
    @property
    def bases(self) -> dict[str, list[tuple[int, ...]]]:
        return {k: list(v) for k, v in self._bases.items()}

    @property
    def in_dims(self) -> list[str]:
        return list(self._bases)

    @property
    def out_dims(self) -> list[str]:
        return list(self._out)

    @property
    def in_dim_sizes(self) -> dict[str, int]:
        return {k: 1 << len(v) for k, v in self._bases.items()}

    @property
    def out_dim_sizes(self) -> dict[str, int]:
        return dict(self._out)

    def has_in_dim(self, d: str) -> bool:
        return d in self._bases

    def get_in_dim_size_log2(self, d: str) -> int:
        return len(self._bases[d])

    def get_in_dim_size(self, d: str) -> int:
        return 1 << len(self._bases[d])

    def get_out_dim_size_log2(self, d: str) -> int:
        return log2(self._out[d])

    def get_out_dim_size(self, d: str) -> int:
        return self._out[d]

    @property
    def total_in_size_log2(self) -> int:
        return len(self._flat)

    @property
    def total_out_size_log2(self) -> int:
        return sum(log2(s) for s in self._out.values())

    @property
    def total_in_size(self) -> int:
        return 1 << self.total_in_size_log2

    @property
    def total_out_size(self) -> int:
        return 1 << self.total_out_size_log2

    def get_basis(self, in_dim: str, pos: int, out_dim: str | None = None):
        """L(in_dim = 2**pos), as a tuple, or just its ``out_dim`` entry."""
        b = self._bases[in_dim][pos]
        return b if out_dim is None else b[self.out_dims.index(out_dim)]

    def _in_pairs(self) -> list[tuple[str, int]]:
        return [(d, 1 << len(v)) for d, v in self._bases.items()]

    def _out_pairs(self) -> list[tuple[str, int]]:
        return list(self._out.items())

    def _unpack(self, v: int) -> dict[str, int]:
        return {d: (v >> self._shifts[d]) & (s - 1) for d, s in self._out.items()}

    # ------------------------------------------------------------ evaluation
    def apply(self, inputs: Mapping[str, int]) -> dict[str, int]:
        """Evaluate; in-dims missing from ``inputs`` count as 0."""
        unknown = set(inputs) - set(self._bases)
        if unknown:
            raise KeyError(f"unknown in-dims {sorted(unknown)}")
        acc, k = 0, 0
        for d, vecs in self._bases.items():
            x = inputs.get(d, 0)
            for i in range(len(vecs)):
                if (x >> i) & 1:
                    acc ^= self._flat[k + i]
            k += len(vecs)
        return self._unpack(acc)

    def _apply_flat(self, x: int) -> int:
        acc, i = 0, 0
        while x:
            if x & 1:
                acc ^= self._flat[i]
            x >>= 1
            i += 1
        return acc

    # ------------------------------------------------------------- properties
    def is_surjective(self) -> bool:
        if self._surj is None:
            self._surj = gf2_rank(self._flat) == self.total_out_size_log2
        return self._surj

    def is_injective(self) -> bool:
        return gf2_rank(self._flat) == len(self._flat)

    def is_invertible(self) -> bool:
        return self.is_surjective() and self.total_in_size_log2 == self.total_out_size_log2

    def free_variable_masks(self) -> dict[str, int]:
        """Per in-dim, the input bits that can change without changing the output."""
        basis = XorBasis()
        free = [not basis.insert(v, 0) for v in self._flat]
        out, k = {}, 0
        for d, vecs in self._bases.items():
            out[d] = sum(1 << i for i in range(len(vecs)) if free[k + i])
            k += len(vecs)
        return out

    def get_num_consecutive_in_out(self) -> int:
        """How many consecutive values of the first in-dim map to consecutive
        values of the first out-dim (the vectorisable run length)."""
        if not self._bases or not self._out:
            return 1
        first = next(iter(self._bases.values()))
        consec = 0
        while consec < len(first):
            b = first[consec]
            if b[0] != 1 << consec or any(b[1:]):
                break
            consec += 1
        other = 0
        for vecs in self._bases.values():
            for i, b in enumerate(vecs):
                if vecs is not first or i >= consec:
                    other |= b[0]
        tz = (other & -other).bit_length() - 1 if other else 31
        return 1 << min(consec, tz)

    # --------------------------------------------------------- dim shuffling
    def transpose_ins(self, order: Sequence[str]) -> "LinearLayout":
        if sorted(order) != sorted(self._bases):
            raise ValueError(f"{list(order)} is not a permutation of {self.in_dims}")
        return LinearLayout({d: self._bases[d] for d in order}, self._out_pairs(), False)

    def transpose_outs(self, order: Sequence[str]) -> "LinearLayout":
        if sorted(order) != sorted(self._out):
            raise ValueError(f"{list(order)} is not a permutation of {self.out_dims}")
        idx = [self.out_dims.index(d) for d in order]
        bases = {d: [[b[i] for i in idx] for b in v] for d, v in self._bases.items()}
        return LinearLayout(bases, [(d, self._out[d]) for d in order], False)

    def reshape_ins(self, new_in_dims: Sequence[tuple[str, int]]) -> "LinearLayout":
        total = sum(log2(s) for _, s in new_in_dims)
        if total != self.total_in_size_log2:
            raise ValueError(f"reshape_ins to {list(new_in_dims)} changes the total size")
        return LinearLayout._from_flat(list(new_in_dims), self._flat, self._out_pairs())

    def reshape_outs(self, new_out_dims: Sequence[tuple[str, int]]) -> "LinearLayout":
        total = sum(log2(s) for _, s in new_out_dims)
        if total != self.total_out_size_log2:
            raise ValueError(f"reshape_outs to {list(new_out_dims)} changes the total size")
        return LinearLayout._from_flat(self._in_pairs(), self._flat, list(new_out_dims))

    def flatten_ins(self) -> "LinearLayout":
        """One in-dim, named after the first one."""
        return self.reshape_ins([(self.in_dims[0], self.total_in_size)] if self._bases else [])

    def flatten_outs(self) -> "LinearLayout":
        """One out-dim, named after the first one."""
        return self.reshape_outs([(self.out_dims[0], self.total_out_size)] if self._out else [])

    def concat_ins(self, other: "LinearLayout") -> "LinearLayout":
        """Put other's in-dims after ours; out-dims (and sizes) must match."""
        if self._out_pairs() != other._out_pairs():
            raise ValueError("concat_ins needs identical out-dims and sizes")
        if set(self._bases) & set(other._bases):
            raise ValueError("concat_ins needs disjoint in-dims")
        return LinearLayout({**self._bases, **other._bases}, self._out_pairs(), False)

    def concat_outs(self, other: "LinearLayout") -> "LinearLayout":
        """Put other's out-dims after ours; in-dims (and sizes) must match."""
        if self._in_pairs() != other._in_pairs():
            raise ValueError("concat_outs needs identical in-dims and sizes")
        if set(self._out) & set(other._out):
            raise ValueError("concat_outs needs disjoint out-dims")
        bases = {d: [a + b for a, b in zip(v, other._bases[d])] for d, v in self._bases.items()}
        return LinearLayout(bases, self._out_pairs() + other._out_pairs(), False)

    def sublayout(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> "LinearLayout":
        """Keep only these in/out dims (others' inputs are set to 0); original order."""
        ins, outs = set(in_dims), set(out_dims)
        if not ins <= set(self._bases) or not outs <= set(self._out):
            raise KeyError(f"sublayout {sorted(ins)} -> {sorted(outs)} not within {self!r}")
        keep = [i for i, d in enumerate(self._out) if d in outs]
        bases = {d: [[b[i] for i in keep] for b in v] for d, v in self._bases.items() if d in ins}
        return LinearLayout(bases, [(d, s) for d, s in self._out.items() if d in outs], False)

    def sublayout_is_zero(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> bool:
        sub = self.sublayout(in_dims, out_dims)
        return not any(sub._flat)

    def square_sublayout_is_identity(self, dims: Sequence[str]) -> bool:
        if not dims:
            return True
        if any(self.get_in_dim_size(d) != self.get_out_dim_size(d) for d in dims):
            return False
        flat = self.sublayout(dims, dims).flatten_ins().flatten_outs()._flat
        return all(v == 1 << i for i, v in enumerate(flat))

    def is_trivial_over(self, dims: Sequence[str]) -> bool:
        """Identity on ``dims`` with no cross terms to or from other dims."""
        if any(d not in self._bases or d not in self._out for d in dims):
            return False
        rest_in = [d for d in self._bases if d not in dims]
        rest_out = [d for d in self._out if d not in dims]
        return (self.square_sublayout_is_identity(dims)
                and self.sublayout_is_zero(rest_in, dims)
                and self.sublayout_is_zero(dims, rest_out))

    def quotient(self, dims: Sequence[str] | str) -> "LinearLayout | None":
        dims = [dims] if isinstance(dims, str) else list(dims)
        if not self.is_trivial_over(dims):
            return None
        return self.sublayout([d for d in self._bases if d not in dims],
                              [d for d in self._out if d not in dims])

    def remove_zero_bases_along_dim(self, dim: str) -> "LinearLayout":
        bases = dict(self._bases)
        bases[dim] = [b for b in bases[dim] if any(b)]
        return LinearLayout(bases, self._out_pairs(), False)

    def resize_in_dim(self, dim: str, new_size: int) -> "LinearLayout":
        """Grow an in-dim with zero (broadcast) bases."""
        extra = log2(new_size) - len(self._bases[dim])
        if extra < 0:
            raise ValueError("resize_in_dim can only grow a dim")
        bases = dict(self._bases)
        bases[dim] = list(bases[dim]) + [(0,) * len(self._out)] * extra
        return LinearLayout(bases, self._out_pairs(), False)

    # ------------------------------------------------------------- algebra
    def __mul__(self, outer: "LinearLayout") -> "LinearLayout":
        """Direct product: ``outer`` repeats ``self`` (self is the minor part).

        Shared in-dims get outer's bits above ours; shared out-dims get outer's
        values shifted above ours.
        """
        inner = self
        for a, b in ((inner.in_dims, outer.in_dims), (inner.out_dims, outer.out_dims)):
            common = set(a) & set(b)
            if [d for d in a if d in common] != [d for d in b if d in common]:
                raise ValueError(f"dims shared by {a} and {b} must keep their relative order")
        ins = _supremum(inner.in_dims, outer.in_dims)
        outs = _supremum(inner.out_dims, outer.out_dims)
        out_log2 = {o: (inner.get_out_dim_size_log2(o) if o in inner._out else 0)
                    + (outer.get_out_dim_size_log2(o) if o in outer._out else 0) for o in outs}
        bases = {}
        for d in ins:
            rows = []
            for lay, is_outer in ((inner, False), (outer, True)):
                if d not in lay._bases:
                    continue
                for b in lay._bases[d]:
                    vec = [0] * len(outs)
                    for k, o in enumerate(outs):
                        if o in lay._out:
                            x = b[lay.out_dims.index(o)]
                            if is_outer and o in inner._out:
                                x <<= inner.get_out_dim_size_log2(o)
                            vec[k] = x
                    rows.append(vec)
            bases[d] = rows
        return LinearLayout(bases, [(o, 1 << out_log2[o]) for o in outs], False)

    def compose(self, outer: "LinearLayout") -> "LinearLayout":
        """outer ∘ self: our out-dims feed outer's in-dims (matched by name)."""
        if set(self._out) != set(outer._bases):
            raise ValueError(f"compose: out-dims {self.out_dims} != in-dims {outer.in_dims}")
        for d in self._out:
            if self._out[d] > outer.get_in_dim_size(d):
                raise ValueError(f"compose: {d!r} is larger than outer's input")
        # Re-pack our out values in outer's in-dim order, then evaluate flat.
        shifts, acc = {}, 0
        for d, v in outer._bases.items():
            shifts[d] = acc
            acc += len(v)
        flat = []
        for v in self._flat:
            parts = self._unpack(v)
            flat.append(outer._apply_flat(sum(x << shifts[d] for d, x in parts.items())))
        return LinearLayout._from_flat(self._in_pairs(), flat, outer._out_pairs())

    def invert_and_compose(self, outer: "LinearLayout") -> "LinearLayout":
        """C with self(x) == outer(C(x)) for all x (outer⁻¹ ∘ self).

        ``outer`` must be surjective. When it is not injective, the smallest
        solution is picked (bits of outer's earlier in-dims first). In-dims
        whose sublayouts are equal in both are mapped by the identity, so a
        conversion keeps data that need not move where it is (upstream rule).
        """
        outs = self.out_dims
        if set(outs) != set(outer._out):
            raise ValueError(f"invert_and_compose: out-dims {outs} vs {outer.out_dims}")
        a = outer.transpose_outs(outs)
        for d in outs:
            if self._out[d] > a._out[d]:
                raise ValueError(f"invert_and_compose: {d!r} of self is larger than outer's")
        if not a.is_surjective():
            raise ValueError("invert_and_compose: outer must be surjective")
        b = self
        if any(b._out[d] != a._out[d] for d in outs):
            # Let a smaller codomain sit inside outer's: pack with outer's sizes.
            b = LinearLayout(b._bases, a._out_pairs(), False)
        ident = [d for d in a._bases if d in b._bases
                 and a.sublayout([d], outs) == b.sublayout([d], outs)]
        rest = [d for d in a._bases if d not in ident]
        a_red = a.sublayout(rest, outs)
        b_red = b.sublayout([d for d in b._bases if d not in ident], outs)
        # Solve the other dims against outer's other dims first (upstream's
        # reduced problem), but keep the identity dims as further columns:
        # with mixed layouts a basis of self can need them (self.lane = outer
        # lane ^ outer register with equal registers), and the reduced system
        # alone would have no solution. Inserting the reduced columns first
        # keeps the reduced (smallest) solution whenever one exists.
        a_ident = a.sublayout(ident, outs)
        solve = gf2_solver(a_red._flat + a_ident._flat)
        n_red = len(a_red._flat)
        flat = []
        for v in b_red._flat:
            x = solve(v)
            if x is None:
                raise ValueError("invert_and_compose: image of self not inside outer's image")
            flat.append(x)
        ret = LinearLayout._from_flat(b_red._in_pairs(), flat, a_red._in_pairs() + a_ident._in_pairs())
        # ret maps other dims -> (outer's other dims, then its identity dims);
        # append the identity map of the identity dims.
        ident_in = LinearLayout._from_flat(
            a_ident._in_pairs(), [1 << (n_red + i) for i in range(len(a_ident._flat))],
            a_red._in_pairs() + a_ident._in_pairs())
        ret = ret.concat_ins(ident_in)
        return ret.transpose_ins(b.in_dims).transpose_outs(a.in_dims)

    def pseudoinvert(self) -> "LinearLayout":
        """B with self(B(y)) == y; the smallest preimage when not injective."""
        if not self.is_surjective():
            raise ValueError("pseudoinvert needs a surjective layout")
        ident = LinearLayout.empty()
        for d, s in self._out.items():
            ident = ident * LinearLayout.identity_1d(s, d, d)
        return ident.invert_and_compose(self)

    def invert(self) -> "LinearLayout":
        if not self.is_invertible():
            raise ValueError("invert needs a bijective layout:" + repr(self))
        return self.pseudoinvert()

    def divide_left(self, tile: "LinearLayout") -> "LinearLayout | None":
        """C with self == tile * C (tile is the minor factor), else None."""
        split = self._factor_shapes(tile)
        if split is None:
            return None
        in_b, out_b = split
        bases = {}
        for d, vecs in self._bases.items():
            if len(vecs) < in_b[d]:
                return None
            rows = []
            for b in vecs[in_b[d]:]:
                if any(x & ((1 << out_b[o]) - 1) for x, o in zip(b, self._out)):
                    return None
                rows.append([x >> out_b[o] for x, o in zip(b, self._out)])
            bases[d] = rows
        c = LinearLayout(bases, [(o, s >> out_b[o]) for o, s in self._out.items()], False)
        return c if self._same_as(_trim(tile, self) * c) else None

    def divide_right(self, tile: "LinearLayout") -> "LinearLayout | None":
        """C with self == C * tile (tile is the major factor), else None."""
        split = self._factor_shapes(tile)
        if split is None:
            return None
        in_b, out_b = split
        out_c = {o: s >> out_b[o] for o, s in self._out.items()}
        bases = {}
        for d, vecs in self._bases.items():
            n = len(vecs) - in_b[d]
            if n < 0 or any(x >= out_c[o] for b in vecs[:n] for x, o in zip(b, self._out)):
                return None
            bases[d] = vecs[:n]
        c = LinearLayout(bases, list(out_c.items()), False)
        return c if self._same_as(c * _trim(tile, self)) else None

    def _factor_shapes(self, tile: "LinearLayout"):
        # log2 sizes the tile takes from each of our dims; None if it cannot fit.
        for d in tile._bases:
            if d not in self._bases and tile._bases[d]:
                return None
        for o, s in tile._out.items():
            if o not in self._out and s != 1:
                return None
            if o in self._out and s > self._out[o]:
                return None
        in_b = {d: len(tile._bases.get(d, ())) for d in self._bases}
        out_b = {o: (tile.get_out_dim_size_log2(o) if o in tile._out else 0) for o in self._out}
        return in_b, out_b

    def _same_as(self, other: "LinearLayout") -> bool:
        try:
            return self == other.transpose_ins(self.in_dims).transpose_outs(self.out_dims)
        except (ValueError, KeyError):
            return False

    # ---------------------------------------------------------- comparisons
    def equal_ignoring_out_dim_sizes(self, other: "LinearLayout") -> bool:
        return (list(self._out) == list(other._out)
                and list(self._bases.items()) == list(other._bases.items()))

    def __eq__(self, other) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self.equal_ignoring_out_dim_sizes(other) and list(self._out.values()) == list(other._out.values())

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((tuple(self._bases.items()), tuple(self._out.items())))
        return self._hash

    def __repr__(self) -> str:
        outs = "[" + ", ".join(f"{d} (size {s})" for d, s in self._out.items()) + "]"
        if not self._bases:
            return "\n(empty layout)" if not self._out else f"\n(empty layout with out-dims {outs})"
        lines = ["\n"]
        for d, vecs in self._bases.items():
            if not vecs:
                lines.append(f" - {d} is a size 1 dimension\n")
                continue
            rows = [f"{d}={1 << i} -> ({', '.join(map(str, b))})" for i, b in enumerate(vecs)]
            lines.append(" - " + "\n   ".join(rows) + "\n")
        lines.append(f"where out dims are: {outs}")
        return "".join(lines)

    to_string = __repr__


def _trim(tile: LinearLayout, like: LinearLayout) -> LinearLayout:
    # Drop the tile's size-1 dims that `like` does not have, so products line up.
    ins = [d for d in tile.in_dims if d in like._bases or tile._bases[d]]
    outs = [o for o in tile.out_dims if o in like._out or tile._out[o] != 1]
    return tile.sublayout(ins, outs)
