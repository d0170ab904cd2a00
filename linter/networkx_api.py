"""What gpulint knows about graph libraries, kept as data: NetworkX (which runs on a GPU
through its nx-cugraph backend) and cuGraph.

A graph is recorded as `Ty("graph", "networkx")` or `Ty("graph", "cugraph")`: made by a
graph class (`nx.Graph(...)`, `nx.MultiDiGraph()`, `cugraph.Graph()`), a converter
(`nx.from_pandas_edgelist`, `cugraph.from_cudf_edgelist`), a reader (`nx.read_edgelist`,
`nx.read_graphml`), a generator (`nx.karate_club_graph()`, anything under
`networkx.generators`), or a graph's own method that returns a graph (`G.copy()`,
`G.subgraph(nodes)`, `G.to_directed()`). Resolution is by qualified name, from the file's
imports. Nothing here imports a graph library.

A name the file gives no type is also a NetworkX graph by its use (`usage_methods`): in a
file that imports NetworkX, a method only NetworkX graphs have called with the arguments only
they take (`G.nodes(data=True)`, `G.degree(weight="w")`, `G.add_weighted_edges_from(...)`),
or a method other graph libraries share (`G.neighbors(n)`, `G.add_edges_from(...)`,
`G.number_of_nodes()`) where the file imports none of those libraries and defines no class
with a method of that name.
"""

from __future__ import annotations

import ast

from .values import Kind, Ty

NETWORKX = "networkx"
CUGRAPH = "cugraph"
#: Qualified-name prefixes of each library (nx-cugraph's own functions return NetworkX-like graphs).
PREFIXES = {"networkx.": NETWORKX, "nx_cugraph.": NETWORKX, "cugraph.": CUGRAPH}

#: The graph classes.
GRAPH_CLASSES = frozenset({"Graph", "DiGraph", "MultiGraph", "MultiDiGraph"})
#: Graph classes whose `add_edge` takes a `key` (parallel edges).
MULTIGRAPH_CLASSES = frozenset({"MultiGraph", "MultiDiGraph"})
#: Functions that return a new graph: converters, readers, operators.
GRAPH_FUNCTIONS = frozenset(
    {
        "from_pandas_edgelist",
        "from_pandas_adjacency",
        "from_edgelist",
        "from_numpy_array",
        "from_scipy_sparse_array",
        "from_dict_of_lists",
        "from_dict_of_dicts",
        "from_cudf_edgelist",
        "from_cudf_adjlist",
        "from_adjlist",
        "from_networkx",
        "to_networkx",
        "read_edgelist",
        "read_weighted_edgelist",
        "read_adjlist",
        "read_multiline_adjlist",
        "read_graphml",
        "read_gml",
        "read_gexf",
        "read_pajek",
        "read_leda",
        "read_graph6",
        "read_sparse6",
        "parse_edgelist",
        "parse_adjlist",
        "parse_gml",
        "parse_graphml",
        "node_link_graph",
        "adjacency_graph",
        "convert_node_labels_to_integers",
        "relabel_nodes",
        "compose",
        "compose_all",
        "union",
        "union_all",
        "disjoint_union",
        "disjoint_union_all",
        "intersection",
        "difference",
        "complement",
        "line_graph",
        "ego_graph",
        "k_core",
        "subgraph",
        "edge_subgraph",
        "induced_subgraph",
        "to_directed",
        "to_undirected",
        "minimum_spanning_tree",
        "maximum_spanning_tree",
        "bfs_tree",
        "dfs_tree",
        "transitive_closure",
        "transitive_reduction",
        "quotient_graph",
        "stochastic_graph",
    }
)
#: Generators exported at the package's top level (`nx.karate_club_graph()`); anything
#: under `networkx.generators.` counts too.
GENERATORS = frozenset(
    {
        "karate_club_graph",
        "davis_southern_women_graph",
        "florentine_families_graph",
        "les_miserables_graph",
        "erdos_renyi_graph",
        "gnp_random_graph",
        "fast_gnp_random_graph",
        "gnm_random_graph",
        "dense_gnm_random_graph",
        "binomial_graph",
        "barabasi_albert_graph",
        "dual_barabasi_albert_graph",
        "extended_barabasi_albert_graph",
        "powerlaw_cluster_graph",
        "watts_strogatz_graph",
        "newman_watts_strogatz_graph",
        "connected_watts_strogatz_graph",
        "random_regular_graph",
        "random_geometric_graph",
        "stochastic_block_model",
        "planted_partition_graph",
        "random_partition_graph",
        "configuration_model",
        "directed_configuration_model",
        "scale_free_graph",
        "gn_graph",
        "gnr_graph",
        "gnc_graph",
        "random_k_out_graph",
        "random_tree",
        "random_labeled_tree",
        "empty_graph",
        "null_graph",
        "trivial_graph",
        "complete_graph",
        "complete_bipartite_graph",
        "path_graph",
        "cycle_graph",
        "star_graph",
        "wheel_graph",
        "ladder_graph",
        "lollipop_graph",
        "barbell_graph",
        "grid_graph",
        "grid_2d_graph",
        "hypercube_graph",
        "balanced_tree",
        "full_rary_tree",
        "caveman_graph",
        "connected_caveman_graph",
        "petersen_graph",
        "krackhardt_kite_graph",
        "turan_graph",
        "circulant_graph",
        "LFR_benchmark_graph",
    }
)
#: Methods of a graph that return a graph.
GRAPH_METHODS = frozenset({"copy", "subgraph", "edge_subgraph", "to_directed", "to_undirected", "reverse"})
#: Methods of a graph that change it.
MUTATING_METHODS = frozenset(
    {
        "add_edge",
        "add_edges_from",
        "add_weighted_edges_from",
        "add_node",
        "add_nodes_from",
        "remove_edge",
        "remove_edges_from",
        "remove_node",
        "remove_nodes_from",
        "clear",
        "clear_edges",
        "update",
        "from_cudf_edgelist",
        "from_pandas_edgelist",
    }
)
#: NetworkX functions that change the graph they are given.
MUTATING_FUNCTIONS = frozenset(
    {"set_node_attributes", "set_edge_attributes", "add_path", "add_cycle", "add_star", "relabel_nodes"}
)

