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
