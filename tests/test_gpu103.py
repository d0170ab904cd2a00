"""GPU103 index-loop-over-dataframe: the loops, the cell accesses, the rewrites executed on
frames with default and shuffled indexes, and odd code."""

from __future__ import annotations

from functools import partial

import pytest

from gpulint import Applicability, all_rules, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import findings, idempotent_fix, only_finding

HEADER = "import numpy as np\nimport pandas as pd\n\n\ndef f(df: pd.DataFrame, rate: float = 0.2):\n"


_findings = partial(findings, code="GPU103")


@pytest.mark.parametrize(
    "loop",
    [
        "for i in range(len(df)):",
        "for i in range(0, len(df)):",
        "for i in range(len(df.index)):",
        "for i in range(df.shape[0]):",
        "for i in df.index:",
    ],
)
@pytest.mark.parametrize(
    "access",
    [
        "df.loc[i, 'a']",
        "df.at[i, 'a']",
        "df.iloc[i, 0]",
        "df.iat[i, 0]",
        "df['a'][i]",
        "df['a'].loc[i]",
        "df['a'].iloc[i]",
        "df['a'].at[i]",
        "df['a'].iat[i]",
        "df.loc[i]['a']",
        "df.iloc[i]['a']",
        "df.iloc[i]",
        "df.loc[i]",
    ],
)
def test_loops_with_cell_accesses_are_flagged(loop, access):
    source = HEADER + f"    {loop}\n        print({access})\n"
    assert len(_findings(source)) == 1


@pytest.mark.parametrize(
    "body",
    [
        "    for i in range(len(items)):\n        print(df.loc[i, 'a'])\n",  # a list's length
        "    for i in range(1, len(df)):\n        print(df.loc[i, 'a'])\n",  # not from the first row
        "    for i in range(len(df) - 1):\n        print(df.loc[i, 'a'])\n",
        "    for i in range(len(df)):\n        print(i)\n",
        "    for i in range(len(df)):\n        print(df.loc[i + 1, 'a'])\n",  # another key
        "    for i in range(len(df)):\n        print(other.loc[i, 'a'])\n",  # another frame
        "    for c in df.columns:\n        print(df[c])\n",
        "    for i in df.columns:\n        print(df.loc[0, i])\n",
        "    for i in range(len(df)):\n        def g():\n            return df.loc[i, 'a']\n",
        "    for i, j in enumerate(df.index):\n        print(df.loc[j, 'a'])\n",
        "    for i in range(len(df)):\n        print(df.loc[:, 'a'])\n",
        "    for i in range(len(df)):\n        print(df['a'][0:i])\n",
        "    for i in range(len(df), 0):\n        print(df.loc[i, 'a'])\n",
    ],
)
def test_near_misses(body):
    source = HEADER + "    items = [1, 2]\n    other = pd.DataFrame()\n" + body
    assert _findings(source) == []


def test_a_shadowed_range_is_not_the_builtin():
    source = HEADER.replace("def f", "def range(n):\n    return [0]\n\n\ndef f") + (
        "    for i in range(len(df)):\n        print(df.loc[i, 'a'])\n"
    )
    assert _findings(source) == []


# -- rewrites ------------------------------------------------------------------------------------

REWRITES = [
    (
        "    out = []\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a'] * rate + 1)\n    return out\n",
        "    out = (df['a'] * rate + 1).tolist()\n    return out\n",
    ),
    (
        "    out = []\n    for i in df.index:\n        out.append(df.at[i, 'a'] > df['b'][i])\n    return out\n",
        "    out = (df['a'] > df['b']).tolist()\n    return out\n",
    ),
    (
        "    out = []\n    for i in range(df.shape[0]):\n        out.append(df['a'].iloc[i] - df['b'].iat[i])\n    return out\n",
        "    out = (df['a'] - df['b']).tolist()\n    return out\n",
    ),
    (
        "    for i in df.index:\n        df.loc[i, 'c'] = abs(df.loc[i]['a']) + 1\n    return df\n",
        "    df['c'] = abs(df['a']) + 1\n    return df\n",
    ),
    (
        "    for i in range(len(df)):\n        df.at[i, 'c'] = 'hi' if df.loc[i, 'a'] > 0 else 'lo'\n    return df\n",
        "    df['c'] = np.where(df['a'] > 0, 'hi', 'lo')\n    return df\n",
    ),
    (
        "    out = []\n    for i in range(len(df)):\n        out.append(\n            df.loc[i, 'a']\n            + df.loc[i, 'b']\n        )\n"
        "    return out\n",
        "    out = (df['a']\n                + df['b']).tolist()\n    return out\n",
    ),
]