#: Single-source algorithms, with the argument position of their source and the form that
#: answers for every source (or several) at once.
SINGLE_SOURCE: dict[str, tuple[int, str]] = {
    "single_source_shortest_path_length": (1, "nx.all_pairs_shortest_path_length(G)"),
    "single_source_shortest_path": (1, "nx.all_pairs_shortest_path(G)"),
    "single_source_dijkstra_path_length": (1, "nx.all_pairs_dijkstra_path_length(G)"),
    "single_source_dijkstra_path": (1, "nx.all_pairs_dijkstra_path(G)"),
    "single_source_dijkstra": (1, "nx.all_pairs_dijkstra(G), or nx.multi_source_dijkstra(G, sources)"),
    "single_source_bellman_ford_path_length": (1, "nx.all_pairs_bellman_ford_path_length(G)"),
    "single_source_bellman_ford_path": (1, "nx.all_pairs_bellman_ford_path(G)"),
    "single_source_bellman_ford": (1, "nx.all_pairs_bellman_ford_path_length(G)"),
    "shortest_path_length": (1, "nx.all_pairs_shortest_path_length(G)"),
    "shortest_path": (1, "nx.all_pairs_shortest_path(G)"),
    "descendants": (1, "nx.transitive_closure_dag(G) once (a node's successors there are its descendants)"),
    "ancestors": (1, "nx.transitive_closure_dag(G) once (a node's predecessors there are its ancestors)"),
    "bfs_tree": (1, "nx.all_pairs_shortest_path(G) (or one multi-source search)"),
    "node_connected_component": (1, "nx.connected_components(G) once"),
}
#: Single-source algorithms that answer one (source, target) query when given a target.
TARGETED = frozenset(
    {
        "shortest_path_length",
        "shortest_path",
        "single_source_dijkstra",
        "single_source_bellman_ford",
    }
)
#: Path queries between one source and one target, with the single-source form that answers
#: every target of one source at once.
PAIR_QUERIES: dict[str, str] = {
    "shortest_path_length": "nx.single_source_shortest_path_length(G, source)",
    "shortest_path": "nx.single_source_shortest_path(G, source)",
    "dijkstra_path_length": "nx.single_source_dijkstra_path_length(G, source)",
    "dijkstra_path": "nx.single_source_dijkstra_path(G, source)",
    "bellman_ford_path_length": "nx.single_source_bellman_ford_path_length(G, source)",
    "bellman_ford_path": "nx.single_source_bellman_ford_path(G, source)",
}
#: Per-pair measures that score every pair of their `ebunch` argument (its position 1) in one call.
PAIR_MEASURES = frozenset(
    {
        "jaccard_coefficient",
        "adamic_adar_index",
        "resource_allocation_index",
        "preferential_attachment",
        "common_neighbor_centrality",
        "cn_soundarajan_hopcroft",
        "ra_index_soundarajan_hopcroft",
        "within_inter_cluster",
    }
)
#: `ego_graph(G, n, radius)`: a search from `n` cut off at `radius` (argument position 2,
#: default 1). A radius of 1 is a node and its neighbours, read without a search.
EGO_GRAPH = "ego_graph"
#: Whole-graph algorithms that compute only the nodes given to them: (position, keyword)
#: of that argument (`nx.triangles(G, 3)` is one node's count).
NODE_SUBSET: dict[str, tuple[int, str]] = {
    "triangles": (1, "nodes"),
    "clustering": (1, "nodes"),
    "square_clustering": (1, "nodes"),
    "average_clustering": (1, "nodes"),
    "eccentricity": (1, "v"),
    "closeness_centrality": (1, "u"),
}
#: Deterministic whole-graph algorithms: the same graph and arguments give the same result.
WHOLE_GRAPH = frozenset(
    {
        "pagerank",
        "hits",
        "betweenness_centrality",
        "edge_betweenness_centrality",
        "closeness_centrality",
        "eigenvector_centrality",
        "eigenvector_centrality_numpy",
        "katz_centrality",
        "degree_centrality",
        "in_degree_centrality",
        "out_degree_centrality",
        "harmonic_centrality",
        "load_centrality",
        "connected_components",
        "strongly_connected_components",
        "weakly_connected_components",
        "number_connected_components",
        "biconnected_components",
        "articulation_points",
        "clustering",
        "average_clustering",
        "square_clustering",
        "triangles",
        "transitivity",
        "core_number",
        "all_pairs_shortest_path_length",
        "all_pairs_dijkstra_path_length",
        "average_shortest_path_length",
        "diameter",
        "eccentricity",
        "greedy_modularity_communities",
        "topological_sort",
        "minimum_spanning_tree",
    }
)
#: Calls that convert a graph or an edge list into another structure, or build a graph
#: from one: each reads its whole input.
REBUILDERS = frozenset(
    {
        "from_pandas_edgelist",
        "from_pandas_adjacency",
        "from_edgelist",
        "from_numpy_array",
        "from_scipy_sparse_array",
        "from_dict_of_lists",
        "from_dict_of_dicts",
        "to_numpy_array",
        "to_scipy_sparse_array",
        "to_pandas_edgelist",
        "to_pandas_adjacency",
        "to_dict_of_dicts",
        "adjacency_matrix",
        "laplacian_matrix",
        "normalized_laplacian_matrix",
        "incidence_matrix",
        "from_cudf_edgelist",
        *GRAPH_CLASSES,
    }
)


