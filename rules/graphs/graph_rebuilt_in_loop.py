"""GPU604 graph-rebuilt-in-loop."""

from __future__ import annotations

import ast

from gpulint.networkx_api import GRAPH_CLASSES, REBUILDERS, function_name
from gpulint.rule_api import GRAPH_TRIGGERS, Applicability, Example, Rule, RuleContext, Tier

from ._common import call_inputs, changed_names, innermost_loop, mutated_names, reads


class GraphRebuiltInLoop(Rule):
    """
    ## What it does
    Flags a graph built or converted inside a loop from inputs the loop does not change:
    `nx.from_pandas_edgelist(...)`, `nx.from_edgelist(...)`, `nx.Graph(edges)` (and the
    other graph classes given data), `nx.to_numpy_array(G)`, `nx.to_scipy_sparse_array(G)`,
    `nx.adjacency_matrix(G)`, `nx.laplacian_matrix(G)`, `nx.to_pandas_edgelist(G)`.

    ## Evidence
    The loop's own facts say what it changes: its targets, what its body binds, and what it
    changes in place (`edges.append(e)`, `G.add_edge(u, v)`, `df.loc[i] = row`,
    `nx.set_edge_attributes(G, ...)`). Left alone: an input the loop changes or rebinds, an
    empty graph made to be filled (`nx.Graph()`), and a graph or matrix the loop then
    changes in place (each iteration needs a fresh one:
    `H = nx.Graph(edges); H.remove_node(n)`).

    ## Why is this bad?
    Each call reads its whole input and builds a new graph or matrix, node by node and edge
    by edge in Python: the loop pays for the whole conversion on every iteration to get the
    same result. Built once before the loop, it is paid once (and, on a GPU backend, the
    graph is copied to the device once). In the example below, with 40,000 edges and 20
    queries, the loop takes {before:10000} rebuilding the graph every time and
    {after:10000} building it once (the measured speedups below).

    ## Fix safety
    Display-only: hoisting moves the call before the loop, so it also runs when the loop
    runs zero times, and the built object is then shared by every iteration (code that
    changes it needs `.copy()`).
    """

    code = "GPU604"
    libraries = GRAPH_TRIGGERS
    name = "graph-rebuilt-in-loop"
    tier = Tier.PREVIEW
    tier_reason = "No real-code finding (graph corpus, 8 more repos); 25 labelled near-misses silent"
    message = (
        "graph or matrix rebuilt on every iteration from inputs the loop does not change: build it once before the loop"
    )
    nodes = (ast.Call,)
    calls = REBUILDERS
    fix = Applicability.DISPLAY
    #: Where the built value can go depends on the code before the loop; the suggestion
    #: says what to move.
    suggestion = (
        "build it once before the loop and reuse it inside (`G = nx.from_pandas_edgelist(...)` above the loop); "
        "take `G.copy()` where an iteration must change its own"
    )

    flagged = (
        Example(
            source="""\
import networkx as nx
import pandas as pd


def strengths(edges: pd.DataFrame, nodes: list) -> list:
    totals = []
    for node in nodes:
        G = nx.from_pandas_edgelist(edges, "src", "dst", edge_attr="weight")
        totals.append(G.degree(node, weight="weight"))
    return totals
""",
            idiom="""\
import networkx as nx
import pandas as pd


def strengths(edges: pd.DataFrame, nodes: list) -> list:
    totals = []
    G = nx.from_pandas_edgelist(edges, "src", "dst", edge_attr="weight")  # once
    for node in nodes:
        totals.append(G.degree(node, weight="weight"))
    return totals
""",
            requires=("networkx",),
            setup=(
                "edges = pd.DataFrame({\n"
                '    "src": rng.integers(0, N + 1, size=4 * N),\n'
                '    "dst": rng.integers(0, N + 1, size=4 * N),\n'
                '    "weight": rng.random(4 * N).round(3),\n'
                "})\n"
                'nodes = edges["src"].head(20).tolist()\n'
            ),
            call="strengths(edges, nodes)",
        ),
        Example("""\
import networkx as nx

G = nx.karate_club_graph()
for step in range(100):
    A = nx.to_numpy_array(G)
    print(step, A.sum())
"""),
        Example("""\
import networkx as nx

edges = [(1, 2), (2, 3), (3, 1)]
results = [nx.pagerank(nx.Graph(edges), alpha=a) for a in (0.5, 0.85, 0.9)]
"""),
    )
    ok = (
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
A = nx.to_numpy_array(G)
for step in range(100):
    print(step, A.sum())
""",
            reason="A conversion made once, before the loop.",
        ),
        Example(
            """\
import networkx as nx

G = nx.karate_club_graph()
for u, v in list(G.edges)[:10]:
    G.remove_edge(u, v)
    A = nx.to_numpy_array(G)
""",
            reason="The loop changes the graph (`remove_edge`) before each conversion.",
        ),
        Example(
            """\
import networkx as nx

edges = [(1, 2), (2, 3), (3, 1)]
for n in (1, 2, 3):
    # each iteration removes a node from its own copy
    H = nx.Graph(edges)
    H.remove_node(n)
    print(nx.is_connected(H))
""",
            reason="A fresh graph each iteration that the loop then changes in place (`remove_node`).",
        ),
        Example(
            """\
import networkx as nx

graphs = []
for day, frame in frames.items():
    graphs.append(nx.from_pandas_edgelist(frame, "src", "dst"))
""",
            reason="Each iteration converts a different frame (the loop's target).",
        ),
        Example(
            """\
import networkx as nx

for batch in batches:
    G = nx.Graph()
    G.add_edges_from(batch)
""",
            reason="An empty graph made to be filled (`nx.Graph()`).",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            return
        name = function_name(ctx.qualname(node.func))
        loop = innermost_loop(ctx)
        if name not in REBUILDERS or loop is None or not call_inputs(node):
            return
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return
        if name in GRAPH_CLASSES and not node.args and not any(k.arg == "incoming_graph_data" for k in node.keywords):
            return  # an empty graph, made to be filled
        changed = changed_names(loop, ctx)
        if any(reads(value) & changed for value in call_inputs(node)) or reads(node.func) & changed:
            return
        built = _bound_to(node, ctx)
        if built is not None and built in mutated_names(loop, ctx):
            return  # each iteration changes its own copy
        ctx.report(node)


def _bound_to(call: ast.Call, ctx: RuleContext) -> str | None:
    """The name the current statement binds the call's result to (`G = nx.Graph(edges)`)."""
    statement = ctx.statement
    if isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1:
        target = statement.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    return None
