"""`gpulint readiness` on NetworkX code: which calls nx-cugraph runs on the GPU, which fall back
to NetworkX (with nx-cugraph's file and line), what is not counted, `--library networkx` and
the JSON report. The expected facts are read from nx-cugraph 26.04.00's sources."""

from __future__ import annotations

import json
import shutil
from textwrap import dedent

import jsonschema
import pytest
from gpulint import readiness_tables as tables
from gpulint.output.readiness_report import SCHEMA
from gpulint.readiness import FALLBACK, GPU, NX, UNDECIDED, Operation, analyse_source

from .conftest import write
from .test_readiness_tables import _git

#: nx-cugraph's `_can_run` of betweenness_centrality: `return weight is None`.
BETWEENNESS_CAN_RUN = "nx_cugraph/algorithms/centrality/betweenness.py:58"
#: nx-cugraph's `_can_run` of pagerank: `return dangling is None`.
PAGERANK_CAN_RUN = "nx_cugraph/algorithms/link_analysis/pagerank_alg.py:102"
#: nx-cugraph's `_can_run` of katz_centrality: `return normalized`.
KATZ_CAN_RUN = "nx_cugraph/algorithms/centrality/katz.py:90"

SCRIPT = """\
import networkx as nx

G = nx.karate_club_graph()
ranks = nx.pagerank(G)
central = nx.betweenness_centrality(G, k=10)
close = nx.closeness_centrality(G)
"""


def ops(code: str) -> dict[str, Operation]:
    """The NetworkX calls the report counts, by their code as written."""
    return {op.code: op for op in analyse_source(dedent(code), "g.py").operations if op.library == NX}


def test_pagerank_and_sampled_betweenness_run_on_the_gpu_and_an_unimplemented_algorithm_falls_back():
    found = {op.code: op for op in analyse_source(SCRIPT, "g.py").operations}
    ranks, central, close = (
        found["nx.pagerank(G)"],
        found["nx.betweenness_centrality(G, k=10)"],
        found["nx.closeness_centrality(G)"],
    )
    assert (ranks.verdict, ranks.line, ranks.what, ranks.reasons) == (GPU, 4, "networkx.pagerank", ())
    # nx-cugraph samples `k` source nodes itself; only `weight` makes its `_can_run` say no
    assert (central.verdict, central.line, central.reasons) == (GPU, 5, ())
    assert (close.verdict, close.line) == (FALLBACK, 6)
    assert [r.text for r in close.reasons] == ["nx-cugraph does not implement `closeness_centrality`"]
    assert {op.library for op in found.values()} == {NX}


def test_a_parameter_nx_cugraph_declines_falls_back_with_its_source_line():
    found = ops("""
        import networkx as nx
        G = nx.Graph()
        a = nx.betweenness_centrality(G, k=10, weight="w")
        b = nx.pagerank(G, dangling={1: 1.0})
        c = nx.katz_centrality(G, normalized=False)
        d = nx.katz_centrality(G)
        e = nx.betweenness_centrality(G, weight=None)
    """)
    assert [r.source for r in found['nx.betweenness_centrality(G, k=10, weight="w")'].reasons] == [BETWEENNESS_CAN_RUN]
    assert [r.source for r in found["nx.pagerank(G, dangling={1: 1.0})"].reasons] == [PAGERANK_CAN_RUN]
    assert [r.source for r in found["nx.katz_centrality(G, normalized=False)"].reasons] == [KATZ_CAN_RUN]
    assert {code: op.verdict for code, op in found.items()} == {
        'nx.betweenness_centrality(G, k=10, weight="w")': FALLBACK,
        "nx.pagerank(G, dangling={1: 1.0})": FALLBACK,
        "nx.katz_centrality(G, normalized=False)": FALLBACK,
        "nx.katz_centrality(G)": GPU,
        "nx.betweenness_centrality(G, weight=None)": GPU,
    }


