"""GPU603 python-loop-over-graph: per-node degrees, weighted degrees and common neighbours
computed by hand, and where the library's forms differ (self-loops, parallel edges)."""

from __future__ import annotations

import pytest

from gpulint import Applicability

from .rule_helpers import findings

HEADER = "import networkx as nx\n\nG = nx.karate_club_graph()\n"


def _found(body: str) -> list:
    return findings(HEADER + body, "GPU603")


@pytest.mark.parametrize(
    "body, word",
    [
        ("d = {n: len(list(G.neighbors(n))) for n in G}\n", "degree counted"),
        ("d = {n: len(G[n]) for n in G.nodes}\n", "degree counted"),
        ("d = {n: len(G.adj[n]) for n in G}\n", "degree counted"),
        ("d = [len(list(G.successors(n))) for n in G]\n", "degree counted"),
        ("d = [len(list(nx.neighbors(G, n))) for n in G]\n", "degree counted"),
        ("for n in G:\n    print(len(G.edges(n)))\n", "degree counted"),
        ("s = {n: sum(G[n][m]['weight'] for m in G[n]) for n in G}\n", "weighted degree"),
        ("s = {n: sum(G[n][m]['weight'] for m in G.neighbors(n)) for n in G}\n", "weighted degree"),
        ("s = {n: sum(d['weight'] for _, _, d in G.edges(n, data=True)) for n in G}\n", "weighted degree"),
        ("s = {n: sum(d['weight'] for m, d in G[n].items()) for n in G}\n", "weighted degree"),
        ("t = [len(set(G[u]) & set(G[v])) for u, v in G.edges]\n", "common neighbours"),
        ("t = [len(set(G.neighbors(u)).intersection(G.neighbors(v))) for u, v in G.edges]\n", "common neighbours"),
        ("ranked = sorted(G.nodes(), key=lambda x: len(list(G.neighbors(x))))\n", "degree counted"),
        ("hub = max(G, key=lambda n: len(G[n]))\n", "degree counted"),
        (
            "s = {}\nfor n in G:\n    total = 0\n    for e in G.edges([n], data=True):\n        total += e[2]['weight']\n",
            "weighted degree",
        ),
        ("for n in G:\n    total = 0\n    for m in G[n]:\n        total += G[n][m]['weight']\n", "weighted degree"),
    ],
)
def test_flagged(body, word):
    [finding] = _found(body)
    assert word in finding.message
    assert finding.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "body",
    [
        "d = dict(G.degree())\n",
        "hub = len(G[0])\n",
        "for n in others:\n    print(len(G[0]))\n",
        "lists = {'a': ['b']}\nsizes = {n: len(lists[n]) for n in lists}\n",
        "G = [[1], [2]]\nsizes = [len(G[i]) for i in range(2)]\n",
        "for n in G:\n    for m in G[n]:\n        print(n, m)\n",
        "total = sum(len(c) for c in nx.connected_components(G))\n",
        "f = lambda n: len(G[n])\n",
        "ranked = sorted(G, key=lambda n: len(str(n)))\n",
        "for n in G:\n    total = 0\n    for m in G[n]:\n        total += 1\n        print(total)\n",
        "total = 0\nfor _, _, d in G.edges(data=True):\n    total += d['weight']\n",
    ],
)
def test_not_flagged(body):
    assert _found(body) == []


def test_the_named_differences_are_real():
    """`G.degree()` and the hand-written count differ on self-loops and parallel edges, which
    is why the finding only suggests (and names the difference)."""
    nx = pytest.importorskip("networkx")
    loop = nx.Graph([(1, 1), (1, 2)])
    assert {n: len(list(loop.neighbors(n))) for n in loop} != dict(loop.degree())
    multi = nx.MultiGraph([(1, 2), (1, 2)])
    assert {n: len(multi[n]) for n in multi} != dict(multi.degree())
    simple = nx.gnm_random_graph(40, 90, seed=2)
    assert {n: len(list(simple.neighbors(n))) for n in simple} == dict(simple.degree())
    message = _found("d = {n: len(G[n]) for n in G}\n")[0].message
    assert "self-loop" in message and "parallel edge" in message


def test_a_parameter_used_as_a_networkx_graph_is_one():
    """No annotation and no call of the function: `G.neighbors(n)` in a file that imports
    NetworkX (and no other graph library) shows `G` is a NetworkX graph."""
    source = "import networkx as nx\n\ndef degrees(G):\n    return {n: len(list(G.neighbors(n))) for n in G.nodes()}\n"
    [finding] = findings(source, "GPU603")
    assert "degree counted" in finding.message


@pytest.mark.parametrize(
    "source",
    [
        # no NetworkX import
        "def degrees(G):\n    return {n: len(list(G.neighbors(n))) for n in G.nodes()}\n",
        # another library's graphs share the method
        "import networkx as nx\nimport rustworkx as rx\n\ndef degrees(G):\n    return {n: len(list(G.neighbors(n))) for n in G.nodes()}\n",
        # a class of the file has the method
        "import networkx as nx\n\nclass Mesh:\n    def neighbors(self, n):\n        return []\n\n"
        "def degrees(G):\n    return {n: len(list(G.neighbors(n))) for n in G.nodes()}\n",
    ],
    ids=["no-import", "rustworkx-imported", "own-class"],
)
def test_a_shared_method_is_no_evidence_where_another_graph_may_have_it(source):
    assert findings(source, "GPU603") == []
