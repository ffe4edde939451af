"""Tools around the compiler. `explain(kernel, *args, **meta)` returns the page that shows
one specialisation through every stage (`tritium explain SCRIPT.py` does it for a script)."""
from .explain import Page, explain  # noqa: F401
from .linear_layout import LinearLayout  # noqa: F401,E402  (upstream's `triton.tools.LinearLayout`)
