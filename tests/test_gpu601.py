"""GPU601 graph-built-in-loop: which loops are flagged, when the fix is safe, and that the
fixed code builds the same graph (nodes, edges, their order, attributes, multigraph keys,
self-loops, errors)."""

from __future__ import annotations

import random

import pytest

from gpulint import Applicability

from .rule_helpers import findings, idempotent_fix, only_finding

nx = pytest.importorskip("networkx")

HEADER = "import networkx as nx\nimport pandas as pd\n\nedges = pd.read_csv('e.csv')\nG = nx.Graph()\n"


def _found(body: str) -> list:
    return findings(HEADER + body, "GPU601")


@pytest.mark.parametrize(
    "body, applicability",
    [
        ("for u, v in zip(a, b):\n    G.add_edge(u, v)\n", Applicability.SAFE),
        ("for u, v in pairs:\n    G.add_edge(u, v, weight=1.0)\n", Applicability.SAFE),
        ("for u, v in (links := read()):\n    G.add_edge(u, v)\n", Applicability.DISPLAY),
        ("for (u, v), w in zip(pairs, ws):\n    G.add_edge(u, v, weight=w * 2)\n", Applicability.SAFE),
        ("for row in edges.itertuples():\n    G.add_edge(row.src, row.dst)\n", Applicability.DISPLAY),
        ("for _, row in edges.iterrows():\n    G.add_edge(row['src'], row['dst'])\n", Applicability.DISPLAY),
        ("for i in range(1000):\n    G.add_node(i)\n", Applicability.DISPLAY),
        ("for node in G.copy():\n    G.add_edge(0, node)\n", Applicability.DISPLAY),
        ("for node in list(G.nodes()):\n    G.add_edge(0, node)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    if u != v:\n        G.add_edge(u, v)\n", Applicability.DISPLAY),
        ("for i in range(n):\n    for j in range(2):\n        G.add_edge(i, i + j)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    G.add_edge(u, v)\n    print(u)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    G.add_edge(f(u), v)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    G.add_edge(u, v)\nprint(u)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    G.add_edge(u, v, **attrs)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    G.add_edge(u, v, weight=scale)\n", Applicability.DISPLAY),
        ("for u, v in pairs:\n    G.add_edge(u, v)\nelse:\n    pass\n", Applicability.DISPLAY),
        ("for u, v in make_pairs():\n    G.add_edge(u, v)\n", Applicability.DISPLAY),
    ],
    ids=[
        "zip",
        "pairs-attribute",
        "walrus-iterable",
        "nested-target",
        "itertuples",
        "iterrows",
        "add-node",
        "over-a-copy",
        "over-a-list-of-the-nodes",
        "filtered",
        "few-inside-many",
        "other-work",
        "call-in-argument",
        "target-read-after",
        "unpacked-attributes",
        "attribute-from-outside",
        "for-else",
        "iterable-is-a-call",
    ],
)
def test_flagged(body, applicability):
    [finding] = _found(body)
    assert finding.fix.applicability is applicability, finding.fix


@pytest.mark.parametrize(
    "body",
    [
        "for u, v in pairs:\n    if not nx.has_path(G, u, v):\n        G.add_edge(u, v)\n",
        "for u, v in pairs:\n    if u not in G:\n        G.add_edge(u, v)\n",
        "for u, v in pairs:\n    G.add_edge(u, v, weight=G.degree(u))\n",
        "for n in G.nodes:\n    G.add_edge(n, 0)\n",
        "for u, v in pairs:\n    G = nx.Graph()\n    G.add_edge(u, v)\n",
        "while pairs:\n    u, v = pairs.pop()\n    G.add_edge(u, v)\n",
        "G.add_edges_from(pairs)\n",
        "G.add_edge(1, 2)\n",
        "L = []\nfor u, v in pairs:\n    L.append((u, v))\n",
        "for u, v in [(1, 2), (2, 3)]:\n    G.add_edge(u, v)\n",
        "for i in range(10):\n    G.add_node(i)\n",
        "for i in range(4):\n    for j in range(3):\n        G.add_edge(i, j)\n",
        "for n in G.nodes:\n    for i in range(1, 3):\n        G.add_edge(n, n + i)\n",
        "for i in range(n):\n    chosen = [m for m in G if G.degree(m) > 2]\n    for j in chosen:\n        G.add_edge(i, j)\n",
        "import random\nfor u in range(n):\n    for v in range(n):\n        if random.random() < 0.01:\n            G.add_edge(u, v)\n",
        "import numpy as np\nfor u in range(n):\n    for v in range(n):\n        p = np.random.rand()\n        if p < 0.01:\n            G.add_edge(u, v)\n",
        "import numpy as np\nfor u in range(n):\n    trials = np.random.binomial(1, 0.1, size=n)\n    for v in range(n):\n        if trials[v] == 1:\n            G.add_edge(u, v)\n",
        "import numpy as np\nrng = np.random.default_rng(0)\nfor u in range(n):\n    for v in range(n):\n        if rng.random() < 0.01:\n            G.add_edge(u, v)\n",
    ],
    ids=[
        "has-path",
        "membership",
        "reads-degree",
        "over-the-graph",
        "rebound",
        "while",
        "bulk",
        "no-loop",
        "list",
        "literal-pairs",
        "literal-range",
        "few-times-few",
        "inside-a-loop-over-the-graph",
        "outer-loop-reads-the-graph",
        "random-draw",
        "random-draw-bound",
        "binomial-trials",
        "generator-draw",
    ],
)
def test_not_flagged(body):
    assert _found(body) == []


