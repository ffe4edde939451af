"""Upstream's `triton.tools.triton_to_gluon_translator`, the parts that do not need Gluon.

`ordered_set` (a set that remembers insertion order), `stable_toposort` (a topological order
that keeps the input's order wherever the edges allow) and `slice_kernel` (one kernel plus
every definition it depends on, as one standalone source file). Upstream's translator itself
(`translator.py`, Triton → Gluon) is not provided: tritium has no Gluon. Importing this
package therefore imports nothing that would need it.
"""
