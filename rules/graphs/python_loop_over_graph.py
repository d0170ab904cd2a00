"""GPU603 python-loop-over-graph."""

from __future__ import annotations

import ast

from gpulint.rule_api import GRAPH_TRIGGERS, Applicability, Example, Rule, RuleContext, same_reference, Tier
from gpulint.networkx_api import ADJACENCY_VIEWS, NEIGHBOUR_METHODS, function_name, is_graph

#: Builtins that copy an iterable without changing what it holds.
_COPIES = frozenset({"list", "set", "tuple", "frozenset"})

DEGREE = (
    "degree counted by hand: `dict(G.degree())` (or `G.out_degree()`/`G.in_degree()`) gives every node's at "
    "once (it counts a self-loop twice and each parallel edge of a multigraph, where neighbours count once)"
)
WEIGHTED_DEGREE = (
    "weighted degree summed by hand: `dict(G.degree(weight=...))` gives every node's at once (it counts a "
    "self-loop's weight twice, and an edge without the attribute as 1 where indexing raises KeyError)"
)
COMMON_NEIGHBOURS = (
    "common neighbours counted by hand: `nx.triangles(G)` (triangles per node), `nx.clustering(G)` or "
    "`nx.common_neighbor_centrality` compute them for the whole graph at once"
)


