"""GPU602 single-source-algorithm-in-loop: per-source searches and whole-graph algorithms
recomputed in loops, and the loops where the graph, the arguments or the query change."""

from __future__ import annotations

import pytest

from gpulint import Applicability

from .rule_helpers import findings

HEADER = "import networkx as nx\n\nG = nx.karate_club_graph()\n"


def _found(body: str) -> list:
    return findings(HEADER + body, "GPU602")


@pytest.mark.parametrize(
    "body, named",
    [
        ("d = {n: nx.single_source_shortest_path_length(G, n) for n in G}\n", "all_pairs_shortest_path_length"),
        ("for n in G:\n    print(nx.shortest_path_length(G, source=n))\n", "all_pairs_shortest_path_length"),
        ("for n in G:\n    print(nx.shortest_path(G, n))\n", "all_pairs_shortest_path"),
        ("for s in stores:\n    print(nx.single_source_dijkstra(G, s))\n", "multi_source_dijkstra"),
        ("for s in G:\n    print(nx.single_source_dijkstra_path_length(G, s, weight='w'))\n", "all_pairs_dijkstra"),
        ("sizes = [len(nx.descendants(G, n)) for n in G]\n", "transitive_closure_dag"),
        ("trees = [nx.bfs_tree(G, n) for n in G]\n", "all_pairs_shortest_path"),
        ("for n in G:\n    pr = nx.pagerank(G)\n", "pagerank"),
        ("for n in G:\n    print(nx.betweenness_centrality(G, normalized=True)[n])\n", "betweenness_centrality"),
        ("for n in G:\n    print(nx.betweenness_centrality(G, k=5, seed=1)[n])\n", "betweenness_centrality"),
        ("for n in G:\n    print(len(list(nx.connected_components(G))))\n", "connected_components"),
        ("out = [nx.clustering(G)[n] for n in G]\n", "clustering"),
        (
            "from networkx.algorithms.link_analysis.pagerank_alg import pagerank\nfor n in G:\n    pagerank(G)\n",
            "pagerank",
        ),
        ("balls = [nx.ego_graph(G, n, radius=3) for n in G]\n", "all_pairs_shortest_path_length(G, cutoff=radius)"),
        ("for n in G:\n    print(nx.ego_graph(G, n, 2))\n", "all_pairs_shortest_path_length(G, cutoff=radius)"),
        ("for n in G:\n    print(nx.ego_graph(G, n, radius=2, distance='w'))\n", "all_pairs_dijkstra_path_length"),
        ("for u, v in pairs:\n    s = next(nx.jaccard_coefficient(G, [(u, v)]))\n", "one `ebunch`"),
        ("for u, v in pairs:\n    s = list(nx.adamic_adar_index(G, ebunch=[(u, v)]))\n", "one `ebunch`"),
        (
            "d = (nx.dijkstra_path_length(G, source=0, target=v) for v in targets)\n",
            "single_source_dijkstra_path_length",
        ),
        ("for v in targets:\n    print(nx.shortest_path_length(G, hub, v))\n", "single_source_shortest_path_length"),
    ],
)
def test_flagged(body, named):
    [finding] = _found(body)
    assert named in finding.message
    assert finding.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "body",
    [
        # a handful of literal sources
        "for hub in (0, 33):\n    print(nx.single_source_shortest_path_length(G, hub))\n",
        "for hub in range(3):\n    print(nx.descendants(G, hub))\n",
        # one path per (source, target) query
        "for s, t in queries:\n    print(nx.shortest_path(G, s, t))\n",
        "for s, t in queries:\n    print(nx.shortest_path_length(G, source=s, target=t))\n",
        # an argument changes per iteration
        "for a in alphas:\n    print(nx.pagerank(G, alpha=a))\n",
        "for w in weights:\n    print(nx.single_source_dijkstra_path_length(G, 0, weight=w))\n",
        # the graph changes in the loop
        "for n in list(G):\n    G.remove_node(n)\n    print(nx.number_connected_components(G))\n",
        "for u, v in pairs:\n    G.add_edge(u, v)\n    print(nx.pagerank(G))\n",
        "for n in G:\n    nx.set_node_attributes(G, {n: 1}, 'x')\n    print(nx.pagerank(G))\n",
        "for H in graphs:\n    print(nx.pagerank(H))\n",
        # a search whose next source depends on the last result
        "frontier = [0]\nwhile frontier:\n    frontier = list(nx.descendants(G, frontier.pop()))\n",
        # sampled without a seed: each call differs
        "for n in G:\n    print(nx.betweenness_centrality(G, k=5)[n])\n",
        # outside a loop, or an all-pairs form already
        "ranks = nx.pagerank(G)\n",
        "lengths = dict(nx.all_pairs_shortest_path_length(G))\n",
        # the source does not change
        "for n in G:\n    print(n, nx.single_source_shortest_path_length(G, 0)[n])\n",
        # a radius-1 ego graph is a node and its neighbours; a radius that changes
        "balls = [nx.ego_graph(G, n) for n in G]\n",
        "balls = [nx.ego_graph(G, n, radius=1) for n in G]\n",
        "for r in radii:\n    print(nx.ego_graph(G, 0, radius=r))\n",
        "for n in G:\n    print(nx.ego_graph(G, n, radius=r))\n",
        # every pair at once, or a pair list that is not one pair
        "scores = list(nx.jaccard_coefficient(G, pairs))\n",
        "for u, v in pairs:\n    s = list(nx.jaccard_coefficient(G, [(u, v), (v, u)]))\n",
        # a target that does not change, or a handful of targets
        "for s in sources:\n    print(nx.dijkstra_path_length(G, s, 0))\n",
        "for v in (1, 2):\n    print(nx.dijkstra_path_length(G, 0, v))\n",
        # restricted to given nodes: not the whole graph's
        "for n in sample:\n    assert nx.triangles(G, 3) >= 0\n",
        "for n in sample:\n    print(nx.clustering(G, nodes=[1, 2]))\n",
    ],
)
def test_not_flagged(body):
    assert _found(body) == []


def test_a_function_of_the_file_named_like_an_algorithm_is_left_alone():
    source = "import networkx as nx\n\ndef pagerank(G):\n    return {}\n\nfor n in nodes:\n    pagerank(G)\n"
    assert findings(source, "GPU602") == []


def test_hoisting_the_whole_graph_algorithm_gives_the_same_values():
    """Hoisting gives the same values: what the rule's suggestion promises."""
    nx = pytest.importorskip("networkx")
    graph = nx.gnm_random_graph(60, 200, seed=3)
    inside = [nx.pagerank(graph)[n] for n in graph]
    ranks = nx.pagerank(graph)
    assert inside == [ranks[n] for n in graph]
