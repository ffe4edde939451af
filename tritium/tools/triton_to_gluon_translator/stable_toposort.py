"""`stable_toposort`: a topological order of a graph that may have cycles, as close to the
input's own order as the edges allow.

The slicer needs it: definitions must come after what they use, but definitions of one module
can refer to each other in a cycle, and then the original source order is the one known to
work. So: strongly connected components (Tarjan), each kept in input order, and the graph of
components ordered by Kahn's algorithm, components that become ready in the same step taken in
order of their earliest node.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


def _nodes_in_order(edges: Mapping[N, Iterable[N]]) -> list[N]:
    """The mapping's keys, then nodes met only as children, each in first-seen order."""
    seen = dict.fromkeys(edges)
    for children in edges.values():
        seen.update(dict.fromkeys(children))
    return list(seen)


def _strong_components(nodes: list[N], succ: dict[N, list[N]]) -> dict[N, int]:
    """Tarjan's algorithm, iterative so that long chains do not hit Python's recursion limit.
    Returns each node's component number."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    stack: list[N] = []
    on_stack: set[N] = set()
    comp_of: dict[N, int] = {}
    n_comps = 0
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(succ[root]))]     # the DFS path, with each node's unvisited edges
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:  # `node` roots a component: pop it off
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        comp_of[member] = n_comps
                        if member == node:
                            break
                    n_comps += 1
    return comp_of


def stable_toposort(edges: Mapping[N, Iterable[N]]) -> list[N]:
    """Every node of `edges` (node → its children; nodes seen only as children included),
    parents before children except within a cycle, ties broken by input order.

    Nodes of one cycle stay together, in input order. A component becomes ready when all
    components with edges into it are placed; ready components are placed first-come
    first-served, where those released together come in the order of their earliest node.
    `edges` is not modified."""
    if not isinstance(edges, Mapping):
        raise TypeError(f"stable_toposort: `edges` must be a mapping of node -> children, "
                        f"got {type(edges).__name__}")
    nodes = _nodes_in_order(edges)
    position = {node: i for i, node in enumerate(nodes)}
    succ = {node: list(edges.get(node, ())) for node in nodes}
    comp_of = _strong_components(nodes, succ)

    members: list[list[N]] = [[] for _ in range(max(comp_of.values(), default=-1) + 1)]
    for node in nodes:                        # in input order, so each component is too
        members[comp_of[node]].append(node)
    first = [position[m[0]] for m in members]  # a component's rank: its earliest node

    indegree = [0] * len(members)
    out: list[dict[int, None]] = [{} for _ in members]
    for node in nodes:
        src = comp_of[node]
        for child in succ[node]:
            dst = comp_of[child]
            if dst != src and dst not in out[src]:
                out[src][dst] = None
                indegree[dst] += 1

    by_rank = first.__getitem__
    ready = deque(sorted((c for c, d in enumerate(indegree) if d == 0), key=by_rank))
    order: list[N] = []
    while ready:
        comp = ready.popleft()
        order.extend(members[comp])
        for nxt in sorted(out[comp], key=by_rank):
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
    # The component graph is acyclic by construction, so every node is placed.
    assert len(order) == len(nodes), "stable_toposort: component graph has a cycle"
    return order
