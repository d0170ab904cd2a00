"""Graph evidence (`gpulint.networkx_api`): what makes a NetworkX or cuGraph graph, by
import, and the near-misses whose names or methods look like a graph's."""

from __future__ import annotations

import pytest

from gpulint import networkx_api
from gpulint.values import OTHER, Ty

from .test_evidence import probe, probe_one

NX = Ty("graph", "networkx")
CUGRAPH = Ty("graph", "cugraph")


@pytest.mark.parametrize(
    "prelude, expression",
    [
        ("import networkx as nx", "nx.Graph()"),
        ("import networkx as nx", "nx.DiGraph([(1, 2)])"),
        ("import networkx as nx", "nx.MultiGraph()"),
        ("import networkx as nx", "nx.MultiDiGraph()"),
        ("import networkx", "networkx.Graph()"),
        ("from networkx import Graph", "Graph()"),
        ("from networkx import DiGraph as D", "D()"),
        ("from networkx.classes.graph import Graph", "Graph()"),
        ("import networkx as nx", "nx.from_pandas_edgelist(frame, 'a', 'b')"),
        ("import networkx as nx", "nx.from_edgelist([(1, 2)])"),
        ("import networkx as nx", "nx.from_numpy_array(matrix)"),
        ("import networkx as nx", "nx.read_edgelist('edges.txt')"),
        ("import networkx as nx", "nx.read_graphml('g.graphml')"),
        ("import networkx as nx", "nx.read_gml('g.gml')"),
        ("import networkx as nx", "nx.karate_club_graph()"),
        ("import networkx as nx", "nx.erdos_renyi_graph(100, 0.1, seed=1)"),
        ("import networkx as nx", "nx.barabasi_albert_graph(100, 3)"),
        ("from networkx.generators.social import karate_club_graph", "karate_club_graph()"),
        ("import networkx.generators.random_graphs as gen", "gen.gnm_random_graph(10, 20)"),
        ("import networkx as nx\nG = nx.Graph()", "G.copy()"),
        ("import networkx as nx\nG = nx.Graph()", "G.subgraph([1, 2])"),
        ("import networkx as nx\nG = nx.Graph()", "G.to_directed()"),
        ("import networkx as nx\nG = nx.karate_club_graph()\nH = G.copy()", "H"),
    ],
)
def test_networkx_graphs(prelude, expression):
    assert probe_one(f"{prelude}\nprobe({expression})\n") == NX


@pytest.mark.parametrize(
    "prelude, expression",
    [
        ("import cugraph", "cugraph.Graph()"),
        ("import cugraph", "cugraph.Graph(directed=True)"),
        ("import cugraph", "cugraph.from_cudf_edgelist(edges, 'src', 'dst')"),
    ],
)
def test_cugraph_graphs(prelude, expression):
    assert probe_one(f"{prelude}\nprobe({expression})\n") == CUGRAPH


def test_annotations_and_call_sites():
    source = "import networkx as nx\n\ndef f(G: nx.Graph):\n    probe(G)\n"
    assert probe_one(source) == NX


@pytest.mark.parametrize(
    "source",
    [
        # a class of the file named like the library's
        "import networkx as nx\n\nclass Graph:\n    pass\n\nG = Graph()\nprobe(G)\n",
        # a variable called G that is a list
        "import networkx as nx\nG = []\nprobe(G)\n",
        # no import of networkx: a name is only a name
        "import numpy as np\nG = Graph()\nprobe(G)\n",
        # another library's `Graph`
        "import networkx as nx\nfrom tensorflow import Graph\nprobe(Graph())\n",
        # a graph's views and algorithms' results are not graphs
        "import networkx as nx\nG = nx.Graph()\nprobe(G.nodes)\n",
        "import networkx as nx\nG = nx.Graph()\nprobe(G[1])\n",
        "import networkx as nx\nG = nx.Graph()\nprobe(nx.pagerank(G))\n",
    ],
)
def test_near_misses_are_not_graphs(source):
    [seen] = probe(source)
    assert seen is None or seen == OTHER or seen.kind != "graph"


def test_the_library_is_read_from_the_qualified_name():
    assert networkx_api.function_name("networkx.algorithms.shortest_paths.generic.shortest_path") == "shortest_path"
    assert networkx_api.function_name("cugraph.sssp") is None
    assert networkx_api.function_name("mylib.shortest_path") is None
    assert networkx_api.is_multigraph_class("networkx.MultiDiGraph")
    assert not networkx_api.is_multigraph_class("networkx.DiGraph")


@pytest.mark.parametrize(
    "body",
    [
        "for n in G.nodes(data=True):\n        pass",
        "for e in G.edges(0, data=True):\n        pass",
        "d = G.degree(weight='w')",
        "G.add_weighted_edges_from(triples)",
        "for n, nbrs in G.adjacency():\n        pass",
        "d = [len(list(G.neighbors(n))) for n in nodes]",
        "G.add_edges_from(pairs)",
        "G.add_nodes_from(items)",
        "n = G.number_of_nodes()",
        "ok = G.has_edge(1, 2)",
    ],
)
def test_a_parameter_used_as_a_networkx_graph_is_one(body):
    source = f"import networkx as nx\n\ndef f(G):\n    {body}\n    probe(G)\n"
    assert probe_one(source) == NX


@pytest.mark.parametrize(
    "source",
    [
        # no NetworkX import: the method may be any library's
        "def f(G):\n    G.add_edges_from(pairs)\n    probe(G)\n",
        "def f(G):\n    G.nodes(data=True)\n    probe(G)\n",
        # a method NetworkX shares, in a file that imports a library sharing it
        "import networkx as nx\nimport rustworkx as rx\n\ndef f(G):\n    G.add_edges_from(pairs)\n    probe(G)\n",
        "import networkx as nx\nimport pygraphviz as pgv\n\ndef f(A):\n    A.has_edge(1, 2)\n    probe(A)\n",
        "import networkx as nx\nfrom dgl import DGLGraph\n\ndef f(g):\n    g.number_of_nodes()\n    probe(g)\n",
        # a method a class of the file defines
        "import networkx as nx\n\nclass Grid:\n    def neighbors(self, n):\n        return []\n\n"
        "def f(G):\n    G.neighbors(0)\n    probe(G)\n",
        # without the keyword only NetworkX takes
        "import networkx as nx\n\ndef f(G):\n    G.nodes()\n    G.degree(0)\n    probe(G)\n",
        # also used as a DataFrame: mixed evidence is none
        "import networkx as nx\n\ndef f(G):\n    G.has_edge(1, 2)\n    G.iterrows()\n    probe(G)\n",
        # annotated otherwise: the annotation wins
        "import networkx as nx\nimport pandas as pd\n\ndef f(G: pd.DataFrame):\n    G.nodes(data=True)\n    probe(G)\n",
    ],
    ids=[
        "no-import",
        "no-import-only-method",
        "rustworkx",
        "pygraphviz",
        "dgl",
        "own-class",
        "no-keyword",
        "mixed",
        "annotated",
    ],
)
def test_usage_near_misses(source):
    [seen] = probe(source)
    assert seen is None or seen.kind != "graph"
