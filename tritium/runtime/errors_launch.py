"""Checks on launch arguments that name what is wrong."""
from __future__ import annotations


def check_grid(grid):
    """Pad a grid to three dims and insist on non-negative integers."""
    if type(grid) is tuple:  # the common case, kept cheap
        n = len(grid)
        if n == 3 and type(grid[0]) is int and type(grid[1]) is int and type(grid[2]) is int \
                and grid[0] >= 0 and grid[1] >= 0 and grid[2] >= 0:
            return grid
        if n == 1 and type(grid[0]) is int and grid[0] >= 0:
            return (grid[0], 1, 1)
    if isinstance(grid, int) or hasattr(grid, "__index__") and not isinstance(grid, (tuple, list)):
        grid = (grid,)
    if not isinstance(grid, (tuple, list)) or not 1 <= len(grid) <= 3:
        raise TypeError(f"grid must be a tuple of 1 to 3 integers or a callable returning one, "
                        f"got {grid!r}")
    out = []
    for i, g in enumerate(grid):
        if isinstance(g, bool) or not hasattr(g, "__index__"):
            raise TypeError(f"grid[{i}] must be an integer, got {type(g).__name__} {g!r}")
        g = g.__index__()
        if g < 0:
            raise ValueError(f"grid[{i}] must be non-negative, got {g}")
        out.append(g)
    while len(out) < 3:
        out.append(1)
    return tuple(out)