class PythonLoopOverGraph(Rule):
    """
    ## What it does
    Flags per-node aggregates of a NetworkX graph computed in Python, one node after
    another, in a loop or a comprehension, where NetworkX computes them for every node at
    once: degrees, weighted degrees, and common neighbours counted by hand for triangles or
    clustering. A lambda given as the `key` of `sorted`, `min`, `max` or `.sort()` runs once
    per item, like a loop (`sorted(G, key=lambda n: len(G[n]))`).

    ## Evidence
    Degrees: `len(list(G.neighbors(n)))`, `len(G[n])`, `len(G.adj[n])`,
    `len(list(G.successors(n)))`. Weighted degrees: `sum(G[n][m]["weight"] for m in G[n])`,
    `sum(d["weight"] for _, _, d in G.edges(n, data=True))`, or `total += d["weight"]` in a
    loop over one node's edges or neighbours. Common neighbours:
    `len(set(G[u]) & set(G[v]))`.

    Left alone: the same expressions outside a loop, on a node that is not the loop's
    (`len(G[hub])` in a loop over something else), on values that are not known graphs (a
    dict of lists named `G`; a parameter used only through methods that other graph
    libraries share, `G.neighbors(n)`, in a file that imports one of them or defines a class
    with that method), `G.degree(n)` per node (the library's own degree).

    ## Why is this bad?
    Each expression builds a list or a generator and runs a Python loop over one node's
    neighbours; over every node this is the whole adjacency structure walked edge by edge in
    the interpreter. `G.degree()`, `G.degree(weight=...)`, `nx.triangles` and
    `nx.clustering` compute every node's value in one call, which a backend such as
    nx-cugraph runs on the GPU for the whole graph. On the CPU NetworkX's own calls are
    Python loops over the nodes too, so the gain there is what the hand-written form adds:
    in the example below, the degrees of a random graph of 10,000 nodes and 40,000 edges
    take {before:10000} with a list of neighbours per node and {after:10000} with
    `G.degree()` ({speedup:10000}). `len(G[n])`, which builds no list, is about as fast as
    `G.degree()` on the CPU; weighted degrees and common neighbours summed by hand, which
    index every edge's data or build two sets per edge, gain somewhat more than degrees.

    ## Fix safety
    Display-only: the library's forms differ where the graph has self-loops (counted twice
    by `degree`), parallel edges (counted once each by `degree`, once in all by `G[n]`) or
    edges without the weight attribute (`degree(weight=...)` counts them as 1, where
    indexing raises `KeyError`); whether that matters is the author's to judge, and the
    finding's message names the difference.
    """

    code = "GPU603"
    libraries = GRAPH_TRIGGERS
    name = "python-loop-over-graph"
    tier = Tier.PREVIEW
    tier_reason = "Never-tuned code: no finding; tuned graph corpus: 5 of 6 useful (0 of 1 before); too few"
    message = "per-node aggregate computed in Python: compute it for every node at once"
    nodes = (ast.Call, ast.AugAssign)
    calls = frozenset()  # `len(...)` and `sum(...)`, called by name: no method call
    fix = Applicability.DISPLAY
    #: The library's forms differ on self-loops, parallel edges and missing weights, so
    #: the rewrite is described with the difference named, not written.
    suggestion = (
        "compute every node's value at once: `dict(G.degree())`, `dict(G.degree(weight='weight'))`, "
        "`nx.triangles(G)`, `nx.clustering(G)`"
    )

    flagged = (
        Example(
            source="""\
import networkx as nx


def degrees(G: nx.Graph) -> dict:
    return {n: len(list(G.neighbors(n))) for n in G}
""",
            idiom="""\
import networkx as nx


def degrees(G: nx.Graph) -> dict:
    # the same here: the graph has no self-loops and no parallel edges
    return dict(G.degree())
""",
            requires=("networkx",),
            setup="import networkx as nx\nG = nx.gnm_random_graph(N, 4 * N, seed=0)\n",
            call="degrees(G)",
        ),
        Example("""\
import networkx as nx

G = nx.read_weighted_edgelist("roads.txt")
strength = {}
for n in G.nodes:
    strength[n] = sum(G[n][m]["weight"] for m in G[n])
"""),
        Example("""\
import networkx as nx

G = nx.karate_club_graph()
shared = [len(set(G[u]) & set(G[v])) for u, v in G.edges]
"""),
        Example("""\
import networkx as nx

G = nx.karate_club_graph()
busy = [n for n in G if len(G[n]) > 5]
"""),
        Example("""\
import networkx as nx


def rank_by_neighbours(G):
    return sorted(G.nodes(), key=lambda n: len(list(G.neighbors(n))), reverse=True)
"""),
        Example("""\
import networkx as nx


def weighted_degree(G):
    result = {}
    for node in G.nodes():
        total = 0
        for _, _, data in G.edges(node, data=True):
            total += data["weight"]
        result[node] = total
    return result
"""),
    )
    ok = (
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
degrees = dict(G.degree())
hub = max(degrees, key=degrees.get)
""",
            reason="NetworkX's own degree view, aggregated once.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
hub_degree = len(G[0])
for n in G:
    print(n, hub_degree)
""",
            reason="A node that is not the loop's (`len(G[0])`), read before it.",
        ),
        Example(
            """\
import networkx as nx

G = {"a": ["b", "c"], "b": ["a"]}
sizes = {n: len(G[n]) for n in G}
""",
            reason="A dict of lists, not a graph.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for n in G:
    # one node's neighbours, looked at one by one: not an aggregate
    for m in G[n]:
        print(n, m)
""",
            reason="A loop over one node's neighbours that only prints them: no aggregate.",
        ),
        Example(
            """\
import networkx as nx
import rustworkx as rx


def degrees(graph):
    # `neighbors` is a rustworkx graph's method too: which library's graph is not known
    return {n: len(graph.neighbors(n)) for n in graph.node_indices()}
""",
            reason="A parameter used only through `neighbors`, a method other graph libraries share.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.AugAssign):
            self._accumulated(node, ctx)
            return
        assert isinstance(node, ast.Call)
        func = node.func
        if not isinstance(func, ast.Name) or func.id not in ("len", "sum"):
            return
        if len(node.args) != 1 or node.keywords or not ctx.env.is_builtin(func.id):
            return
        loop_names = _loop_names(ctx) | _sort_key_names(ctx)
        if not loop_names:
            return
        argument = node.args[0]
        if func.id == "len":
            view = _neighbours(_uncopied(argument), ctx)
            if view is not None and _reads(view[1]) & loop_names:
                ctx.report(node, DEGREE)
                return
            if _common_neighbours(argument, ctx, loop_names):
                ctx.report(node, COMMON_NEIGHBOURS)
        elif _weighted_degree(argument, ctx, loop_names):
            ctx.report(node, WEIGHTED_DEGREE)

    def _accumulated(self, node: ast.AugAssign, ctx: RuleContext) -> None:
        """`for _, _, d in G.edges(n, data=True): total += d["w"]` in a loop over nodes `n`:
        a weighted degree summed by hand, one edge at a time."""
        if not isinstance(node.op, ast.Add) or len(ctx.loops) < 2:
            return
        loop = ctx.loops[-1]
        if not isinstance(loop, ast.For) or loop.orelse or node not in loop.body:
            return
        one_at_a_time = ast.GeneratorExp(
            elt=node.value, generators=[ast.comprehension(target=loop.target, iter=loop.iter, ifs=[], is_async=0)]
        )
        outer = _names_bound_by(ctx.loops[:-1])
        if _weighted_degree(one_at_a_time, ctx, outer):
            ctx.report(node, WEIGHTED_DEGREE)


def _sort_key_names(ctx: RuleContext) -> set[str]:
    """The parameters of a lambda given as the `key` of `sorted`, `min`, `max` or a
    `.sort()`: it runs once per item, like a loop's body."""
    scope = ctx.scopes[-1] if ctx.scopes else None
    if not isinstance(scope, ast.Lambda):
        return set()
    keyword = ctx.parent(scope)
    call = ctx.parent(keyword) if isinstance(keyword, ast.keyword) and keyword.arg == "key" else None
    if not isinstance(call, ast.Call):
        return set()
    func = call.func
    sorts = (isinstance(func, ast.Name) and func.id in ("sorted", "min", "max") and ctx.env.is_builtin(func.id)) or (
        isinstance(func, ast.Attribute) and func.attr == "sort"
    )
    return {argument.arg for argument in scope.args.args} if sorts else set()


def _loop_names(ctx: RuleContext) -> set[str]:
    """Names the enclosing loops and comprehensions bind as their targets."""
    return _names_bound_by(ctx.loops)


def _names_bound_by(loops: list[ast.AST]) -> set[str]:
    names: set[str] = set()
    for loop in loops:
        target = getattr(loop, "target", None)
        if target is not None:
            names |= {sub.id for sub in ast.walk(target) if isinstance(sub, ast.Name)}
    return names


def _reads(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)}


