"""GPU602 single-source-algorithm-in-loop."""

from __future__ import annotations

import ast

from gpulint.networkx_api import (
    EGO_GRAPH,
    NODE_SUBSET,
    PAIR_MEASURES,
    PAIR_QUERIES,
    SINGLE_SOURCE,
    TARGETED,
    WHOLE_GRAPH,
    function_name,
)
from gpulint.rule_api import GRAPH_TRIGGERS, Applicability, Example, Rule, RuleContext, Tier

from ._common import call_inputs, changed_names, few_literal_items, innermost_loop, loop_iterable, reads

#: Where each single-source algorithm takes its source by keyword.
_SOURCE_KEYWORDS = ("source", "n")
_CALLS = frozenset(SINGLE_SOURCE) | WHOLE_GRAPH | frozenset(PAIR_QUERIES) | PAIR_MEASURES | {EGO_GRAPH}
#: Replacements for `ego_graph` from every node: unweighted, and weighted (`distance=`).
_BALLS = (
    "dict(nx.all_pairs_shortest_path_length(G, cutoff=radius)) (each node's ball is its keys; "
    "`G.subgraph(ball)` where the graph itself is needed)"
)
_WEIGHTED_BALLS = (
    "dict(nx.all_pairs_dijkstra_path_length(G, cutoff=radius, weight=distance)) (each node's ball is its keys; "
    "`G.subgraph(ball)` where the graph itself is needed)"
)


