"""`ordered_set`: a mutable set that iterates in insertion order.

Used wherever the slicer's output must not depend on hash order (which references a
function makes, which imports the output needs), so the same input always gives the same file.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, MutableSet, Set
from typing import TypeVar

T = TypeVar("T")


class ordered_set(MutableSet[T]):
    """A set keeping its elements in the order they were first added.

    Backed by a dict (insertion-ordered since Python 3.7), whose keys are the elements.
    Equality with another set ignores order, as for `set`."""

    __slots__ = ("_items",)

    def __init__(self, elements: Iterable[T] | None = None) -> None:
        self._items: dict[T, None] = dict.fromkeys(elements if elements is not None else ())

    # The abstract methods of MutableSet; the mixins (|, &, -, ^, remove, pop, ==, <=, ...)
    # come from them.
    def __contains__(self, x: object) -> bool:
        return x in self._items

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, value: T) -> None:
        self._items[value] = None

    def discard(self, value: T) -> None:
        self._items.pop(value, None)

    # Faster than the mixins' element-by-element versions.
    def update(self, values: Iterable[T]) -> None:
        self._items.update(dict.fromkeys(values))

    def clear(self) -> None:
        self._items.clear()

    def __getitem__(self, index: int) -> T:
        """The element at position `index` (negative counts from the end), as upstream's."""
        n = len(self._items)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"ordered_set index {index} out of range for {n} elements")
        return next(itertools.islice(self._items, i, None))

    def __add__(self, other: Iterable[T]) -> ordered_set[T]:
        """This set's elements, then `other`'s that are new."""
        return ordered_set(itertools.chain(self, other))

    def __and__(self, other: Iterable[object]) -> ordered_set[T]:
        """In this set's order (the mixin's would follow `other`'s)."""
        if not isinstance(other, Iterable):
            return NotImplemented
        keep = other if isinstance(other, (Set, dict)) else set(other)
        return ordered_set(x for x in self if x in keep)

    def copy(self) -> ordered_set[T]:
        return ordered_set(self)

    @classmethod
    def _from_iterable(cls, it: Iterable[T]) -> ordered_set[T]:
        # The Set mixins build their results through this: keep them ordered sets.
        return cls(it)

    def __str__(self) -> str:
        return "{" + ", ".join(str(x) for x in self) + "}"

    def __repr__(self) -> str:
        return f"<ordered_set {self}>"