def test_a_class_of_the_file_named_graph_is_not_networkx():
    source = (
        "import networkx as nx\n\nclass Graph:\n    def add_edge(self, u, v):\n        pass\n\n"
        "G = Graph()\nfor u, v in pairs:\n    G.add_edge(u, v)\n"
    )
    assert findings(source, "GPU601") == []


def test_one_finding_per_call():
    body = "for u, v in pairs:\n    G.add_node(u)\n    G.add_node(v)\n    G.add_edge(u, v)\n"
    lines = [finding.start.line for finding in _found(body)]
    first = HEADER.count("\n") + 2
    assert lines == [first, first + 1, first + 2]


def test_the_key_of_a_graph_of_unknown_class_is_not_rewritten():
    source = "import networkx as nx\n\ndef f(G: nx.Graph, triples):\n    for u, v, k in triples:\n        G.add_edge(u, v, key=k)\n"
    assert only_finding(source, "GPU601").fix.applicability is Applicability.DISPLAY


# -- the fix builds the same graph ---------------------------------------------------------

LOOP = """\
import networkx as nx


def build(sources, targets, weights, labels, isolated):
    G = nx.{cls}()
    G.add_nodes_from(isolated)
    for u, v, w, c in zip(sources, targets, weights, labels):
        G.add_edge(u, v, weight=w, label=c)
    return G
"""
KEYED = """\
import networkx as nx


def build(sources, targets, keys, isolated):
    G = nx.{cls}()
    G.add_nodes_from(isolated)
    for u, v, k in zip(sources, targets, keys):
        G.add_edge(u, v, key=k, seen=True)
    return G
"""
CLASSES = ["Graph", "DiGraph", "MultiGraph", "MultiDiGraph"]


def _run(source: str, *args):
    namespace: dict = {}
    exec(compile(source, "<example>", "exec"), namespace)
    try:
        return namespace["build"](*args), None
    except Exception as error:  # the same error, raised at the same item, is part of the behaviour
        return None, error


def _contents(graph) -> tuple:
    edges = graph.edges(keys=True, data=True) if graph.is_multigraph() else graph.edges(data=True)
    return (
        type(graph),
        list(graph.nodes(data=True)),
        list(edges),
        {node: list(graph.adj[node]) for node in graph},
        graph.graph,
    )


def _edge_lists(seed: int, nodes: int = 12, count: int = 60) -> tuple[list, list, list, list]:
    """Edges with repeats, both directions, self-loops and string and integer nodes."""
    rng = random.Random(seed)
    names = [*range(nodes), "a", "b"]
    sources = [rng.choice(names) for _ in range(count)]
    targets = [rng.choice(names) if rng.random() > 0.15 else s for s in sources]  # self-loops
    weights = [round(rng.random(), 3) for _ in range(count)]
    labels = [rng.choice("xyz") for _ in range(count)]
    return sources, targets, weights, labels


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fixed_loop_builds_the_same_graph(cls, seed):
    source = LOOP.format(cls=cls)
    fixed = idempotent_fix(source, unsafe=False)
    assert "add_edges_from" in fixed and "for u, v, w, c in zip" in fixed
    args = (*_edge_lists(seed), [100, "isolated", 3])
    before, error_before = _run(source, *args)
    after, error_after = _run(fixed, *args)
    assert error_before is None and error_after is None
    assert nx.utils.graphs_equal(before, after)
    assert _contents(before) == _contents(after)


@pytest.mark.parametrize("cls", ["MultiGraph", "MultiDiGraph"])
def test_multigraph_keys_become_edge_keys(cls):
    source = KEYED.format(cls=cls)
    fixed = idempotent_fix(source, unsafe=False)
    assert '(u, v, k, {"seen": True})' in fixed
    args = ([1, 1, 2, 2, 3], [2, 2, 3, 2, 1], ["a", "b", "a", "a", "a"], [9])
    before, _ = _run(source, *args)
    after, _ = _run(fixed, *args)
    assert _contents(before) == _contents(after)


@pytest.mark.parametrize("cls", ["Graph", "DiGraph"])
def test_a_plain_graphs_key_stays_an_attribute(cls):
    source = KEYED.format(cls=cls)
    fixed = idempotent_fix(source, unsafe=False)
    assert '{"key": k, "seen": True}' in fixed
    args = ([1, 1, 2], [2, 2, 3], ["a", "b", "c"], [])
    before, _ = _run(source, *args)
    after, _ = _run(fixed, *args)
    assert _contents(before) == _contents(after)


@pytest.mark.parametrize("cls", CLASSES)
def test_an_error_half_way_leaves_the_same_graph(cls):
    """`None` is no node: both raise ValueError at the same edge, having added the same ones."""
    source = LOOP.format(cls=cls).replace("    return G\n", "    return G\n\n\nbuilt = []\n")
    source = source.replace("    G = nx." + cls + "()\n", "    G = nx." + cls + "()\n    built.append(G)\n")
    fixed = idempotent_fix(source, unsafe=False)
    args = ([1, 2, None, 4], [2, 3, 4, 5], [0.1, 0.2, 0.3, 0.4], ["x"] * 4, [])
    for code in (source, fixed):
        namespace: dict = {}
        exec(compile(code, "<example>", "exec"), namespace)
        with pytest.raises(ValueError, match="None cannot be a node"):
            namespace["build"](*args)
        if code is source:
            expected = _contents(namespace["built"][0])
        else:
            assert _contents(namespace["built"][0]) == expected


def test_a_comment_in_the_loop_is_kept_by_leaving_the_loop_alone():
    source = "import networkx as nx\n\nG = nx.Graph()\nfor u, v in pairs:\n    # why\n    G.add_edge(u, v)\n"
    assert only_finding(source, "GPU601").fix.applicability is Applicability.DISPLAY
    assert idempotent_fix(source, unsafe=True) == source