class SingleSourceAlgorithmInLoop(Rule):
    """
    ## What it does
    Flags a NetworkX graph search or measure repeated in a loop or a comprehension where one
    call answers every iteration at once: a single-source algorithm called for one source
    after another, a path query from one source to one target after another, a per-pair
    measure given one pair at a time, and a whole-graph algorithm recomputed inside a loop
    whose graph and arguments do not change.

    ## Evidence
    Single-source algorithms (`single_source_shortest_path_length`,
    `shortest_path_length(G, source=n)`, `single_source_dijkstra*`,
    `single_source_bellman_ford*`, `descendants`, `ancestors`, `bfs_tree`,
    `node_connected_component`, and `ego_graph` with a literal radius of 2 or more, a search
    cut off at that radius), where an all-pairs or multi-source form exists; path queries
    (`nx.dijkstra_path_length(G, source=u, target=v) for v in targets`), where the
    single-source form answers every target at once; per-pair measures
    (`nx.jaccard_coefficient(G, [(u, v)])`), where one call scores every pair of its
    `ebunch`; whole-graph algorithms (`pagerank`, `betweenness_centrality`,
    `connected_components`, `clustering`, `core_number`, ...).

    Left alone: a loop that changes the graph (adds or removes nodes or edges, rebinds it,
    sets attributes), an argument that changes per iteration (`alpha=a`,
    `radius=trip_time`), a handful of literal sources (a tuple or list display of at most 3,
    `range(3)`), one path per (source, target) query where both change
    (`shortest_path(G, s, t)`), a radius-1 `ego_graph` (a node and its neighbours: no
    search), a whole-graph algorithm restricted to given nodes (`nx.triangles(G, 3)`, one
    node's count), single-source calls in a `while` loop (a search whose next source depends
    on the last result), randomised algorithms without a seed
    (`betweenness_centrality(G, k=10)`).

    ## Why is this bad?
    A whole-graph algorithm recomputed on an unchanged graph repeats the same work on every
    iteration. One search per source repeats the set-up, the Python dispatch and, on a GPU
    backend (nx-cugraph), the transfer and kernel launch for every source, where
    `multi_source_dijkstra` runs one search from all the sources at once and the all-pairs
    forms (`all_pairs_shortest_path_length`) run as one batched call on the backend. In the
    example below, the distance from every node to its nearest of 20 stores, on a random
    graph of 10,000 nodes, takes {before:10000} with one Dijkstra per store and
    {after:10000} with one multi-source Dijkstra (the measured speedups below).

    ## Fix safety
    Display-only: hoisting an algorithm out of the loop, or replacing per-source calls by
    one all-pairs or multi-source call, changes the shape of what the loop reads (a dict of
    dicts, or distances to the nearest source only), which the code after the call must be
    adapted to.
    """

    code = "GPU602"
    libraries = GRAPH_TRIGGERS
    name = "single-source-algorithm-in-loop"
    tier = Tier.PREVIEW
    tier_reason = "Never-tuned code: no finding; tuned graph corpus: 5 of 5 useful (1 of 2 before); too few"
    message = "graph algorithm run once per source in a loop: run it once for all sources"
    nodes = (ast.Call,)
    calls = _CALLS
    fix = Applicability.DISPLAY
    #: How the loop reads the all-pairs or multi-source result varies: the finding's
    #: message names the form to use.
    suggestion = (
        "compute it once, before the loop: the all-pairs or multi-source form for many sources "
        "(`dict(nx.all_pairs_shortest_path_length(G))`, `nx.multi_source_dijkstra_path_length(G, sources)`), "
        "or the whole-graph result (`ranks = nx.pagerank(G)`) read inside the loop"
    )

    flagged = (
        Example(
            source="""\
import networkx as nx


def distance_to_nearest(G: nx.Graph, stores: list) -> dict:
    nearest = {}
    for store in stores:
        for node, d in nx.single_source_dijkstra_path_length(G, store).items():
            if d < nearest.get(node, float("inf")):
                nearest[node] = d
    return nearest
""",
            idiom="""\
import networkx as nx


def distance_to_nearest(G: nx.Graph, stores: list) -> dict:
    # one search from all the stores at once
    return dict(nx.multi_source_dijkstra_path_length(G, stores)) if stores else {}
""",
            requires=("networkx",),
            setup=(
                "import networkx as nx\n"
                "G = nx.gnm_random_graph(N, 4 * N, seed=0)\n"
                "weights = rng.integers(1, 10, size=G.number_of_edges()).tolist()\n"
                'nx.set_edge_attributes(G, dict(zip(G.edges, weights)), "weight")\n'
                "stores = list(range(0, N, max(N // 20, 1)))\n"
            ),
            call="sorted(distance_to_nearest(G, stores).items())",
        ),
        Example("""\
import networkx as nx

G = nx.read_edgelist("follows.txt", create_using=nx.DiGraph)
for user in users:
    score = nx.pagerank(G, alpha=0.9)[user]
    print(user, score)
"""),
        Example("""\
import networkx as nx

G = nx.karate_club_graph()
lengths = {n: nx.shortest_path_length(G, source=n) for n in G}
"""),
        Example("""\
import networkx as nx

dag = nx.read_graphml("tasks.graphml")
blocked = {task: len(nx.descendants(dag, task)) for task in dag.nodes}
"""),
        Example("""\
import networkx as nx

G = nx.read_edgelist("citations.txt")
balls = [nx.ego_graph(G, n, radius=3) for n in G]
"""),
        Example("""\
import networkx as nx


def distances_from(D: nx.DiGraph, u, targets: list) -> list:
    return [nx.dijkstra_path_length(D, source=u, target=v, weight="length") for v in targets]
"""),
        Example("""\
import networkx as nx

G = nx.read_edgelist("follows.txt")
scores = [next(nx.jaccard_coefficient(G, [(u, v)]))[2] for u, v in candidates]
"""),
    )
    ok = (
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
ranks = nx.pagerank(G)
for n in G:
    print(n, ranks[n])
""",
            reason="An all-nodes algorithm run once, before the loop.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for alpha in alphas:
    print(alpha, nx.pagerank(G, alpha=alpha)[0])
""",
            reason="An argument that changes per iteration (`alpha=alpha`).",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for hub in (0, 33):
    print(hub, nx.single_source_shortest_path_length(G, hub))
""",
            reason="A handful of literal sources (a tuple of two).",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for source, target in queries:
    print(nx.shortest_path_length(G, source, target))
""",
            reason="One path per query where both source and target change.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
while G.number_of_edges():
    # the graph changes every iteration
    scores = nx.edge_betweenness_centrality(G)
    G.remove_edge(*max(scores, key=scores.get))
""",
            reason="The graph changes every iteration.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for n in list(G):
    centrality = nx.betweenness_centrality(G, k=10)
""",
            reason="A randomised algorithm without a seed (`k=10`): each call differs.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
# radius 1: a node and its neighbours, no search
neighbourhoods = [nx.ego_graph(G, n) for n in G]
""",
            reason="An ego graph of radius 1: a node and its neighbours, no search.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for n in sample:
    # one node's triangles, not the whole graph's
    assert nx.triangles(G, 3) >= 0
""",
            reason="A whole-graph algorithm restricted to one node (`nx.triangles(G, 3)`).",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
source = 0
while source is not None:
    reached = nx.single_source_shortest_path_length(G, source)
    source = next((n for n in reached if n > source), None)
""",
            reason="Single-source calls in a `while` loop: the next source depends on the last result.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            return
        name = function_name(ctx.qualname(node.func))
        loop = innermost_loop(ctx)
        if name is None or loop is None or not node.args or isinstance(node.args[0], ast.Starred):
            return
        if any(keyword.arg is None for keyword in node.keywords):
            return
        changed = changed_names(loop, ctx)
        if reads(node.args[0]) & changed or reads(node.func) & changed:
            return  # the graph (or the function) differs from one iteration to the next
        if name == EGO_GRAPH:
            radius = _argument(node, 2, "radius")
            if isinstance(radius, ast.Constant) and type(radius.value) is int and radius.value >= 2:
                replacement = _WEIGHTED_BALLS if _given(node, "distance") else _BALLS
                self._single_source(node, name, (1, replacement), loop, changed, ctx)
        elif name in PAIR_MEASURES:
            self._one_pair(node, name, loop, changed, ctx)
        elif name in PAIR_QUERIES and _argument(node, 2, "target") is not None:
            self._fixed_source(node, name, loop, changed, ctx)
        elif name in SINGLE_SOURCE:
            self._single_source(node, name, SINGLE_SOURCE[name], loop, changed, ctx)
        elif name in WHOLE_GRAPH:
            if any(reads(value) & changed for value in call_inputs(node)):
                return
            if name in NODE_SUBSET and _argument(node, *NODE_SUBSET[name]) is not None:
                return  # the given nodes' values only
            if name.endswith("betweenness_centrality") and _given(node, "k") and not _given(node, "seed"):
                return  # sampled: each call draws other nodes
            ctx.report(
                node,
                f"`{name}` recomputed on every iteration with the same graph and arguments: "
                "compute it once before the loop",
            )

    def _single_source(
        self, node: ast.Call, name: str, form: tuple[int, str], loop: ast.AST, changed: set[str], ctx: RuleContext
    ) -> None:
        if isinstance(loop, ast.While) or few_literal_items(loop_iterable(loop)):
            return
        position, replacement = form
        source = next((k.value for k in node.keywords if k.arg in _SOURCE_KEYWORDS), None)
        if source is None and len(node.args) > position:
            source = node.args[position]
        if source is None or isinstance(source, ast.Starred) or not reads(source) & changed:
            return
        if name in TARGETED and (_given(node, "target") or len(node.args) > position + 1):
            return  # one (source, target) query
        others = [*node.args[1:], *(k.value for k in node.keywords)]
        if any(reads(value) & changed for value in others if value is not source):
            return
        ctx.report(node, f"`{name}` called once per source in a loop: use {replacement}")

    def _fixed_source(self, node: ast.Call, name: str, loop: ast.AST, changed: set[str], ctx: RuleContext) -> None:
        """`shortest_path_length(G, u, v)` for one target after another from the same source."""
        if isinstance(loop, ast.While) or few_literal_items(loop_iterable(loop)):
            return
        source, target = _argument(node, 1, "source"), _argument(node, 2, "target")
        if source is None or target is None or reads(source) & changed or not reads(target) & changed:
            return
        others = [value for value in call_inputs(node)[1:] if value is not source and value is not target]
        if any(reads(value) & changed for value in others):
            return
        ctx.report(
            node,
            f"`{name}` called once per target from the same source in a loop: "
            f"use {PAIR_QUERIES[name]} once and read each target's entry",
        )

    def _one_pair(self, node: ast.Call, name: str, loop: ast.AST, changed: set[str], ctx: RuleContext) -> None:
        """`nx.jaccard_coefficient(G, [(u, v)])` for one pair after another."""
        if isinstance(loop, ast.While) or few_literal_items(loop_iterable(loop)):
            return
        pairs = _argument(node, 1, "ebunch")
        if not isinstance(pairs, (ast.List, ast.Tuple, ast.Set)) or len(pairs.elts) != 1:
            return
        if isinstance(pairs.elts[0], ast.Starred) or not reads(pairs) & changed:
            return
        if any(reads(value) & changed for value in call_inputs(node)[1:] if value is not pairs):
            return
        ctx.report(
            node,
            f"`{name}` called with one pair at a time in a loop: pass all the pairs as one `ebunch` "
            f"(`nx.{name}(G, ebunch=pairs)`) and read the scores it yields",
        )


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The argument given at `position` or as `keyword`, else None."""
    for given in call.keywords:
        if given.arg == keyword:
            return given.value
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


def _given(call: ast.Call, name: str) -> bool:
    return any(keyword.arg == name for keyword in call.keywords)
