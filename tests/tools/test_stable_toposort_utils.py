"""`triton_to_gluon_translator.ordered_set` and `.stable_toposort` (upstream's names; ours)."""
import itertools
import random

import pytest

from tritium.tools.triton_to_gluon_translator.ordered_set import ordered_set
from tritium.tools.triton_to_gluon_translator.stable_toposort import stable_toposort


def test_ordered_set_keeps_first_insertion_order():
    s = ordered_set([5, 3, 5, 1, 3])
    assert list(s) == [5, 3, 1] and len(s) == 3
    s.add(3)            # already there: stays where it was
    s.add(0)
    s.update([7, 5, 8])
    assert list(s) == [5, 3, 1, 0, 7, 8]
    s.discard(1)
    s.discard(42)       # absent: no error, as set.discard
    assert list(s) == [5, 3, 0, 7, 8]
    with pytest.raises(KeyError):
        s.remove(42)
    assert s[0] == 5 and s[-1] == 8 and s[2] == 0
    with pytest.raises(IndexError, match="out of range"):
        s[5]
    with pytest.raises(IndexError):
        s[-6]
    assert 7 in s and 1 not in s
    s.clear()
    assert list(s) == [] and not s


def test_ordered_set_operators_keep_order_and_compare_as_sets():
    a, b = ordered_set("dcba"), ordered_set("xbyd")
    assert list(a + b) == list("dcbaxy")
    assert isinstance(a | b, ordered_set) and list(a | b) == list("dcbaxy")
    assert list(a & b) == list("db") and list(a - b) == list("ca")
    assert a == set("abcd") and set("abcd") == a and a != ordered_set("abc")
    assert ordered_set([1, 2]) == ordered_set([2, 1])      # equality ignores order, as sets
    assert str(ordered_set([2, 1])) == "{2, 1}" and repr(ordered_set([2])) == "<ordered_set {2}>"
    c = a.copy()
    c.add("z")
    assert "z" not in a


def _reference(edges):
    """Spelled from the definition: components from reachability both ways (transitive
    closure, not Tarjan), each in input order; then components placed first-come
    first-served as their last predecessor is placed, ties by earliest node."""
    nodes = list(dict.fromkeys(list(edges) + [c for cs in edges.values() for c in cs]))
    reach = {u: {u} | set(edges.get(u, ())) for u in nodes}
    changed = True
    while changed:
        changed = False
        for u in nodes:
            new = set().union(*(reach[v] for v in reach[u]))
            if new - reach[u]:
                reach[u] |= new
                changed = True
    comps = []
    for u in nodes:
        if not any(u in c for c in comps):
            comps.append([v for v in nodes if v in reach[u] and u in reach[v]])
    cid = {v: i for i, c in enumerate(comps) for v in c}
    preds = {i: {cid[u] for u in nodes for v in edges.get(u, ()) if cid[v] == i and cid[u] != i}
             for i in range(len(comps))}
    rank = lambda i: nodes.index(comps[i][0])
    placed, queue = [], sorted((i for i in preds if not preds[i]), key=rank)
    while queue:
        i = queue.pop(0)
        placed.append(i)
        succ = sorted({cid[v] for u in comps[i] for v in edges.get(u, ())} - {i}, key=rank)
        queue += [j for j in succ if preds[j] <= set(placed) and j not in queue and j not in placed]
    return [v for i in placed for v in comps[i]]


@pytest.mark.parametrize("seed", range(300))
def test_stable_toposort_matches_reference_on_random_graphs(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 9)
    labels = rng.sample(range(100), n)          # keys in a random, non-sorted order
    p = rng.choice([0.1, 0.25, 0.5])
    edges = {u: ordered_set(v for v in rng.sample(labels, n) if rng.random() < p) for u in labels}
    got = stable_toposort(edges)
    assert got == _reference(edges)
    assert sorted(got) == sorted(labels)
    pos = {v: i for i, v in enumerate(got)}
    for u, cs in edges.items():        # an edge goes forward unless it closes a cycle
        for v in cs:
            if pos[u] > pos[v]:
                assert u in _reachable(edges, v), (u, v)


def _reachable(edges, src):
    seen, todo = {src}, [src]
    while todo:
        for v in edges.get(todo.pop(), ()):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def test_no_edges_keeps_input_order_for_every_permutation():
    for perm in itertools.permutations("abcd"):
        assert stable_toposort({k: [] for k in perm}) == list(perm)


def test_cycle_members_keep_input_order_not_traversal_order():
    # DFS from 'c' meets 'a' then 'b'; the output still follows the keys' order b, c, a.
    assert stable_toposort({"b": ["c"], "c": ["a"], "a": ["b"]}) == ["b", "c", "a"]
    # Mutual recursion behind an entry: the cycle comes out whole, in source order.
    assert stable_toposort({"main": ["odd"], "even": ["odd"], "odd": ["even"]}) == ["main", "even", "odd"]


def test_children_missing_from_keys_are_placed_too():
    assert stable_toposort({0: [2, 1]}) == [0, 2, 1]
    assert stable_toposort({0: [5], 1: [5]}) == [0, 1, 5]


def test_deep_chain_has_no_recursion_limit():
    n = 20000    # far beyond Python's recursion limit: the SCC search is iterative
    chain = {i: [i + 1] for i in range(n)}
    assert stable_toposort(chain) == list(range(n + 1))
    chain[n] = [0]   # one big cycle
    assert stable_toposort(chain) == list(range(n + 1))


def test_input_not_mutated_and_sets_accepted():
    g = {0: {1}, 1: ordered_set([2, 0]), 2: []}
    before = {k: set(v) for k, v in g.items()}
    assert stable_toposort(g) == [0, 1, 2]
    assert {k: set(v) for k, v in g.items()} == before and g[2] == []


def test_bad_input_names_the_parameter():
    with pytest.raises(TypeError, match="`edges` must be a mapping"):
        stable_toposort([(0, [1])])
    with pytest.raises(TypeError):
        stable_toposort({0: [[1]]})     # an unhashable node
