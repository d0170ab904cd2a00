"""GPU107 chained-assignment: the shapes, the rewrites, and what the rewrite changes on
purpose (the write takes effect), checked against the result computed independently."""

from __future__ import annotations

import warnings
from functools import partial

import pandas as pd
import pytest

from gpulint import Applicability, fix_text

from .execution import assert_same_result, run_example
from .rule_helpers import findings, idempotent_fix

HEADER = "import pandas as pd\n\nframe = pd.read_csv('data.csv')\nmask = frame['a'] > 0\nrows = [1, 2]\n"


_findings = partial(findings, code="GPU107")


REWRITES = [
    ("frame['a'][3] = 1.0", "frame.loc[3, 'a'] = 1.0"),
    ("frame['a'][frame['b'] > 2] = 0.0", "frame.loc[frame['b'] > 2, 'a'] = 0.0"),
    ("frame['a'][mask] = -frame['a']", "frame.loc[mask, 'a'] = -frame['a']"),
    ("frame['a'].loc[3] = 1.0", "frame.loc[3, 'a'] = 1.0"),
    ("frame['a'].at[3] = 1.0", "frame.at[3, 'a'] = 1.0"),
    ("frame.loc[3]['a'] = 1.0", "frame.loc[3, 'a'] = 1.0"),
    ("frame.loc[2:4]['a'] = 1.0", "frame.loc[2:4, 'a'] = 1.0"),
    ("frame.loc[mask]['a'] = 1.0", "frame.loc[mask, 'a'] = 1.0"),
    ("frame.loc[3][['a', 'b']] = 1.0", "frame.loc[3, ['a', 'b']] = 1.0"),
    ("frame[frame['b'] > 2]['a'] = 0.0", "frame.loc[frame['b'] > 2, 'a'] = 0.0"),
    ("frame[mask]['a'] += 1", "frame.loc[mask, 'a'] += 1"),
    ("frame['a'][3] *= 2", "frame.loc[3, 'a'] *= 2"),
    ("total = frame['a'][3] = 1.0", "total = frame.loc[3, 'a'] = 1.0"),
    ("frame['a'][3] = (  # reset\n    1.0\n)", "frame.loc[3, 'a'] = (  # reset\n    1.0\n)"),
]


@pytest.mark.parametrize(("statement", "rewrite"), REWRITES)
def test_rewrites(statement, rewrite):
    source = HEADER + statement + "\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert idempotent_fix(source) == HEADER + rewrite + "\n"


@pytest.mark.parametrize(
    "statement",
    [
        "frame['a'].iloc[0] = 1.0",  # positions: the column's position is needed
        "frame['a'].iat[0] = 1.0",
        "frame.iloc[0]['a'] = 1.0",
        "frame['a'][0:2] = 1.0",  # a positional slice on a Series, label-based in `.loc`
        "frame['a'][1, 2] = 1.0",  # a tuple would merge into `.loc`'s pair
        "frame[['a', 'b']]['a'] = 1.0",  # a copy of some columns
        "frame[10:13]['a'] = 1.0",  # rows by a slice: positions or labels, as the index decides
        "frame['a'][  # the fourth row\n    3] = 1.0",
    ],
)
def test_declined_rewrites_get_a_suggestion(statement):
    source = HEADER + statement + "\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and finding.fix.edits == ()
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "statement",
    [
        "frame.loc[3, 'a'] = 1.0",
        "frame.at[3, 'a'] = 1.0",
        "frame['a'] = 1.0",
        "frame[mask] = 0.0",
        "column = frame['a']\ncolumn[3] = 1.0",  # a name: not chained (a copy under copy-on-write, but said so)
        "table = {'a': [1, 2]}\ntable['a'][0] = 3",
        "grid = [[0, 0]]\ngrid[0][1] = 1",
        "print(frame['a'][3])",  # a read
        "frame.loc[frame['a'][3]] = 1.0",  # a read inside the key
        "frame[frame.columns[0]][3] = 1.0",  # column label unknown: may select several
        "frame[10:13][cols] = 1.0",  # rows by a slice, columns not known to be labels
        "part = frame[10:13]\npart['a'] = 1.0",  # a name: said so, not chained
    ],
)
def test_not_flagged(statement):
    assert _findings(HEADER + statement + "\n") == []


