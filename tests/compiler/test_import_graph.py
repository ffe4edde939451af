"""The data flows one way: frontend → compiler driver → backend stages, the runtime between
the compiler and the backends. Checked on the import graph of the sources (parsed with
`ast`, imports inside functions included, a submodule depending on its package's
__init__): no cycle of modules may span two of frontend / compiler / backends / runtime,
and the backends import none of the other three."""
import ast
import functools
import os
from collections import defaultdict

import pytest

import tritium

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(tritium.__file__)))
LAYERS = ("frontend", "compiler", "backends", "runtime")


def _modules():
    mods = {}
    for d, _, files in os.walk(os.path.join(ROOT, "tritium")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                is_pkg = name.endswith(".__init__")
                mods[name[:-9] if is_pkg else name] = (path, is_pkg)
    return mods


def _targets(mod, is_pkg, node, mods):
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = mod.split(".") if is_pkg else mod.split(".")[:-1]
            base = base[:len(base) - node.level + 1]
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = node.module or ""
        names = [stem] + [f"{stem}.{a.name}" for a in node.names]
    return [n for n in names if n in mods]


@functools.lru_cache(maxsize=1)
def import_graph():
    mods = _modules()
    edges = defaultdict(set)
    for mod, (path, is_pkg) in mods.items():
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges[mod].update(t for t in _targets(mod, is_pkg, node, mods) if t != mod)
        parts = mod.split(".")
        for i in range(2, len(parts)):  # importing a.b.c runs a.b's __init__ first
            edges[mod].add(".".join(parts[:i]))
    return mods, edges


def strongly_connected(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):  # Tarjan's algorithm (recursion depth ~ module count: fine)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def _layer(mod):
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_no_cycle_spans_two_layers():
    mods, edges = import_graph()
    bad = []
    for comp in strongly_connected(mods, edges):
        layers = {_layer(m) for m in comp} - {None}
        if len(layers) > 1:
            bad.append((sorted(layers), sorted(comp)))
    assert not bad, f"import cycles across layers: {bad}"


@pytest.mark.parametrize("forbidden", ["frontend", "compiler", "runtime"])
def test_backends_import_no_upper_layer(forbidden):
    mods, edges = import_graph()
    hits = sorted((m, t) for m in mods if _layer(m) == "backends"
                  for t in edges[m] if _layer(t) == forbidden)
    assert not hits


@pytest.mark.parametrize("src,dst", [("compiler", "frontend"), ("runtime", "frontend"),
                                     ("runtime", "compiler")])
def test_lower_layers_do_not_import_upper_ones(src, dst):
    mods, edges = import_graph()
    hits = sorted((m, t) for m in mods if _layer(m) == src for t in edges[m] if _layer(t) == dst)
    assert not hits


def test_passes_do_not_import_gpu():
    mods, edges = import_graph()
    hits = sorted((m, t) for m in mods if m.startswith("tritium.passes")
                  for t in edges[m] if t.startswith("tritium.gpu"))
    assert not hits


def test_the_checker_sees_a_cycle():
    # The checker itself: a two-layer cycle in a made-up graph is found.
    edges = defaultdict(set, {"tritium.frontend.a": {"tritium.compiler.b"},
                              "tritium.compiler.b": {"tritium.frontend.a"}})
    comps = strongly_connected(list(edges), edges)
    assert {"tritium.frontend.a", "tritium.compiler.b"} in comps
