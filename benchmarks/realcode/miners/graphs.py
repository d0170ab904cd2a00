"""Candidate miners for the graph family (GPU601-GPU604), stdlib `ast` only.

Generous on purpose: the miners see names, never types, so any `.add_edge(...)` in a loop is a
GPU601 candidate whatever its receiver, and any call named like a NetworkX algorithm or
conversion in a loop is a GPU602/GPU604 candidate whatever graph and arguments it is given.
A person reads each candidate and decides (`benchmarks/realcode/graphs/labels/`). A miner
takes a parsed module and yields `(line, note)` pairs, the line being the call's.

"In a loop" means in the body of a `for`/`while`, or in the element, conditions or inner
generators of a comprehension, within the same function (a function or lambda defined in a
loop starts afresh); a lambda passed to `.apply`/`.map`/`map` or as a `sorted`/`min`/`max`
key counts as a loop too, since it runs once per row or item.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
#: Calls that run a lambda argument once per row or item (a sort key runs once per item).
_PER_ITEM_CALLS = frozenset({"apply", "map", "applymap", "transform", "sorted", "sort", "max", "min"})

#: Methods that add one node or edge.
ONE_AT_A_TIME = frozenset({"add_edge", "add_node"})
#: Bulk adders, a candidate too when called once per item with a short list.
BULK_ADDERS = frozenset({"add_edges_from", "add_nodes_from", "add_weighted_edges_from"})
#: Algorithms of one source (or one node) that have all-pairs or multi-source forms.
SINGLE_SOURCE = frozenset(
    {
        "single_source_shortest_path",
        "single_source_shortest_path_length",
        "single_source_dijkstra",
        "single_source_dijkstra_path",
        "single_source_dijkstra_path_length",
        "single_source_bellman_ford",
        "single_source_bellman_ford_path",
        "single_source_bellman_ford_path_length",
        "shortest_path",
        "shortest_path_length",
        "dijkstra_path",
        "dijkstra_path_length",
        "bellman_ford_path",
        "bellman_ford_path_length",
        "astar_path",
        "astar_path_length",
        "has_path",
        "descendants",
        "ancestors",
        "bfs_tree",
        "dfs_tree",
        "bfs_edges",
        "dfs_edges",
        "bfs_predecessors",
        "bfs_successors",
        "dfs_preorder_nodes",
        "dfs_postorder_nodes",
        "node_connected_component",
        "ego_graph",
        "eccentricity",
        "all_simple_paths",
        "all_shortest_paths",
    }
)
#: Per-pair measures that take every pair at once (`ebunch`), a candidate when called per pair.
PER_PAIR = frozenset(
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
#: Whole-graph algorithms: one call computes every node's (or the graph's) value.
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
        "katz_centrality_numpy",
        "degree_centrality",
        "in_degree_centrality",
        "out_degree_centrality",
        "harmonic_centrality",
        "load_centrality",
        "connected_components",
        "strongly_connected_components",
        "weakly_connected_components",
        "number_connected_components",
        "clustering",
        "average_clustering",
        "triangles",
        "transitivity",
        "square_clustering",
        "core_number",
        "k_core",
        "average_shortest_path_length",
        "diameter",
        "radius",
        "all_pairs_shortest_path",
        "all_pairs_shortest_path_length",
        "all_pairs_dijkstra_path_length",
        "average_neighbor_degree",
        "average_degree_connectivity",
        "degree_assortativity_coefficient",
        "greedy_modularity_communities",
        "louvain_communities",
        "label_propagation_communities",
        "asyn_lpa_communities",
        "girvan_newman",
        "best_partition",
        "rich_club_coefficient",
        "basic_stats",
        "extended_stats",
        "betweenness_centrality_subset",
    }
)
#: Conversions of a whole graph or edge list.
CONVERSIONS = frozenset(
    {
        "from_pandas_edgelist",
        "from_pandas_adjacency",
        "from_edgelist",
        "from_numpy_array",
        "from_numpy_matrix",
        "from_scipy_sparse_array",
        "from_scipy_sparse_matrix",
        "to_numpy_array",
        "to_numpy_matrix",
        "to_scipy_sparse_array",
        "to_scipy_sparse_matrix",
        "to_pandas_adjacency",
        "to_pandas_edgelist",
        "adjacency_matrix",
        "adj_matrix",
        "laplacian_matrix",
        "normalized_laplacian_matrix",
        "incidence_matrix",
        "graph_from_gdfs",
        "graph_to_gdfs",
        "to_undirected",
        "to_directed",
    }
)
#: Names NetworkX is imported as, whose `degree(G)` is the whole graph's.
MODULE_NAMES = frozenset({"nx", "networkx"})
#: Graph classes, whose constructor given data builds a whole graph.
GRAPH_CLASSES = frozenset({"Graph", "DiGraph", "MultiGraph", "MultiDiGraph"})
#: Neighbour accessors whose per-node use in a loop may be a degree or neighbour count.
NEIGHBOUR_METHODS = frozenset({"neighbors", "successors", "predecessors", "common_neighbors", "all_neighbors"})


def _name(call: ast.Call) -> str | None:
    """`f` of `f(...)` or `x.f(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _per_item_lambda(node: ast.AST, field: str, parent: ast.AST) -> bool:
    """`node` is a lambda handed to `.apply(...)`, `.map(...)`, `map(...)` or a sort key."""
    return (
        isinstance(node, ast.Lambda)
        and isinstance(parent, ast.Call)
        and field in ("args", "keywords")
        and _name(parent) in _PER_ITEM_CALLS
    )


def _in_loops(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(node, innermost loop) for every node inside a loop body, a comprehension's element,
    conditions or inner generators, or a lambda run per item, within the same function."""

    def parts(node: ast.AST, loop: ast.AST | None) -> Iterator[tuple[ast.AST, ast.AST | None]]:
        """Each child of `node` with the loop it runs in."""
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if isinstance(child, ast.keyword):
                    child = child.value
                if isinstance(child, ast.comprehension):
                    # The first iterable is read once, outside; the rest run per item.
                    yield child.iter, loop if index == 0 else node
                    yield from ((condition, node) for condition in child.ifs)
                    continue
                if not isinstance(child, ast.AST):
                    continue
                inner = loop
                if (
                    isinstance(node, _LOOPS)
                    and field in ("body", "orelse")
                    or isinstance(node, _COMPREHENSIONS)
                    and field in ("elt", "key", "value")
                ):
                    inner = node
                if isinstance(child, _SCOPES):
                    inner = child if _per_item_lambda(child, field, node) else None
                yield child, inner

    def visit(node: ast.AST, loop: ast.AST | None) -> Iterator[tuple[ast.AST, ast.AST]]:
        for child, inner in parts(node, loop):
            if inner is not None:
                yield child, inner
            yield from visit(child, inner)

    yield from visit(tree, None)


def _kind(loop: ast.AST) -> str:
    """The loop's kind and line, for a note."""
    kind = "lambda per item" if isinstance(loop, ast.Lambda) else type(loop).__name__
    return f"{kind} (line {loop.lineno})"


def _loop_names(loop: ast.AST) -> set[str]:
    """The names a loop or comprehension binds per iteration (its targets, a lambda's
    parameters)."""
    targets: list[ast.AST] = []
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        targets = [loop.target]
    elif isinstance(loop, _COMPREHENSIONS):
        targets = [generator.target for generator in loop.generators]
    elif isinstance(loop, ast.Lambda):
        return {argument.arg for argument in loop.args.args}
    return {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}


def _calls_in_loops(tree: ast.AST) -> Iterator[tuple[ast.Call, str, ast.AST]]:
    """(call, its name, innermost loop) for every named call in a loop."""
    for node, loop in _in_loops(tree):
        if isinstance(node, ast.Call):
            name = _name(node)
            if name is not None:
                yield node, name, loop


# -- GPU601: one add_edge/add_node per item ----------------------------------------------------


def mine_built_in_loop(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """`x.add_edge(...)` / `x.add_node(...)` in a loop, any receiver; also the bulk adders in a
    loop (one call per item of a short list is the same idiom)."""
    for call, name, loop in _calls_in_loops(tree):
        if name in ONE_AT_A_TIME | BULK_ADDERS and isinstance(call.func, ast.Attribute):
            yield call.lineno, f"{name} inside {_kind(loop)}"


# -- GPU602: single-source or whole-graph algorithm in a loop ----------------------------------


def mine_algorithm_in_loop(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A single-source algorithm, a per-pair measure or a whole-graph algorithm called in a
    loop, any arguments."""
    for call, name, loop in _calls_in_loops(tree):
        if name in SINGLE_SOURCE:
            yield call.lineno, f"single-source {name} inside {_kind(loop)}"
        elif name in PER_PAIR:
            yield call.lineno, f"per-pair {name} inside {_kind(loop)}"
        elif name in WHOLE_GRAPH:
            yield call.lineno, f"whole-graph {name} inside {_kind(loop)}"


# -- GPU603: per-node aggregate in Python -------------------------------------------------------


def _subscript_depth(node: ast.AST) -> int:
    """How many subscripts are chained: `g[u][v]["weight"]` is 3."""
    depth = 0
    while isinstance(node, ast.Subscript):
        depth += 1
        node = node.value
    return depth


def _uses(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _degree_view(node: ast.AST) -> bool:
    """`x.degree` / `x.in_degree` / `x.out_degree` of a receiver that is not the module."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("degree", "in_degree", "out_degree")
        and not (isinstance(node.value, ast.Name) and node.value.id in MODULE_NAMES)
    )


def _edge_view_item(node: ast.AST, names: set[str]) -> bool:
    """`x.edges[u, v]` with a name the loop binds."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "edges"
        and _uses(node.slice, names)
    )


def _aggregate_note(node: ast.AST, names: set[str]) -> str:
    """What per-node aggregate `node` may be, given the names its loop binds; "" when none."""
    if isinstance(node, ast.Call) and _name(node) == "len" and len(node.args) == 1:
        argument = node.args[0]
        if isinstance(argument, ast.Call) and _name(argument) in ("list", "set", "tuple") and argument.args:
            argument = argument.args[0]
        if isinstance(argument, ast.Subscript) and _uses(argument.slice, names):
            return "len of a per-item subscript"
        if isinstance(argument, ast.Call) and _name(argument) in NEIGHBOUR_METHODS:
            return f"len of {_name(argument)}(...)"
        return ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in NEIGHBOUR_METHODS:
            return f"{node.func.attr}(...)"
        if node.func.attr == "get_edge_data" and any(_uses(a, names) for a in node.args):
            return "get_edge_data of loop items"
        receiver = node.func.value
        if node.func.attr == "get" and _subscript_depth(receiver) == 2 and _uses(receiver, names):
            return "edge attribute g[u][v].get(key)"
        if node.func.attr == "get" and _edge_view_item(receiver, names):
            return "edge attribute g.edges[u, v].get(key)"
        if _degree_view(node.func) and node.args and _uses(node.args[0], names):
            return f"{node.func.attr}(n) of one loop item"
        return ""
    if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
        return ""
    if _degree_view(node.value) and _uses(node.slice, names):
        return "degree[n] of one loop item"
    key = node.slice
    keyed = isinstance(key, ast.Constant) and isinstance(key.value, str)
    if keyed and _subscript_depth(node) == 3 and _uses(node.value, names):
        return "edge attribute g[u][v][key]"
    if keyed and _edge_view_item(node.value, names):
        return "edge attribute g.edges[u, v][key]"
    return ""


def _edge_data_names(loop: ast.AST) -> set[str]:
    """The names a loop binds from `x.edges(..., data=...)` (the edge tuples or their data)."""
    generators: list[tuple[ast.AST, ast.AST]] = []
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        generators = [(loop.target, loop.iter)]
    elif isinstance(loop, _COMPREHENSIONS):
        generators = [(generator.target, generator.iter) for generator in loop.generators]
    names: set[str] = set()
    for target, iterable in generators:
        if (
            isinstance(iterable, ast.Call)
            and _name(iterable) == "edges"
            and any(keyword.arg == "data" for keyword in iterable.keywords)
        ):
            names |= {name.id for name in ast.walk(target) if isinstance(name, ast.Name)}
    return names


def _edge_data_read(node: ast.AST, names: set[str]) -> bool:
    """`d["weight"]` or `e[2]["weight"]` of a name bound from `x.edges(data=...)`."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)):
        return False
    if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return False
    inner = node.value
    if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Constant) and inner.slice.value == 2:
        inner = inner.value
    return isinstance(inner, ast.Name) and inner.id in names


def mine_python_loop_over_graph(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """In a loop: `len(x[n])` / `len(x.adj[n])` / `len(list(x.neighbors(n)))` of a name the loop
    binds, any `x.neighbors(...)`-like call, `x.degree(n)` / `x.degree[n]` of a loop name,
    `x.get_edge_data(u, v)`, `x[u][v][key]` / `x.edges[u, v][key]` edge-attribute reads (or
    their `.get(key)`) with a loop name, and `d[key]` of edge data a loop takes from
    `x.edges(data=...)`."""
    seen: set[int] = set()
    for node, loop in _in_loops(tree):
        note = _aggregate_note(node, _loop_names(loop))
        if not note and _edge_data_read(node, _edge_data_names(loop)):
            note = "edge data attribute in a loop over edges(data=...)"
        line = getattr(node, "lineno", 0)
        if note and line and line not in seen:
            seen.add(line)
            yield line, f"{note} inside {_kind(loop)}"


# -- GPU604: graph built or converted in a loop -------------------------------------------------


def mine_rebuilt_in_loop(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A conversion (`from_pandas_edgelist`, `to_numpy_array`, ...) or a graph constructor given
    data, in a loop, any arguments."""
    for call, name, loop in _calls_in_loops(tree):
        if name in CONVERSIONS:
            yield call.lineno, f"{name} inside {_kind(loop)}"
        elif name in GRAPH_CLASSES and (call.args or call.keywords):
            yield call.lineno, f"{name}(data) inside {_kind(loop)}"


MINERS: dict[str, Callable[[ast.Module], Iterable[tuple[int, str]]]] = {
    "GPU601": mine_built_in_loop,
    "GPU602": mine_algorithm_in_loop,
    "GPU603": mine_python_loop_over_graph,
    "GPU604": mine_rebuilt_in_loop,
}