@pytest.mark.parametrize(
    ("imports", "count"),
    [
        ("import cudf\nframe = cudf.read_csv('a.csv')\n", 0),
        ("import dask.dataframe as dd\nframe = dd.read_csv('a.csv')\n", 0),
        ("import modin.pandas as mpd\nframe = mpd.read_csv('a.csv')\n", 1),
        ("def f(frame):\n    pass\n", 0),
    ],
)
def test_only_copy_on_write_frames(imports, count):
    assert len(_findings(imports + "frame['a'][0] = 1\n")) == count


# -- the rewrite makes the write take effect: checked against the intended result ---------------

SETUP = (
    "frame = pd.DataFrame({'a': rng.normal(size=N), 'b': rng.integers(0, 5, N)}, "
    "index=pd.RangeIndex(N) + 10)\nmask = frame['b'] > 2\n"
)
#: statement, and the intended frame computed without indexing assignments
INTENDED = [
    ("frame['a'][mask] = 0.0", "frame.assign(a=frame['a'].mask(mask, 0.0))"),
    ("frame.loc[mask]['a'] = 0.0", "frame.assign(a=frame['a'].mask(mask, 0.0))"),
    ("frame[mask]['a'] = 0.0", "frame.assign(a=frame['a'].mask(mask, 0.0))"),
    ("frame[frame['a'] < 0]['b'] += 10", "frame.assign(b=frame['b'] + 10 * (frame['a'] < 0))"),
    (
        "for label in frame.index[::2]:\n    frame['b'][label] = -1",
        "frame.assign(b=frame['b'].where(pd.Series(range(len(frame)), index=frame.index) % 2 == 1, -1))",
    ),
    (
        "for label in frame.index[::2]:\n    frame['b'].loc[label] = -1",
        "frame.assign(b=frame['b'].where(pd.Series(range(len(frame)), index=frame.index) % 2 == 1, -1))",
    ),
    (
        "for label in frame.index[::2]:\n    frame.loc[label]['b'] = -1",
        "frame.assign(b=frame['b'].where(pd.Series(range(len(frame)), index=frame.index) % 2 == 1, -1))",
    ),
    (
        "for label in frame.index[:3]:\n    frame['a'].at[label] = 1.5",
        "frame.assign(a=frame['a'].where(pd.Series(range(len(frame)), index=frame.index) >= 3, 1.5))",
    ),
]


@pytest.mark.parametrize(("statement", "intended"), INTENDED)
def test_the_rewrite_computes_what_the_chained_write_meant(statement, intended):
    # bare annotations: the evidence for the linter, nothing at run time (setup binds them)
    source = "import pandas as pd\n\nframe: pd.DataFrame\nmask: pd.Series\n" + statement + "\n"
    fixed = idempotent_fix(source)
    assert fixed != source
    for n in (0, 1, 8, 60):
        expected = run_example(SETUP, "", intended, n=n)
        untouched = run_example(SETUP, "", "frame.copy()", n=n)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            before = run_example(SETUP, source, "frame", n=n)
        after = run_example(SETUP, fixed, "frame", n=n)
        # under copy-on-write the original writes into a copy: the frame is as it was, and
        # pandas says so (when a row is written at all)
        pd.testing.assert_frame_equal(before, untouched)
        if not expected.equals(untouched):
            assert any(w.category.__name__ == "ChainedAssignmentError" for w in caught)
        assert_same_result(expected, after, strict=True)


#: Odd but valid code, and how many GPU107 findings each holds.
ODD_CODE = {
    "star-target": ("for *rest, last in [[1, 2]]:\n    frame['a'][last] = 0\n", 1),
    "walrus-key": ("frame['a'][(k := 3)] = 0\n", 1),
    "starred-assign": ("*heads, frame['a'][0] = [1, 2]\n", 0),
    "tuple-assign": ("frame['a'][0], frame['b'][0] = 1, 2\n", 0),
    "chained-targets": ("frame['a'][0] = frame['b'][0] = 1\n", 2),
    "nested-def-in-loop": ("for i in range(2):\n    def f():\n        frame['a'][i] = 0\n", 1),
    "class-in-loop": ("for i in range(2):\n    class C:\n        frame['a'][0] = 1\n", 1),
    "async-for": ("async def go(items):\n    async for item in items:\n        frame['a'][item] = 0\n", 1),
    "loop-else": ("for i in range(2):\n    pass\nelse:\n    frame['a'][0] = 1\n", 1),
    "match": ("match rows:\n    case [first, *_]:\n        frame['a'][first] = 1\n", 1),
}