#: Methods only a NetworkX graph has, given the keyword named (None: with any arguments).
ONLY_METHODS: dict[str, str | None] = {
    "nodes": "data",
    "edges": "data",
    "in_edges": "data",
    "out_edges": "data",
    "degree": "weight",
    "in_degree": "weight",
    "out_degree": "weight",
    "size": "weight",
    "add_weighted_edges_from": None,
    "adjacency": None,
    "nbunch_iter": None,
    "has_successor": None,
    "has_predecessor": None,
}
#: Methods NetworkX graphs share with other graph libraries' (rustworkx, pygraphviz, DGL,
#: cuGraph, StellarGraph, pyvis...): evidence only in a file that imports none of those.
SHARED_METHODS = frozenset(
    {
        "neighbors",
        "successors",
        "predecessors",
        "add_edges_from",
        "add_nodes_from",
        "has_edge",
        "has_node",
        "number_of_nodes",
        "number_of_edges",
    }
)
#: Top-level modules of libraries whose graphs (or graph-like objects) share `SHARED_METHODS`.
SHARING_LIBRARIES = frozenset(
    {
        "igraph",
        "rustworkx",
        "retworkx",
        "graph_tool",
        "networkit",
        "snap",
        "pygraphviz",
        "pydot",
        "graphviz",
        "dgl",
        "stellargraph",
        "cugraph",
        "pyvis",
    }
)
#: What the use of a method shows: a NetworkX graph.
USED_AS_GRAPH = Ty(Kind.GRAPH, NETWORKX)
_STATEMENT_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


