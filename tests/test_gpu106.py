"""GPU106 groupby-apply-lambda: the lambdas that are built-in aggregations, the rewrites, and
their results executed on generated groups."""

from __future__ import annotations

import ast
from functools import partial

import pandas as pd
import pytest

from gpulint import Applicability, fix_text

from .execution import assert_same_result, run_example
from .rule_helpers import findings, idempotent_fix

HEADER = "import pandas as pd\n\nsales = pd.read_csv('sales.csv')\nprices = sales['price']\n"


_findings = partial(findings, code="GPU106")


REWRITES = [
    ("sales.groupby('k').apply(lambda g: g['v'].sum())", "sales.groupby('k')['v'].sum()"),
    ("sales.groupby('k').apply(lambda g: g[['v', 'w']].mean())", "sales.groupby('k')[['v', 'w']].mean()"),
    ("sales.groupby(['k', 'j']).apply(lambda g: g['v'].nunique())", "sales.groupby(['k', 'j'])['v'].nunique()"),
    ("sales.groupby('k', sort=False).apply(lambda g: g['v'].max())", "sales.groupby('k', sort=False)['v'].max()"),
    (
        "sales.groupby('k', dropna=False).apply(lambda g: g['v'].count())",
        "sales.groupby('k', dropna=False)['v'].count()",
    ),
    ("sales.groupby('k').apply(len)", "sales.groupby('k').size()"),
    ("sales.groupby('k').apply(lambda g: len(g))", "sales.groupby('k').size()"),
    ("sales.groupby('k')['v'].apply(lambda x: x.median())", "sales.groupby('k')['v'].median()"),
    ("sales.groupby('k')[['v', 'w']].apply(lambda g: g.max())", "sales.groupby('k')[['v', 'w']].max()"),
    ("sales.groupby('k')['v'].apply(len)", "sales.groupby('k')['v'].size()"),
    ("sales.groupby('k')['v'].agg(len)", "sales.groupby('k')['v'].size()"),
    ("sales.groupby(['k', 'j'])['v'].aggregate(len)", "sales.groupby(['k', 'j'])['v'].size()"),
    ("sales.groupby('k')['v'].transform(lambda x: x.mean())", "sales.groupby('k')['v'].transform(\"mean\")"),
    (
        "sales.groupby('k')[['v', 'w']].transform(lambda x: x.std())",
        "sales.groupby('k')[['v', 'w']].transform(\"std\")",
    ),
    ("sales.groupby('k')[['v', 'w']].agg(lambda x: x.sum())", "sales.groupby('k')[['v', 'w']].agg(\"sum\")"),
    ("sales.groupby('k')['v'].aggregate(lambda x: x.min())", "sales.groupby('k')['v'].aggregate(\"min\")"),
    ("prices.groupby(sales['k']).apply(lambda x: x.sum())", "prices.groupby(sales['k']).sum()"),
    ("sales.groupby('k').apply(func=lambda g: g['v'].sum())", "sales.groupby('k')['v'].sum()"),
]


@pytest.mark.parametrize(("call", "rewrite"), REWRITES)
def test_rewrites(call, rewrite):
    source = HEADER + f"result = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert idempotent_fix(source) == HEADER + f"result = {rewrite}\n"


@pytest.mark.parametrize(
    "call",
    [
        "grouped.apply(lambda g: g['v'].sum())",  # a name: the groupby's options are not in sight
        "sales.groupby('k', as_index=False).apply(lambda g: g['v'].sum())",
        "sales.groupby('k').apply(lambda g: g['v'].sum(), include_groups=False)",
        "sales.groupby('k')['v'].apply(lambda x: x['c'].sum())",  # a label of the series, not a column
        "prices.groupby(sales['k']).apply(lambda x: x['c'].sum())",
        "sales.groupby('k', axis=0)['v'].apply(lambda x: x.sum())",
        "sales.groupby('k').apply(\n    lambda g: g['v'].sum(),  # revenue\n)",
    ],
)
def test_declined_rewrites_get_a_suggestion(call):
    source = HEADER + f"grouped = sales.groupby('k')\nresult = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and finding.fix.edits == ()
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize("lib", ["cudf", "dask.dataframe"])
def test_other_libraries_get_a_suggestion(lib):
    source = f"import {lib} as xd\n\nframe = xd.read_csv('a.csv')\nresult = frame.groupby('k').apply(lambda g: g['v'].sum())\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "call",
    [
        "sales.groupby('k')['v'].sum()",
        "sales.groupby('k').agg('sum')",
        "sales.groupby('k').agg(sum)",  # pandas maps the builtin to its own sum
        "sales.groupby('k').apply(lambda g: g['v'].sum() / g['w'].sum())",
        "sales.groupby('k').apply(lambda g: g['v'].quantile(0.9))",
        "sales.groupby('k').apply(lambda g: g.head(2))",
        "sales.groupby('k').apply(lambda g: g['v'].first())",  # `first()` skips missing values, `iloc[0]` not
        "sales.groupby('k').transform(lambda g: g['v'].sum())",  # called per column first
        "sales.groupby('k').agg(lambda g: len(g))",
        "sales.groupby('k').agg(len)",  # the length of each column of each group
        "sales.groupby('k')[['v', 'w']].agg(len)",
        "sales.groupby('k')['v'].transform(len)",  # a length per row
        "sales.groupby('k').apply(lambda g, n=1: g.sum())",
        "sales.groupby('k').apply(lambda g: other.sum())",
        "sales.apply(lambda column: column.sum())",
        "sales['v'].apply(lambda x: x.sum())",
        "records.apply(lambda g: g.sum())",
    ],
)
def test_not_flagged(call):
    source = HEADER + f"other = sales\nrecords = [1]\nresult = {call}\n"
    assert _findings(source) == []