@pytest.mark.parametrize(("body", "rewrite"), REWRITES)
def test_rewrites(body, rewrite):
    source = HEADER + body
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert idempotent_fix(source) == HEADER + rewrite


INDEXES = ["pd.RangeIndex(N)", "pd.RangeIndex(N) * 3 + 5", "pd.Index(rng.permutation(N))"]


def _visits_every_row(body: str, index: str) -> bool:
    """Documented: `range(len(df))` with label access reads row i only on the default index."""
    label_reads = any(key in body for key in (".loc[i", ".at[i", "['b'][i]"))
    return not ("range(" in body and label_reads) or index == INDEXES[0]


@pytest.mark.parametrize(
    ("body", "rewrite", "index"),
    [(body, rewrite, index) for body, rewrite in REWRITES for index in INDEXES if _visits_every_row(body, index)],
)
def test_rewrites_compute_the_same_values_where_the_loop_visits_every_row(body, rewrite, index):
    source = HEADER + body
    fixed = idempotent_fix(source)
    setup = f"df = pd.DataFrame({{'a': rng.normal(size=N), 'b': rng.integers(-3, 3, N)}}, index={index})"
    for n in (0, 1, 9, 100):
        before = run_example(setup, source, "f(df)", n=n)
        after = run_example(setup, fixed, "f(df)", n=n)
        if n == 0 and "df[" in rewrite.split("=")[0]:
            after = after[list(before.columns)]  # documented: the rewrite creates the column on no rows
        assert_same_result(before, after, strict=False)


def test_label_access_over_positions_differs_on_a_shuffled_index():
    """Why the rewrite is unsafe: on a shuffled index `df.loc[i, ...]` in `range(len(df))`
    reads the rows in label order, the rewrite in position order."""
    source = HEADER + REWRITES[0][0]
    setup = "df = pd.DataFrame({'a': rng.normal(size=N)}, index=pd.Index(rng.permutation(N)))"
    before = run_example(setup, source, "f(df)", n=20)
    after = run_example(setup, idempotent_fix(source), "f(df)", n=20)
    assert sorted(before) == sorted(after) and before != after


@pytest.mark.parametrize(
    "body",
    [
        # positional column keys
        "    out = []\n    for i in range(len(df)):\n        out.append(df.iloc[i, 0] * 2)\n    return out\n",
        # positions read in a loop over labels
        "    out = []\n    for i in df.index:\n        out.append(df['a'].iloc[i] * 2)\n    return out\n",
        # the loop variable used as a value
        "    out = []\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a'] * i)\n    return out\n",
        # a whole row
        "    out = []\n    for i in range(len(df)):\n        out.append(df.iloc[i])\n    return out\n",
        # two statements
        "    out = []\n    for i in range(len(df)):\n        x = df.loc[i, 'a']\n        out.append(x)\n    return out\n",
        # no empty list just before
        "    out = [0]\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a'])\n    return out\n",
        # a chained write (GPU107's)
        "    for i in range(len(df)):\n        df['c'][i] = df.loc[i, 'a'] * 2\n    return df\n",
        # the else clause
        "    out = []\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a'])\n    else:\n        out.append(0)\n    return out\n",
        # a comment inside the expression
        "    out = []\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a']  # raw\n                   * 2)\n    return out\n",
        # a frame receiver that is not a plain reference
        "    out = []\n    for i in range(len(df.T)):\n        out.append(df.T.loc[i, 'a'])\n    return out\n",
    ],
)
def test_declined_rewrites_get_a_suggestion(body):
    source = HEADER + body
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and finding.fix.edits == ()
    assert fix_text(source, rules=_gpu103(), unsafe_fixes=True) == source


def _gpu103():
    return [rule for rule in all_rules() if rule.code == "GPU103"]


