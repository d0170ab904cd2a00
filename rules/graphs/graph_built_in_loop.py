"""GPU601 graph-built-in-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    GRAPH_TRIGGERS,
    Applicability,
    Example,
    few_iterations,
    Rule,
    RuleContext,
    same_reference,
    Tier,
    walk_local,
)
from gpulint.networkx_api import BUILDERS, GRAPH_CLASSES, MULTIGRAPH_CLASSES, ONE_AT_A_TIME, function_name, is_graph
from gpulint.plans.graph_built_in_loop import EdgeLoop

#: Builtins that copy an iterable.
_COPIES = frozenset({"list", "tuple", "set", "frozenset", "sorted"})
#: Modules whose functions draw random numbers.
_RANDOM_MODULES = ("random.", "numpy.random.")
#: Expressions an edge's endpoints and attributes may be made of for the fix: no call can
#: run, nothing is bound, nothing else of the program is read.
_PLAIN = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.Tuple,
    ast.IfExp,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
)


class GraphBuiltInLoop(Rule):
    """
    ## What it does
    Flags `G.add_edge(...)` or `G.add_node(...)` on a NetworkX or cuGraph graph called once
    per item in a Python `for` loop (over `zip(...)`, a list, `range`, `iterrows()`,
    `itertuples()`, any iterable), reported at each such call. A loop that also does other
    work is flagged with the suggestion only.

    ## Evidence
    A loop over a copy of the graph's nodes or edges taken before it starts
    (`for n in list(G):`, `for n in G.copy():`) is flagged too: what it adds does not depend
    on what it has added.

    Left alone: loops whose edges depend on the graph built so far (the loop, or a loop
    around it, reads the graph other than to add to it:
    `if not nx.has_path(G, u, v): G.add_edge(u, v)`, `if u in G`, `G.degree(u)`,
    preferential attachment), loops over the graph itself or nested in one
    (`for n in G.nodes: for i in range(k): G.add_edge(...)`), loops that rebind the graph,
    `while` loops, toy sizes (every loop around the call runs only a few times:
    `for u, v in [(1, 2), (2, 3)]`, `range(10)`), and additions that run only where a random
    draw comes out (`if rng.random() < p: G.add_edge(u, v)`, or an item of
    `np.random.binomial(...)`): a random graph generated pair by pair costs the draw for
    every pair, not the few additions.

    ## Why is this bad?
    Each `add_edge` is a Python method call that looks both endpoints up, creates missing
    nodes and updates the edge's attribute dictionary. `nx.from_pandas_edgelist(df, source,
    target, edge_attr=...)` and `G.add_edges_from(...)` hand the whole edge list over in one
    call, which a NetworkX backend can take over (nx-cugraph implements
    `from_pandas_edgelist`), as cuGraph's `Graph.from_cudf_edgelist` builds the graph from
    columns on the GPU. On the CPU, NetworkX's bulk calls are Python loops themselves, so
    the CPU gain is what the loop leaves behind: in the example below, an edge table of
    40,000 rows read with `iterrows()` takes {before:10000}, and {after:10000} with
    `from_pandas_edgelist` ({speedup:10000}, nearly all of it the Series `iterrows()` builds
    per row, which GPU102 flags too). A loop over `itertuples()`, `zip(...)` or a list costs
    about what `add_edges_from` does on the CPU: there the gain is the backend's. From
    10,000 to 100,000 nodes the build grows faster than the edge count ({after:10000} to
    {after:100000}): each edge touches two adjacency dictionaries at random places of a
    graph that no longer fits in the CPU's caches.

    ## Fix safety
    Safe, for a loop whose body is exactly `G.add_edge(u, v[, name=value...])`, a plain
    `for` (no `else:`) over `zip(...)`, a list or tuple display or a name, whose endpoints and
    attributes are made only of the loop's targets and literals (no call), and whose targets
    are read nowhere else in the function: it becomes
    `G.add_edges_from((u, v, {"name": value}) for ... in ...)`. NetworkX adds the items in
    the same order, creating nodes in the same order, updating attribute dictionaries the same
    way, giving a multigraph's parallel edges the same keys (`key=` becomes the edge key of a
    graph made as a `MultiGraph`/`MultiDiGraph`, and stays an attribute of a `Graph`/`DiGraph`;
    of a graph of unknown class it is not rewritten), and raising the same errors at the same
    item (`None` as a node). Only the backend conversion cache of the graph is cleared once at
    the end instead of after every edge. Other loops get the suggestion only.
    """

    code = "GPU601"
    libraries = GRAPH_TRIGGERS
    name = "graph-built-in-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 17 of 22 findings useful, below the bar: 17 of 17 on the graph checks, 0 of 5 in "
        "tier sample 4b (one finding per call of a loop, a hand-written graph generator, work per node that "
        "dominates)"
    )
    message = (
        "graph built one edge or node at a time in a Python loop: add them in one call "
        "(`G.add_edges_from(...)`, `nx.from_pandas_edgelist(df, ...)`)"
    )
    nodes = (ast.Call,)
    calls = ONE_AT_A_TIME
    fix = Applicability.SAFE
    #: A loop that does more than add edges, or whose items are built by calls, is rewritten
    #: by hand: the suggestion says into what.
    suggestion = (
        "collect the edges and add them in one call: `G.add_edges_from((u, v, {'weight': w}) for ...)`, "
        "`G.add_nodes_from(...)`, or build the graph from the DataFrame with "
        "`nx.from_pandas_edgelist(df, source, target, edge_attr=...)`"
    )

    flagged = (
        Example(
            source="""\
import networkx as nx
import pandas as pd


def load_graph(edges: pd.DataFrame) -> nx.DiGraph:
    G = nx.DiGraph()
    for _, row in edges.iterrows():
        G.add_edge(row["source"], row["target"], count=row["count"])
    return G
""",
            idiom="""\
import networkx as nx
import pandas as pd


def load_graph(edges: pd.DataFrame) -> nx.DiGraph:
    return nx.from_pandas_edgelist(edges, "source", "target", edge_attr="count", create_using=nx.DiGraph)
""",
            requires=("networkx",),
            # an edge table: repeated rows (the last count wins) and self-loops included
            setup=(
                "edges = pd.DataFrame({\n"
                "    'source': rng.integers(0, N + 1, size=4 * N),\n"
                "    'target': rng.integers(0, N + 1, size=4 * N),\n"
                "    'count': rng.integers(1, 10, size=4 * N),\n"
                "})\n"
            ),
            # the adjacency compares equal node by node, edge by edge, attribute by attribute
            call="load_graph(edges).adj",
        ),
        Example(
            source="""\
import networkx as nx


def build_graph(sources: list, targets: list, weights: list) -> nx.Graph:
    graph = nx.Graph()
    for u, v, w in zip(sources, targets, weights):
        graph.add_edge(u, v, weight=w)
    return graph
""",
            fixed="""\
import networkx as nx


def build_graph(sources: list, targets: list, weights: list) -> nx.Graph:
    graph = nx.Graph()
    graph.add_edges_from((u, v, {"weight": w}) for u, v, w in zip(sources, targets, weights))
    return graph
""",
            requires=("networkx",),
            setup=(
                "sources = rng.integers(0, N + 1, size=4 * N).tolist()\n"
                "targets = rng.integers(0, N + 1, size=4 * N).tolist()\n"
                "weights = rng.random(4 * N).round(3).tolist()\n"
            ),
            # the adjacency compares equal node by node, edge by edge, attribute by attribute
            call="build_graph(sources, targets, weights).adj",
        ),
        Example(
            source="""\
import networkx as nx
import pandas as pd

edges = pd.read_csv("edges.csv")
G = nx.DiGraph()
for row in edges.itertuples(index=False):
    G.add_edge(row.src, row.dst, weight=row.weight)
"""
        ),
        Example(
            source="""\
import networkx as nx


def build_multigraph(triples: list) -> nx.MultiGraph:
    G = nx.MultiGraph()
    for u, v, k in triples:
        G.add_edge(u, v, key=k)
    return G
""",
            fixed="""\
import networkx as nx


def build_multigraph(triples: list) -> nx.MultiGraph:
    G = nx.MultiGraph()
    G.add_edges_from((u, v, k, {}) for u, v, k in triples)
    return G
""",
            requires=("networkx",),
            setup='triples = [(1, 2, "a"), (1, 2, "b"), (2, 3, "a")]\n',
            call="list(build_multigraph(triples).edges(keys=True, data=True))",
        ),
        Example(
            source="""\
import networkx as nx

G0 = nx.read_edgelist("ego.edges", nodetype=int)
for node in list(G0):
    G0.add_edge(0, node)
"""
        ),
        Example(
            source="""\
import networkx as nx

G = nx.Graph()
for user in range(1000):
    G.add_node(user, group=user % 7)
"""
        ),
    )
    ok = (
        Example(
            """\
import networkx as nx

G = nx.Graph()
for u, v in pairs:
    # each edge depends on the graph built so far
    if not nx.has_path(G, u, v):
        G.add_edge(u, v)
""",
            reason="Each edge depends on the graph built so far (`nx.has_path`).",
        ),
        Example(
            """\
import networkx as nx

G = nx.Graph()
G.add_edges_from(zip(sources, targets))
""",
            reason="Edges added in one call (`add_edges_from`).",
        ),
        Example(
            """\
import networkx as nx

G = nx.Graph()
for u, v in pairs:
    if u not in G:
        G.add_node(u, first=v)
    G.add_edge(u, v)
""",
            reason="The loop reads the graph it builds (`if u not in G`).",
        ),
        Example(
            """\
import networkx as nx


class Graph:
    def add_edge(self, u, v):
        pass


G = Graph()
for u, v in [(1, 2), (2, 3)]:
    G.add_edge(u, v)
""",
            reason="An `add_edge` method of a class of the file's own, not a NetworkX or cuGraph graph's.",
        ),
        Example(
            """\
import networkx as nx

G = []
for u, v in [(1, 2), (2, 3)]:
    G.append((u, v))
""",
            reason="A list, not a graph.",
        ),
        Example(
            """\
import networkx as nx

G = nx.cycle_graph(n)
for node in G.nodes:
    # nested in a loop over the graph itself
    for step in range(1, k // 2 + 1):
        G.add_edge(node, (node + step) % n)
""",
            reason="A loop over the graph's own nodes, which the additions change.",
        ),
        Example(
            """\
import networkx as nx
import numpy as np

rng = np.random.default_rng(0)
G = nx.empty_graph(n)
for u in range(n):
    for v in range(u + 1, n):
        # the cost is the draw for every pair, not the few additions
        if rng.random() < p:
            G.add_edge(u, v)
""",
            reason="A random draw for every pair: the cost is the draw, not the few additions.",
        ),
        Example(
            """\
import networkx as nx

G = nx.Graph()
# a toy graph: three edges
for u, v in [(1, 2), (2, 3), (3, 1)]:
    G.add_edge(u, v)
""",
            reason="A toy graph of three literal edges.",
        ),
        Example(
            """\
import networkx as nx

graphs = []
for edges in batches:
    G = nx.Graph()
    G.add_edges_from(edges)
    graphs.append(G)
""",
            reason="A fresh graph per iteration, built with one call.",
        ),
        Example(
            """\
import networkx as nx

G = nx.Graph()
queue = [(0, 1)]
while queue:
    u, v = queue.pop()
    G.add_edge(u, v)
""",
            reason="A `while` loop: what it adds may depend on what it has added.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in ONE_AT_A_TIME or not ctx.loops:
            return
        loop = ctx.loops[-1]
        graph = func.value
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or not _is_reference(graph):
            return
        if not is_graph(ctx.type_of(graph)) or _root(graph) in ctx.loop_effects(loop).writes:
            return
        if not all(_only_adds(outer, graph) for outer in ctx.loops):
            return  # what is added may depend on the graph so far
        if all(few_iterations(outer, ctx) for outer in ctx.loops) or _drawn(node, loop, ctx):
            return
        key = _key_form(node, graph, ctx)
        if isinstance(loop, ast.For) and _fixable(loop, node, ctx) and key is not None:
            ctx.report(node, context=EdgeLoop(applicability=Applicability.SAFE, loop=loop, call=node, key=key))
        else:
            ctx.report(node, context=EdgeLoop(applicability=Applicability.DISPLAY, loop=loop, call=node, key=""))


def _is_reference(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _root(node: ast.AST) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    assert isinstance(node, ast.Name)
    return node.id


def _mentions(node: ast.AST, graph: ast.expr) -> bool:
    return any(same_reference(sub, graph) for sub in ast.walk(node))


def _only_adds(loop: ast.AST, graph: ast.expr) -> bool:
    """`loop` uses the graph only to add to it: its iterable reads the graph, if at all,
    through a copy taken before the first iteration (`list(G)`, `G.copy()`), and its body
    only calls the graph's builders."""
    if isinstance(loop, ast.While):
        return not _mentions(loop.test, graph) and _additions(loop, graph) is not None
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return not _mentions(loop, graph)
    copied = {id(sub) for part in ast.walk(loop.iter) if _snapshot(part, graph) for sub in ast.walk(part)}
    if any(same_reference(sub, graph) and id(sub) not in copied for sub in ast.walk(loop.iter)):
        return False
    return _additions(loop, graph) is not None


def _snapshot(node: ast.AST, graph: ast.expr) -> bool:
    """`G.copy()`, `list(G)`, `list(G.nodes())`, `sorted(G.edges)`: the graph's nodes or
    edges copied once, so that adding to the graph changes nothing of what is iterated."""
    if _copy_of(node, graph):
        return True
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _COPIES
        and len(node.args) == 1
    ):
        return False
    inner = node.args[0]
    if _copy_of(inner, graph):
        return True
    if isinstance(inner, ast.Call):
        inner = inner.func
    if isinstance(inner, ast.Attribute) and inner.attr in ("nodes", "edges"):
        inner = inner.value
    return same_reference(inner, graph)


def _copy_of(node: ast.AST, graph: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "copy"
        and same_reference(node.func.value, graph)
    )


def _drawn(call: ast.Call, loop: ast.AST, ctx: RuleContext) -> bool:
    """`call` runs only where a random draw of the iteration comes out (`if rng.random() < p:`,
    `if trials[j] == 1:` for `trials = np.random.binomial(...)`): a random graph generated
    pair by pair, whose cost is the draw for every pair, not the few additions."""
    node: ast.AST | None = ctx.parent(call)
    while node is not None and node is not loop:
        if isinstance(node, (ast.If, ast.IfExp)) and any(_random(sub, ctx) for sub in ast.walk(node.test)):
            return True
        node = ctx.parent(node)
    return False


def _random(node: ast.AST, ctx: RuleContext) -> bool:
    """A random draw: a call of `random` or `numpy.random`, a NumPy generator's method, or a
    name bound to one."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        made = ctx.reaching_assignment(node.id)
        return made is not None and made.value is not None and _random_call(made.value, ctx)
    return _random_call(node, ctx)


def _random_call(node: ast.AST, ctx: RuleContext) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        return False
    name = ctx.qualname(node.func) or ""
    if name.startswith(_RANDOM_MODULES):
        return True
    if isinstance(node.func, ast.Attribute):
        receiver = ctx.type_of(node.func.value)
        return receiver is not None and receiver.kind == "generator"
    return False


def _additions(loop: ast.For | ast.AsyncFor, graph: ast.expr) -> list[ast.Call] | None:
    """The calls that add to `graph` in the loop, in source order; None when the loop
    uses the graph any other way (what it adds may depend on what is there)."""
    allowed: set[int] = set()
    added: list[ast.Call] = []
    body = list(walk_local(loop.body))
    for sub in body:
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr in BUILDERS
            and same_reference(sub.func.value, graph)
        ):
            allowed.add(id(sub.func.value))
            if sub.func.attr in ONE_AT_A_TIME:
                added.append(sub)
    for sub in body:
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and _mentions(sub, graph):
            return None
        if same_reference(sub, graph) and id(sub) not in allowed:
            return None
    added.sort(key=lambda call: (call.lineno, call.col_offset))
    return added or None


def _key_form(call: ast.Call, graph: ast.expr, ctx: RuleContext) -> str | None:
    """How `key=` goes into an edge tuple (see `EdgeLoop.key`); None when the graph's
    class is not known, so it is not known whether `key` is an edge key or an attribute."""
    if not any(keyword.arg == "key" for keyword in call.keywords):
        return ""
    made = ctx.reaching_assignment(graph.id) if isinstance(graph, ast.Name) else None
    value = made.value if made is not None else None
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return None
    name = function_name(ctx.qualname(value.func))
    if name in MULTIGRAPH_CLASSES:
        return "key"
    return "attribute" if name in GRAPH_CLASSES else None


def _fixable(loop: ast.For, call: ast.Call, ctx: RuleContext) -> bool:
    """The loop only adds one edge per item, from its targets, over an iterable whose
    iteration runs no code of the program's, and its targets are not read after it."""
    if loop.orelse or len(loop.body) != 1 or not isinstance(loop.body[0], ast.Expr) or loop.body[0].value is not call:
        return False
    if (
        not isinstance(call.func, ast.Attribute)
        or call.func.attr != "add_edge"
        or not isinstance(call.func.value, ast.Name)
    ):
        return False
    if len(call.args) != 2 or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    if any(keyword.arg is None for keyword in call.keywords):
        return False
    targets = _target_names(loop.target)
    if targets is None or not _plain_iterable(loop.iter, ctx):
        return False
    for value in [*call.args, *(keyword.value for keyword in call.keywords)]:
        for sub in ast.walk(value):
            if not isinstance(sub, _PLAIN) or isinstance(sub, ast.Name) and sub.id not in targets:
                return False
    return all(_only_bound_by(loop, name, ctx) for name in targets)


def _target_names(target: ast.expr) -> set[str] | None:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        names: set[str] = set()
        for element in target.elts:
            inner = _target_names(element)
            if inner is None:
                return None
            names |= inner
        return names
    return None


def _plain_iterable(iterable: ast.expr, ctx: RuleContext) -> bool:
    """`zip(...)` of values that run no call, a list or tuple display, or a name."""
    if isinstance(iterable, ast.Name):
        return True
    if isinstance(iterable, (ast.List, ast.Tuple)):
        return not any(isinstance(sub, (ast.Call, ast.NamedExpr, ast.Starred)) for sub in ast.walk(iterable))
    return (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "zip"
        and ctx.env.is_builtin("zip")
        and not any(
            isinstance(sub, (ast.Call, ast.NamedExpr, ast.Lambda, ast.Await))
            for argument in [*iterable.args, *(keyword.value for keyword in iterable.keywords)]
            for sub in ast.walk(argument)
        )
    )


def _only_bound_by(loop: ast.For, name: str, ctx: RuleContext) -> bool:
    """`name` is bound by this loop alone in its scope and read nowhere outside it: a
    generator's own variable can take its place."""
    if ctx.statement_scope is not ctx.scope or ctx.seen_elsewhere(name):
        return False
    if ctx.bindings(name) != [loop]:
        return False
    uses = ctx.semantic.uses(ctx.scope)
    if uses.star_import or name in uses.free_in:
        return False
    start, end = (loop.lineno, loop.col_offset), (loop.end_lineno, loop.end_col_offset)
    return all(start <= (read.lineno, read.col_offset) < end for read in uses.loads.get(name, []))  # type: ignore[operator]