def test_a_non_literal_argument_is_undecided_and_a_graph_test_is_a_caveat():
    found = ops("""
        import networkx as nx
        def rank(G, w):
            a = nx.betweenness_centrality(G, weight=w)
            b = nx.shortest_path(G, 1, 2, weight=lambda u, v, d: 1)
            c = nx.shortest_path(G, 1, 2, weight="cost")
            return a, b, c
    """)
    assert found["nx.betweenness_centrality(G, weight=w)"].verdict == UNDECIDED
    assert found["nx.shortest_path(G, 1, 2, weight=lambda u, v, d: 1)"].verdict == FALLBACK
    cost = found['nx.shortest_path(G, 1, 2, weight="cost")']
    # nx-cugraph refuses negative weights, a test on the graph no static reading decides
    assert cost.verdict == GPU
    assert any("is_negatively_weighted" in c.text for c in cost.caveats)


def test_import_forms_resolve_to_networkx_functions():
    found = ops("""
        import networkx
        import networkx as nx
        import networkx.algorithms.bipartite as bipartite
        from networkx import pagerank
        from networkx.algorithms import betweenness_centrality as bc
        from networkx.algorithms.link_analysis.pagerank_alg import pagerank as pr
        G = nx.Graph()
        a = pagerank(G)
        b = bc(G)
        c = pr(G)
        d = networkx.pagerank(G)
        e = bipartite.betweenness_centrality(G, [1])
        f = nx.bipartite.closeness_centrality(G, [1])
    """)
    assert {code: (op.what, op.verdict) for code, op in found.items()} == {
        "pagerank(G)": ("networkx.pagerank", GPU),
        "bc(G)": ("networkx.algorithms.betweenness_centrality", GPU),
        "pr(G)": ("networkx.algorithms.link_analysis.pagerank_alg.pagerank", GPU),
        "networkx.pagerank(G)": ("networkx.pagerank", GPU),
        # dispatched as bipartite_betweenness_centrality, which nx-cugraph implements
        "bipartite.betweenness_centrality(G, [1])": ("networkx.algorithms.bipartite.betweenness_centrality", GPU),
        "nx.bipartite.closeness_centrality(G, [1])": ("networkx.bipartite.closeness_centrality", FALLBACK),
    }


def test_graph_classes_methods_undispatched_functions_and_other_modules_are_not_counted():
    found = ops("""
        import networkx as nx
        from mylib import pagerank
        G = nx.Graph()
        D = nx.DiGraph(G)
        G.add_edge(1, 2)
        G.degree(1)
        nx.draw(G)
        pagerank(G)
        def betweenness_centrality(G):
            return {}
        betweenness_centrality(G)
    """)
    assert found == {}


def test_backend_keyword_and_a_keyword_nx_cugraph_lacks():
    found = ops("""
        import networkx as nx
        G = nx.Graph()
        a = nx.pagerank(G, backend="networkx")
        b = nx.pagerank(G, backend="cugraph")
        c = nx.pagerank(G, dangling={1: 1.0}, backend="cugraph")
        d = nx.pagerank(G, tolerance=1e-3)
        e = nx.pagerank(G, backend=chosen)
    """)
    assert found["nx.pagerank(G, backend=chosen)"].verdict == UNDECIDED
    assert found['nx.pagerank(G, backend="networkx")'].verdict == FALLBACK
    assert found['nx.pagerank(G, backend="cugraph")'].verdict == GPU
    raised = found['nx.pagerank(G, dangling={1: 1.0}, backend="cugraph")']
    assert raised.verdict == FALLBACK and "raises NotImplementedError" in raised.reasons[-1].text
    assert found["nx.pagerank(G, tolerance=1e-3)"].verdict == FALLBACK


def test_should_run_declining_every_networkx_graph_is_undecided():
    # degree_centrality's `_should_run` returns "Fast algorithm; not worth converting."
    [op] = ops("import networkx as nx\nnx.degree_centrality(nx.Graph())\n").values()
    assert op.verdict == UNDECIDED
    assert op.reasons[0].source == "nx_cugraph/algorithms/centrality/degree_alg.py:21"


def test_table_lookups():
    assert tables.nx_dispatch_name("networkx.pagerank") == "pagerank"
    assert tables.nx_dispatch_name("networkx.bipartite.betweenness_centrality") == "bipartite_betweenness_centrality"
    assert tables.nx_dispatch_name("networkx.Graph") is None
    assert tables.nx_dispatch_name("networkx.draw") is None
    pagerank = tables.nx_function("pagerank")
    assert pagerank is not None
    assert (pagerank.path, pagerank.line) == ("nx_cugraph/algorithms/link_analysis/pagerank_alg.py", 25)
    assert tables.nx_function("closeness_centrality") is None
    assert {"pagerank", "betweenness_centrality", "louvain_communities"} <= tables.nx_functions()


