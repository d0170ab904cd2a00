"""GPU604 graph-rebuilt-in-loop: conversions and constructions of inputs the loop does not
change, and the loops that change them (or the built copy)."""

from __future__ import annotations

import pytest

from gpulint import Applicability

from .rule_helpers import findings

HEADER = (
    "import networkx as nx\nimport pandas as pd\n\n"
    "edges = pd.read_csv('e.csv')\nG = nx.karate_club_graph()\npairs = [(1, 2), (2, 3)]\n"
)


def _found(body: str) -> list:
    return findings(HEADER + body, "GPU604")


@pytest.mark.parametrize(
    "body",
    [
        "for n in nodes:\n    H = nx.from_pandas_edgelist(edges, 'src', 'dst')\n    print(H.degree(n))\n",
        "for step in range(10):\n    A = nx.to_numpy_array(G)\n",
        "for step in range(10):\n    A = nx.to_scipy_sparse_array(G, weight='w')\n",
        "for step in range(10):\n    A = nx.adjacency_matrix(G)\n",
        "for n in nodes:\n    H = nx.Graph(pairs)\n    print(H.degree(n))\n",
        "out = [nx.pagerank(nx.DiGraph(pairs), alpha=a) for a in alphas]\n",
        "i = 0\nwhile i < 10:\n    L = nx.laplacian_matrix(G)\n    i += 1\n",
    ],
)
def test_flagged(body):
    [finding] = _found(body)
    assert finding.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "body",
    [
        "A = nx.to_numpy_array(G)\nfor step in range(10):\n    print(A.sum())\n",
        "for u, v in pairs:\n    G.remove_edge(u, v)\n    A = nx.to_numpy_array(G)\n",
        "for u, v in pairs:\n    G.add_edge(u, v)\n    A = nx.to_numpy_array(G)\n",
        "for u, v in new:\n    pairs.append((u, v))\n    H = nx.Graph(pairs)\n",
        "for frame in frames:\n    H = nx.from_pandas_edgelist(frame, 'src', 'dst')\n",
        "for n in nodes:\n    H = nx.Graph(pairs)\n    H.remove_node(n)\n",
        "for n in nodes:\n    A = nx.to_numpy_array(G)\n    A[n] = 0\n",
        "for batch in batches:\n    H = nx.Graph()\n    H.add_edges_from(batch)\n",
        "for i in range(3):\n    edges.loc[i, 'w'] = 0\n    H = nx.from_pandas_edgelist(edges, 'src', 'dst')\n",
    ],
)
def test_not_flagged(body):
    assert _found(body) == []


def test_hoisting_gives_the_same_values():
    nx = pytest.importorskip("networkx")
    pairs = [(1, 2), (2, 3), (3, 1), (3, 4)]
    inside = [nx.Graph(pairs).degree(n) for n in (1, 3, 4)]
    graph = nx.Graph(pairs)
    assert inside == [graph.degree(n) for n in (1, 3, 4)]