def _uncopied(node: ast.expr) -> ast.expr:
    """`list(x)`, `set(x)` -> `x`."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _COPIES
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    return node


def _neighbours(node: ast.expr, ctx: RuleContext) -> tuple[ast.expr, ast.expr] | None:
    """(graph, node) for one node's neighbours: `G[n]`, `G.adj[n]`, `G.neighbors(n)`,
    `G.successors(n)`, `nx.neighbors(G, n)`, `G.edges(n)`."""
    if isinstance(node, ast.Subscript):
        owner = node.value
        if isinstance(owner, ast.Attribute) and owner.attr in ADJACENCY_VIEWS:
            owner = owner.value
        if is_graph(ctx.type_of(owner)) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
            return owner, node.slice
        return None
    if not isinstance(node, ast.Call) or len(node.args) < 1 or node.keywords:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and len(node.args) == 1:
        if (func.attr in NEIGHBOUR_METHODS or func.attr == "edges") and is_graph(ctx.type_of(func.value)):
            return func.value, node.args[0]
    if isinstance(func, (ast.Name, ast.Attribute)) and len(node.args) == 2:
        if function_name(ctx.qualname(func)) == "neighbors" and is_graph(ctx.type_of(node.args[0])):
            return node.args[0], node.args[1]
    return None


def _common_neighbours(node: ast.expr, ctx: RuleContext, loop_names: set[str]) -> bool:
    """`set(G[u]) & set(G[v])` (or `.intersection`) of two nodes' neighbours in one graph."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        left, right = node.left, node.right
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "intersection"
        and len(node.args) == 1
    ):
        left, right = node.func.value, node.args[0]
    else:
        return False
    first, second = _neighbours(_uncopied(left), ctx), _neighbours(_uncopied(right), ctx)
    return (
        first is not None
        and second is not None
        and same_reference(first[0], second[0])
        and bool((_reads(first[1]) | _reads(second[1])) & loop_names)
    )


def _weighted_degree(node: ast.expr, ctx: RuleContext, loop_names: set[str]) -> bool:
    """`sum(G[n][m]["w"] for m in G[n])`, `sum(d["w"] for _, _, d in G.edges(n, data=True))`,
    `sum(d["w"] for m, d in G[n].items())`, over a node `n` the enclosing loop binds."""
    if not isinstance(node, (ast.GeneratorExp, ast.ListComp)) or len(node.generators) != 1:
        return False
    generator = node.generators[0]
    if generator.ifs:
        return False
    iterable = generator.iter
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("items", "values")
        and not iterable.args
    ):
        iterable = iterable.func.value  # `G[n].items()`
    elif (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "edges"
        and len(iterable.args) == 1
        and any(k.arg == "data" for k in iterable.keywords)
        and is_graph(ctx.type_of(iterable.func.value))
    ):
        return bool(_reads(iterable.args[0]) & loop_names) and isinstance(node.elt, ast.Subscript)
    view = _neighbours(iterable, ctx)
    if view is None or not _reads(view[1]) & loop_names:
        return False
    element = node.elt
    if isinstance(element, ast.Subscript):
        inner = element.value
        if isinstance(inner, ast.Name):  # `d["w"]` of `G[n].items()`
            return True
        return (
            isinstance(inner, ast.Subscript)
            and isinstance(inner.value, ast.Subscript)
            and same_reference(inner.value.value, view[0])
        )
    return False