def test_library_networkx_and_json_shape(project, cli):
    write(project / "g.py", SCRIPT + "import pandas as pd\npd.read_csv('x.csv')\n")
    data = json.loads(cli("readiness", "g.py", "--library", "networkx", "--output-format", "json").stdout)
    jsonschema.Draft7Validator(SCHEMA).validate(data)
    operations = data["files"][0]["operations"]
    assert {op["library"] for op in operations} == {"networkx"}
    assert [(op["what"], op["verdict"], op["line"], op["col"]) for op in operations] == [
        ("networkx.karate_club_graph", GPU, 3, 5),
        ("networkx.pagerank", GPU, 4, 9),
        ("networkx.betweenness_centrality", GPU, 5, 11),
        ("networkx.closeness_centrality", FALLBACK, 6, 9),
    ]
    assert data["summary"]["networkx"] == {
        "total": 4,
        "gpu": 3,
        "fallback": 1,
        "undecided": 0,
        "cpu_in_cudf": 0,
        "breaks_pandas3": 0,
        "cpu_by_design": 0,
        "share": 75.0,
    }
    assert data["summary"]["pandas"]["total"] == 0
    assert data["tables"]["nx-cugraph"]["version"] == "26.04.00"
    others = json.loads(cli("readiness", "g.py", "--library", "cudf", "--output-format", "json").stdout)
    assert {op["library"] for op in others["files"][0]["operations"]} == {"cudf"}


def test_text_and_markdown_name_networkx_in_the_summary(project, cli):
    write(project / "g.py", SCRIPT)
    text = cli("readiness", "g.py").lines
    assert "3 of 4 NetworkX function calls run on the GPU under nx-cugraph; 1 falls back." in text
    assert any(line.startswith("  1 x `networkx.closeness_centrality` (fallback)") for line in text)
    markdown = cli("readiness", "g.py", "--output-format", "markdown").lines
    assert any(line.startswith("- 3 of 4 NetworkX function calls") for line in markdown)
    assert any(line.startswith("| `g.py:6:9` |") and "fallback" in line for line in markdown)
    assert any("nx-cugraph 26.04.00" in line for line in markdown)


# -- the extractor on a small nx-cugraph-shaped tree -------------------------------------------------