@pytest.mark.parametrize(
    "imports",
    [
        "import cudf\ndf = cudf.read_csv('a.csv')\n",
        "import dask.dataframe as dd\ndf = dd.read_csv('a.csv')\n",
    ],
)
def test_other_libraries_get_a_suggestion(imports):
    source = imports + "out = []\nfor i in range(len(df)):\n    out.append(df.loc[i, 'a'] * 2)\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


#: Odd but valid code, and how many GPU103 findings each holds.
ODD_CODE = {
    "star-target": ("    for *i, in [[0]]:\n        print(df.loc[0, 'a'])\n", 0),
    "tuple-target": ("    for i, j in zip(df.index, df.index):\n        print(df.loc[i, 'a'])\n", 0),
    "walrus": ("    for i in range(n := len(df)):\n        print(df.loc[i, 'a'], n)\n", 0),
    "walrus-in-body": ("    for i in df.index:\n        if (v := df.at[i, 'a']) > 0:\n            print(v)\n", 1),
    "nested-class": ("    for i in df.index:\n        class Row:\n            value = df.at[i, 'a']\n", 0),
    "async-for": ("    async def g():\n        async for i in df.index:\n            print(df.at[i, 'a'])\n", 1),
    "loop-else": ("    for i in df.index:\n        print(df.at[i, 'a'])\n    else:\n        print(df.at[i, 'a'])\n", 1),
    "match": ("    for i in df.index:\n        match df.at[i, 'a']:\n            case 0:\n                pass\n", 1),
    "nested-loops": (
        "    for i in df.index:\n        for j in range(len(df)):\n            print(df.at[i, 'a'], df.iat[j, 0])\n",
        2,
    ),
}


@pytest.mark.parametrize(("body", "count"), list(ODD_CODE.values()), ids=list(ODD_CODE))
def test_odd_but_valid_code_is_handled(body, count):
    source = HEADER + body
    assert len(_findings(source)) == count
    idempotent_fix(source)


# -- the loop variable, read after the loop ------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "    out = []\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a'] * 2)\n"
        "    print('last row:', i)\n    return out\n",
        "    for label in df.index:\n        df.at[label, 'b'] = df.at[label, 'a'] * 2\n    return df, label\n",
    ],
)
def test_a_loop_whose_variable_is_read_after_it_is_not_rewritten(body):
    source = HEADER + body
    diagnostic = only_finding(source, "GPU103")
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_a_loop_variable_rebound_before_it_is_read_again_does_not_block_the_rewrite():
    source = HEADER + (
        "    out = []\n    for i in range(len(df)):\n        out.append(df.loc[i, 'a'] * 2)\n"
        "    i = 0\n    return out, i\n"
    )
    fixed = fix_text(source, unsafe_fixes=True)
    assert "    out = (df['a'] * 2).tolist()\n    i = 0\n" in fixed


def test_logic_that_reads_no_cell_stays_python_logic():
    # `not` of a Python bool is a bool; `~` of it is -2: only logic that reads cells
    # becomes column logic.
    source = (
        "import pandas as pd\n\n\ndef f(df: pd.DataFrame):\n    for i in df.index:\n"
        '        df.loc[i, "c"] = (not (df.loc[i, "a"] >= df.loc[i, "b"])) <= (not (1 < 2.5))\n'
        "    return df\n"
    )
    fixed = fix_text(source, unsafe_fixes=True)
    assert '(~(df["a"] >= df["b"])) <= (not (1 < 2.5))' in fixed


@pytest.mark.parametrize(
    ("frame", "reported"),
    [
        ("pd.DataFrame({'title': ['a', 'b', 'c'], 'minutes': [1, 2, 3]})", False),
        ("pd.read_csv('lessons.csv').iloc[:12]", False),
        ("pd.read_csv('lessons.csv')", True),
        ("pd.read_csv('lessons.csv').iloc[:count]", True),
    ],
)
def test_a_frame_of_a_few_rows_is_not_reported(frame, reported):
    source = (
        f"import pandas as pd\n\nlessons = {frame}\nfor i in range(len(lessons)):\n"
        "    print(lessons.loc[i, 'title'], lessons.loc[i, 'minutes'])\n"
    )
    assert [d.code for d in lint_source(source) if d.code == "GPU103"] == (["GPU103"] if reported else [])
