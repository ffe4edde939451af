"""Upstream's `triton.tools.triton_to_gluon_translator`: Triton kernels as Gluon source.

`translator` (`convert_triton_to_gluon`, `translate_paths`: kernels -> one Gluon source
file), `translator_helpers` (`convert_host_descriptor` for host code, and the Gluon helper
functions translated kernels call, kept in `gluon_helpers`), `gluon_names` (what each
`triton.language` name becomes), `slice_kernel` (one kernel plus every definition it depends
on, as one standalone file; `translate_to_gluon=True` translates it), `ordered_set` and
`stable_toposort`. Importing this package imports none of them, and translating needs no
working Gluon: only running the output does.
"""