RANK = '''\
from nx_cugraph import _nxver
from nx_cugraph.utils import networkx_algorithm, not_implemented_for

_IS_OLD = _nxver < (3, 2)


@networkx_algorithm(version_added="1.0", is_incomplete=True)
def pagerank(G, alpha=0.85, weight="weight", dangling=None):
    """`dangling` is not supported."""
    if dangling is not None and _IS_OLD:
        raise NotImplementedError("old NetworkX")
    return {}


@pagerank._can_run
def _(G, alpha=0.85, weight="weight", dangling=None):
    return dangling is None and not G.is_directed()


@networkx_algorithm(version_added="1.0")
def degree_centrality(G):
    return {}


@degree_centrality._should_run
def _(G):
    return "Fast algorithm; not worth converting."


if _nxver < (3, 4):

    @networkx_algorithm(version_added="1.0")
    def bfs_edges(G, source, sort_neighbors=None):
        return []

else:

    @networkx_algorithm(version_added="1.0")
    def bfs_edges(G, source, depth_limit=None):
        if depth_limit is not None:
            raise NotImplementedError
        return []


_decorator = networkx_algorithm(version_added="1.0", name="louvain_communities")


def _louvain(G, seed=None):
    return []


louvain_communities = not_implemented_for("directed")(_decorator(_louvain))


@louvain_communities._can_run
def _(G, seed=None):
    if seed is not None:
        return "seed is not supported"
    return True


@networkx_algorithm(version_added="1.0", create_using_arg=1, fallback=True)
def path_graph(n, create_using=None):
    return None
'''
DECORATORS = (
    "class networkx_algorithm:\n    def _check_create_using_can_run(self, *args, **kwargs):\n        return True\n"
)


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_extractor_reads_a_tagged_commit_of_a_bare_repository(tmp_path):
    from benchmarks import readiness_tables_nx as extractor

    tree = tmp_path / "nx-cugraph"
    for relative, text in {
        "VERSION": "1.0.0\n",
        "nx_cugraph/__init__.py": "",
        "nx_cugraph/utils/decorators.py": DECORATORS,
        "nx_cugraph/algorithms/rank.py": RANK,
        "nx_cugraph/tests/test_rank.py": "@networkx_algorithm(version_added='1.0')\ndef tested(G):\n    pass\n",
    }.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_text(text, encoding="utf-8")
    _git("init", "-q", cwd=tree)
    _git("add", ".", cwd=tree)
    _git("commit", "-q", "-m", "one", cwd=tree)
    _git("tag", "v1.0", cwd=tree)
    (tree / "VERSION").write_text("2.0.0\n", encoding="utf-8")
    _git("commit", "-q", "-am", "two", cwd=tree)
    _git("clone", "-q", "--bare", str(tree), str(tmp_path / "bare.git"), cwd=tmp_path)
    output = tmp_path / "out"
    assert extractor.main(["--nx-cugraph", str(tmp_path / "bare.git"), "--ref", "v1.0", "--output", str(output)]) == 0

    table = json.loads((output / "nx_cugraph.json").read_text(encoding="utf-8"))
    assert table["provenance"]["version"] == "1.0.0" and table["provenance"]["ref"] == "v1.0"
    assert set(table["functions"]) == {
        "bfs_edges",
        "degree_centrality",
        "louvain_communities",
        "pagerank",
        "path_graph",
    }
    path = "nx_cugraph/algorithms/rank.py"

    def conditions(name: str) -> list[tuple[str, str, int, bool, bool]]:
        return [
            (c["condition"], c["kind"], c["line"], c["predicate"] is not None, c["data"])
            for c in table["functions"][name]["conditions"]
        ]

    # `not (dangling is None and not G.is_directed())`: two alternatives; the raise needs NetworkX < 3.2
    can_run = _line(RANK, "return dangling is None")
    assert conditions("pagerank") == [
        ("dangling is not None", "can_run", can_run, True, False),
        ("G.is_directed()", "can_run", can_run, False, True),
    ]
    assert conditions("degree_centrality") == [("always", "should_run", _line(RANK, "Fast algorithm"), False, False)]
    # the branch for NetworkX >= 3.4 (the NetworkX installed here is 3.x, newer than 3.4)
    assert [p["name"] for p in table["functions"]["bfs_edges"]["params"]] == ["G", "source", "depth_limit"]
    assert conditions("bfs_edges") == [
        (
            "depth_limit is not None",
            "not_implemented",
            _line(RANK, "            raise NotImplementedError"),
            True,
            False,
        )
    ]
    louvain = table["functions"]["louvain_communities"]
    assert louvain["function"] == "_louvain"
    assert conditions("louvain_communities") == [
        ("seed is not None", "can_run", _line(RANK, "seed is not supported"), True, False)
    ]
    assert [(c["kind"], c["path"]) for c in table["functions"]["path_graph"]["conditions"]] == [
        ("can_run", "nx_cugraph/utils/decorators.py"),
        ("errors", path),
    ]
    assert table["functions"]["pagerank"]["notes"] == "`dangling` is not supported."
    assert table["networkx"]["paths"]["networkx.pagerank"] == "pagerank"

    support = tables.nx_function("pagerank", str(output))
    assert support is not None and (support.path, support.line) == (path, _line(RANK, "def pagerank"))
    [declined] = [c for c in support.conditions if not c.data]
    assert declined.holds({"dangling": {1: 1.0}}) is True
    assert declined.holds({"dangling": None}) is False


def test_every_function_nx_cugraph_implements_is_one_networkx_dispatches():
    dispatched = set(tables.load_table(tables.NX_TABLE)["networkx"]["paths"].values())
    constructors = {"graph__new__", "digraph__new__", "multigraph__new__", "multidigraph__new__"}
    assert tables.nx_functions() - dispatched == constructors