#: Every method whose call may show a NetworkX graph: a file's `usage_methods` are among them.
USAGE_METHODS = frozenset(ONLY_METHODS) | SHARED_METHODS


def usage_methods(tree: ast.Module) -> frozenset[str]:
    """The methods whose call on a name shows, in this file, that the name is a NetworkX
    graph: none where the file does not import NetworkX; `ONLY_METHODS`; and
    `SHARED_METHODS` where it imports no library in `SHARING_LIBRARIES`, less the names of
    methods its own classes define. Imports and classes are looked for in statements at
    any depth (a function's own `import networkx as nx` counts)."""
    imported: set[str] = set()
    defined: set[str] = set()
    statements: list[ast.AST] = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".", 1)[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".", 1)[0])
        elif isinstance(node, ast.ClassDef):
            defined.update(s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
        for name in _STATEMENT_FIELDS:
            statements.extend(getattr(node, name, ()))
    if NETWORKX not in imported:
        return frozenset()
    if imported & SHARING_LIBRARIES:
        return frozenset(ONLY_METHODS)
    return frozenset(ONLY_METHODS) | (SHARED_METHODS - defined)


def usage_type(method: str, call: ast.Call, methods: frozenset[str]) -> Ty | None:
    """A NetworkX graph, when calling `method` this way shows its receiver is one (`methods`:
    the file's `usage_methods`)."""
    if method not in methods:
        return None
    keyword = ONLY_METHODS.get(method)
    if keyword is not None and not any(given.arg == keyword for given in call.keywords):
        return None
    return USED_AS_GRAPH


def library(qualname: str | None) -> tuple[str, str] | None:
    """`networkx.algorithms.shortest_paths.generic.shortest_path` -> ("networkx",
    "shortest_path"): the graph library and the function's own name, else None."""
    if not qualname:
        return None
    for prefix, lib in PREFIXES.items():
        if qualname.startswith(prefix):
            return lib, qualname.rsplit(".", 1)[1]
    return None


def function_name(qualname: str | None) -> str | None:
    """The name of a NetworkX function (`shortest_path` for any of its import paths)."""
    found = library(qualname)
    return found[1] if found is not None and found[0] == NETWORKX else None


def constructed_type(qualname: str) -> Ty | None:
    """What calling `qualname` returns (or, as an annotation, promises): a graph of its
    library, when it is a graph class, a converter, a reader or a generator."""
    found = library(qualname)
    if found is None:
        return None
    lib, name = found
    if (
        name in GRAPH_CLASSES
        or name in GRAPH_FUNCTIONS
        or name in GENERATORS
        or qualname.startswith("networkx.generators.")
        and name.endswith("_graph")
    ):
        return Ty(Kind.GRAPH, lib)
    return None


def is_multigraph_class(qualname: str | None) -> bool:
    found = library(qualname)
    return found is not None and found[1] in MULTIGRAPH_CLASSES


def method_type(receiver: Ty, method: str) -> Ty | None:
    """`G.copy()`, `G.subgraph(nodes)`, `G.to_directed()`: a graph of the same library."""
    return receiver if method in GRAPH_METHODS else None


def is_graph(ty: Ty | None) -> bool:
    return ty is not None and ty.kind == "graph"


#: The calls that add one edge or node.
ONE_AT_A_TIME = frozenset({"add_edge", "add_node"})

#: Calls on the graph that build it and read nothing of it.
BUILDERS = ONE_AT_A_TIME | {"add_edges_from", "add_nodes_from", "add_weighted_edges_from"}

NEIGHBOUR_METHODS = frozenset({"neighbors", "successors", "predecessors"})

#: A graph's views of one node's neighbours: `G[n]`, `G.adj[n]`, `G.neighbors(n)`...
ADJACENCY_VIEWS = frozenset({"adj", "succ", "pred"})