def test_a_shadowed_len_is_not_the_builtin():
    source = HEADER + "\n\ndef len(group):\n    return 0\n\n\nresult = sales.groupby('k').apply(len)\n"
    assert _findings(source) == []


# -- executed on generated groups ----------------------------------------------------------------

SETUPS = {
    "plain": (
        "sales = pd.DataFrame({'k': rng.choice(['a', 'b', 'c'], N), 'j': rng.integers(0, 2, N), "
        "'v': rng.integers(0, 9, N), 'w': rng.normal(size=N)})"
    ),
    "missing-keys": (
        "sales = pd.DataFrame({'k': pd.Series(rng.choice(['a', 'b'], N)).where(rng.uniform(size=N) > 0.3), "
        "'j': rng.integers(0, 2, N), 'v': rng.normal(size=N), 'w': rng.normal(size=N)})"
    ),
    "categories": (
        "sales = pd.DataFrame({'k': pd.Categorical(rng.choice(['a', 'b'], N), categories=['a', 'b', 'z']), "
        "'j': rng.integers(0, 2, N), 'v': rng.integers(0, 9, N), 'w': rng.normal(size=N)})"
    ),
}


@pytest.mark.parametrize(("call", "rewrite"), REWRITES, ids=[r[1] for r in REWRITES])
@pytest.mark.parametrize("setup", list(SETUPS), ids=list(SETUPS))
def test_rewrite_computes_the_same_values(setup, call, rewrite):
    setup_code = SETUPS[setup] + "\nprices = sales['w']"
    for n in (0, 1, 9, 120):
        no_groups = run_example(setup_code, "", "int(sales['k'].notna().sum()) == 0", n=n)
        try:
            before = run_example(setup_code, "", call, n=n)
        except ValueError:
            # documented: a frame groupby's `transform` of a lambda raises when there is no
            # group (pandas 3.1's `transform("std")` raises there too)
            assert no_groups and ".transform(" in call
            continue
        after = run_example(setup_code, "", rewrite, n=n)
        if no_groups and ".transform(" in call:
            # documented: a series groupby's `transform` of a lambda returns nothing when
            # there is no group, the built-in a missing value for every row
            assert before.empty and after.isna().all()
            continue
        if no_groups and isinstance(before, pd.DataFrame) and "apply(" in call:
            # documented: `apply` with no group returns an empty copy of the frame, the
            # aggregation its own empty result (a Series, or a frame of the selected columns)
            assert before.empty and after.empty
            pd.testing.assert_index_equal(before.index, after.index, exact=False)
            continue
        assert_same_result(before, after, strict=False)


#: Odd but valid code, and how many GPU106 findings each holds.
ODD_CODE = {
    "star-target": ("for *rest, key in [['k']]:\n    out = sales.groupby(key).apply(len)\n", 1),
    "walrus": ("if (grouped := sales.groupby('k')) is not None:\n    out = grouped.apply(lambda g: g.sum())\n", 1),
    "nested-def-in-loop": ("for i in range(2):\n    def f():\n        return sales.groupby('k').apply(len)\n", 1),
    "class-in-loop": ("for i in range(2):\n    class C:\n        out = sales.groupby('k').apply(len)\n", 1),
    "async-for": (
        "async def go(items):\n    async for item in items:\n        print(sales.groupby('k').apply(len))\n",
        1,
    ),
    "loop-else": ("for i in range(2):\n    pass\nelse:\n    out = sales.groupby('k').apply(len)\n", 1),
    "match": ("match sales.groupby('k').apply(len):\n    case object():\n        pass\n", 1),
    "lambda-walrus": ("out = sales.groupby('k').apply(lambda g: (n := g.sum()))\n", 0),
}


@pytest.mark.parametrize(("body", "count"), list(ODD_CODE.values()), ids=list(ODD_CODE))
def test_odd_but_valid_code_is_handled(body, count):
    source = HEADER + body
    assert len(_findings(source)) == count
    idempotent_fix(source)


def test_evidence_a_series_groupby_is_a_groupby():
    """Evidence added for this rule: `series.groupby(...)` is a groupby (of the series' library)."""
    from gpulint.evidence import TypeEnv

    env = TypeEnv()
    env.bind_import(ast.parse("import pandas as pd").body[0])
    env.bind("prices", env.type_of(ast.parse("pd.Series([1.0])", mode="eval").body))
    grouped = env.type_of(ast.parse("prices.groupby(prices > 0)", mode="eval").body)
    assert grouped is not None and (grouped.kind, grouped.lib) == ("groupby", "pandas")
    assert env.type_of(ast.parse("unknown.groupby('k')", mode="eval").body) is None
