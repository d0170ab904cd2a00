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