@pytest.mark.parametrize(("body", "count"), list(ODD_CODE.values()), ids=list(ODD_CODE))
def test_odd_but_valid_code_is_handled(body, count):
    source = HEADER + body
    assert len(_findings(source)) == count
    idempotent_fix(source)


# -- a row key that may hold a slice: positions in `series[k]`, labels in `.loc[k]` -------------


@pytest.mark.parametrize(
    "statement",
    [
        "k = slice(0, 3)\nframe['a'][k] = 1.0",
        "frame['a'][key] = 1.0",  # a parameter-like name of unknown value
        "frame['a'][keys[0]] = 1.0",
        "frame['a'][pick(frame)] = 1.0",
        "for k in [slice(0, 2), slice(4, 6)]:\n    frame['a'][k] = 1.0",
        "for k in range(3):\n    if k:\n        k = slice(0, k)\n    frame['a'][k] = 1.0",
        "k = 3\nif rows:\n    k = slice(0, 3)\nframe['a'][k] = 1.0",
    ],
)
def test_a_row_key_that_may_be_a_slice_is_not_rewritten(statement):
    source = HEADER + statement + "\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    ("statement", "rewrite"),
    [
        ("k = 3\nframe['a'][k] = 1.0", "k = 3\nframe.loc[k, 'a'] = 1.0"),
        ("frame['a'][rows] = 1.0", "frame.loc[rows, 'a'] = 1.0"),
        ("frame['a'][~mask] = 1.0", "frame.loc[~mask, 'a'] = 1.0"),
        ("frame['a'][len(rows) - 1] = 1.0", "frame.loc[len(rows) - 1, 'a'] = 1.0"),
        ("for i in range(3):\n    frame['a'][i + 1] = 1.0", "for i in range(3):\n    frame.loc[i + 1, 'a'] = 1.0"),
        (
            "for label in frame.index[:2]:\n    frame['a'][label] = 1.0",
            "for label in frame.index[:2]:\n    frame.loc[label, 'a'] = 1.0",
        ),
    ],
)
def test_a_row_key_that_is_never_a_slice_is_rewritten(statement, rewrite):
    source = HEADER + statement + "\n"
    assert idempotent_fix(source) == HEADER + rewrite + "\n"


def test_why_a_slice_held_by_a_name_is_declined():
    """`series[k]` with a slice of integers takes positions (three rows here); `.loc[k]`
    takes labels, ends included (four)."""
    frame = pd.DataFrame({"a": [0.0] * 6})
    k = slice(0, 3)
    assert len(frame["a"][k]) == 3
    assert len(frame.loc[k, "a"]) == 4


@pytest.mark.parametrize(
    ("statement", "count"),
    [
        # a loop binds the column label: literal labels, also through a name, or the frame's columns
        ("for size in [100, 200]:\n    frame[size][3] = 1.0", 1),
        ("labels = ('a', 'b')\nfor label in labels:\n    frame[label][mask] = 0.0", 1),
        ("for label in frame.columns:\n    frame[label][mask] = 0.0", 1),
        # near-misses: what the loop binds may be masks or lists of labels
        ("for key in [first, second]:\n    frame[key][3] = 1.0", 0),
        ("for key in [['a', 'b']]:\n    frame[key][3] = 1.0", 0),
        ("for key in keys_from_elsewhere():\n    frame[key][3] = 1.0", 0),
    ],
)
def test_a_column_label_bound_by_a_loop(statement, count):
    assert len(_findings(HEADER + statement + "\n")) == count


def test_a_column_written_on_sliced_rows_names_both_indexers():
    [finding] = _findings(HEADER + "frame[10:13]['a'] = 1.0\n")
    assert "df.iloc[a:b" in finding.message and "df.loc[labels" in finding.message
