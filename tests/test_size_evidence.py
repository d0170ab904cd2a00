"""Size evidence (`gpulint.size_evidence`): what is known to hold only a few rows or
elements, and which loops are known to run only a few times.

A throwaway rule answers `known_small` for the argument of every `probe(...)` call, and
`few_iterations` for the innermost loop around every `probe_loop()` call; it is passed to
`analyze` directly and never stays in the registry. Each kind of evidence has a case it
accepts and near-misses it must refuse: unknown is never small.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from gpulint import registry
from gpulint.engine import analyze
from gpulint.rule_api import Rule, RuleContext
from gpulint.size_evidence import SMALL, few_iterations, known_small
from gpulint.source import Source

PROBE_CODE = "GPU996"


def _make_size_probe() -> type[Rule]:
    assert PROBE_CODE not in registry._REGISTRY, "probe code clashes with a real rule"

    class SizeProbe(Rule):
        code = PROBE_CODE
        name = "size-evidence-probe"
        message = "probe"
        nodes = (ast.Call,)
        triggers = (b"probe",)
        answers: list = []

        def check(self, node: ast.AST, ctx: RuleContext) -> None:
            assert isinstance(node, ast.Call)
            if isinstance(node.func, ast.Name) and node.func.id == "probe":
                SizeProbe.answers.append(known_small(node.args[0], ctx))
            elif isinstance(node.func, ast.Name) and node.func.id == "probe_loop":
                SizeProbe.answers.append(few_iterations(ctx.loops[-1], ctx))

    registry._REGISTRY.pop(PROBE_CODE, None)
    return SizeProbe


PROBE = _make_size_probe()


def answers(source: str) -> list[bool]:
    PROBE.answers = []
    analyze(Source.from_text(textwrap.dedent(source)), rules=[PROBE])
    return list(PROBE.answers)


def small(source: str) -> bool:
    found = answers(source)
    assert len(found) == 1, found
    return found[0]


HEAD = "import numpy as np\nimport pandas as pd\nimport torch\n"


@pytest.mark.parametrize(
    "code",
    [
        "probe([1, 2, 3])",
        "probe(np.array([2, 5]))",
        "probe(range(10))",
        "probe([1, 2] + [3])",
        "probe([0] * 3)",
        "probe(sorted(np.array([3, 1, 2]), reverse=True))",
        "probe(pd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']}))",
        "probe(pd.DataFrame([['green', 'M', 10.1], ['red', 'L', 13.5]]))",
        "probe(np.random.standard_normal((4, 3)))",
        "probe(np.random.rand(4, 3))",
        "probe(np.zeros(12))",
        "probe(np.arange(13))",
        "probe(np.linspace(0, 1))",
        "probe(torch.randn(8, 1000))",
        "rng = np.random.default_rng(0)\nL = rng.random(100)\nprobe(L)",
        "frame = pd.read_csv('big.csv')\nprobe(frame.head())",
        "frame = pd.read_csv('big.csv')\nprobe(frame.nlargest(5, 'price'))",
        "frame = pd.read_csv('big.csv')\nprobe(frame.iloc[:10])",
        "values = np.load('big.npy')\nprobe(values[-20:])",
        "frame = pd.DataFrame({'a': [1, 2, 3]})\nframe['b'] = frame['a'] * 2\nprobe(frame['b'])",
        "frame = pd.DataFrame({'a': [1, 2, 3]})\nframe.columns = ['x']\nprobe(frame[frame['x'] > 1])",
        "columns = {'a': [1, 2, 3], 'b': [4, 5, 6]}\nprobe(pd.DataFrame(columns))",
        "vector = np.array([2, 5])\ncopied = vector.copy()\nprobe(np.cos(copied) * 2)",
        "scores, samples = ds.get_nearest_examples('embeddings', query, k=5)\n"
        "frame = pd.DataFrame.from_dict(samples)\nframe['scores'] = scores\n"
        "frame.sort_values('scores', inplace=True)\nprobe(frame)",
    ],
)
def test_known_small(code: str) -> None:
    assert small(HEAD + code)


@pytest.mark.parametrize(
    "code",
    [
        "probe(frame)",  # a name bound nowhere here
        "frame = pd.read_csv('data.csv')\nprobe(frame)",
        f"probe(np.zeros({SMALL + 1}))",
        f"probe(range({SMALL * 10}))",
        "probe(np.zeros(n))",
        "probe(np.random.standard_normal((n, 3)))",
        "rng = np.random.default_rng(0)\nprobe(rng.random(size))",
        "frame = pd.read_csv('big.csv')\nprobe(frame.sample(frac=0.5))",
        "frame = pd.read_csv('big.csv')\nprobe(frame.head(n))",
        "probe(np.array([2, 5]).T)",
        "probe([*rows, 1])",
        # the result is indexed by position: a row of a small frame may be long
        "small_rows = np.zeros((3, 100000))\nprobe(small_rows[0])",
        # grown in place after the literal
        "items = [1, 2, 3]\nfor x in data:\n    items.append(x)\nprobe(items)",
        "frame = pd.DataFrame({'a': [1]})\nfor i in range(1000):\n    frame.loc[len(frame)] = [i]\nprobe(frame)",
        "table = {'a': 1}\ntable[key] = value\nprobe(table)",
        "items = [1, 2]\nitems += more\nprobe(items)",
        # rebound on one path only, or in a loop after the use
        "items = [1, 2]\nif flag:\n    items = load()\nprobe(items)",
        "items = [1, 2]\nfor _ in range(3):\n    probe(items)\n    items = load()",
        # a nested function may rebind it
        "items = [1, 2]\ndef refill():\n    global items\n    items = load()\nrefill()\nprobe(items)",
        # a small value combined with one of unknown size
        "vector = np.array([2, 5])\nprobe(vector + other)",
        # the examples of a lookup whose k is not a literal
        "scores, samples = ds.get_nearest_examples('embeddings', query, k=k)\nprobe(pd.DataFrame(samples))",
        # a short literal repeated, joined or broadcast to a size the code does not show
        "probe([0] * 1000000)",
        "probe([0] * n)",
        "base = [0]\nprobe(base * count)",
        "probe(np.array([1, 2]) + big)",
        "probe(np.add(np.zeros(3), np.load('big.npy')))",
        "probe(np.zeros(3) @ np.load('matrix.npy'))",
        "probe(pd.Series(0, index=range(1000000)))",
        "probe(pd.DataFrame({'a': 0}, index=np.arange(1000000)))",
        # an item of a small container may itself be large; `.loc` slices by label
        "columns = {'a': np.load('big.npy')}\nprobe(columns['a'])",
        "probe(pd.DataFrame(dict(zip(['a', 'b'], [big, other]))))",
        "frame = pd.read_csv('big.csv')\nprobe(frame.loc[:5])",
    ],
)
def test_not_known_small(code: str) -> None:
    assert not small(HEAD + code)


def test_the_binding_that_reaches_the_statement_counts() -> None:
    source = HEAD + "values = np.array([1.0, 2.0])\nprobe(values)\nvalues = np.load('big.npy')\nprobe(values)\n"
    assert answers(source) == [True, False]


def test_a_name_read_by_a_value_must_be_bound_before_that_value() -> None:
    # `base` is small when `scaled` is probed, but `scaled` was computed from the earlier `base`
    source = HEAD + "base = np.load('big.npy')\nscaled = base * 2\nbase = np.zeros(3)\nprobe(scaled)\n"
    assert answers(source) == [False]


@pytest.mark.parametrize(
    "code, expected",
    [
        ("for c in ['a', 'b', 'c']:\n    probe_loop()", True),
        ("for i in range(5):\n    probe_loop()", True),
        ("for i in range(n):\n    probe_loop()", False),
        ("for row in rows:\n    probe_loop()", False),
        ("frame = pd.DataFrame({'a': [1, 2]})\nfor _, row in frame.iterrows():\n    probe_loop()", True),
        ("frame = pd.read_csv('x.csv')\nfor _, row in frame.iterrows():\n    probe_loop()", False),
        # one iteration per class, each selecting that class's elements
        ("for c in np.unique(y):\n    picked = np.flatnonzero(y == c)\n    probe_loop()", True),
        ("for c in sorted(np.unique(y)):\n    mask = y == c\n    probe_loop()", True),
        ("for label, count in strategy.items():\n    picked = X[y == label]\n    probe_loop()", True),
        ("for i, c in enumerate(np.unique(y)):\n    mask = y == c\n    probe_loop()", True),
        ("for c in zip(range(3), rows):\n    probe_loop()", True),
        # near-misses: distinct values never compared with the array, a scalar comparison
        ("for c in np.unique(y):\n    probe_loop()", False),
        ("for c in np.unique(y):\n    mask = other == c\n    probe_loop()", False),
        ("for label in labels:\n    if current == label:\n        probe_loop()", False),
        ("while True:\n    probe_loop()", False),
    ],
)
def test_few_iterations(code: str, expected: bool) -> None:
    assert small(HEAD + code) is expected


def test_range_count_is_len_of_range_for_any_integers():
    from gpulint.size_evidence import range_count

    for args in [(5,), (0,), (-3,), (2, 9), (9, 2), (0, 10, 3), (10, 0, -3), (-7, 7, 2), (7, -7, -5), (1, 2, 10)]:
        assert range_count(*args) == len(range(*args)), args
    assert range_count(10**30) == 10**30  # len(range(10**30)) raises OverflowError


def test_a_loop_over_a_range_longer_than_a_c_size_is_checked_not_an_internal_error():
    from gpulint import lint_source

    body = "import torch\ndevice = torch.device('cuda')\nmodel = torch.nn.Linear(4, 4).to(device)\n"
    for loop in (
        "for i in range(10**30):",
        "n = 100000000000000000000000000000\nfor i in range(n):",
        "for i in range(100000000000000000000000000000):",
    ):
        source = body + loop + "\n    print(model(torch.ones(4, device=device)).sum().item())\n"
        found = lint_source(source)
        assert [d.code for d in found] == ["GPU307"], loop
