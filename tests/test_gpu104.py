"""GPU104 apply-axis-1: what the generic example tests do not cover."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import findings, idempotent_fix

PANDAS = 'import pandas as pd\n\nframe = pd.read_csv("data.csv")\n'


_findings = partial(findings, code="GPU104")


def _assert_display_only(source: str) -> None:
    [finding] = _findings(source)
    assert finding.fix is not None and finding.fix.applicability is Applicability.DISPLAY
    assert finding.fix.edits == ()
    assert fix_text(source, unsafe_fixes=True) == source


# -- what is flagged ---------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        'frame.apply(lambda r: r["a"], axis=1)',
        'frame.apply(lambda r: r["a"], axis="columns")',
        'frame.apply(lambda r: r["a"], 1)',
        'frame.apply(func=lambda r: r["a"], axis=1)',
        "frame.apply(len, axis=1, raw=True)",
        'frame.apply(lambda r: r["a"], axis=1, engine="python")',
    ],
)
def test_row_wise_apply_on_a_pandas_frame_is_flagged(call):
    assert len(_findings(PANDAS + f"result = {call}\n")) == 1


@pytest.mark.parametrize(
    "call",
    [
        "frame.apply(lambda c: c.sum())",
        "frame.apply(lambda c: c.sum(), axis=0)",
        'frame.apply(lambda c: c.sum(), axis="index")',
        "frame.apply(lambda c: c.sum(), 0)",
        "frame.apply(lambda c: c.sum(), axis=True)",
        'frame.apply(lambda r: r["a"], axis=1, engine="numba", raw=True)',
        'frame["a"].apply(lambda x: x * 2)',
        'frame.groupby("k").apply(lambda g: g["a"].sum())',
    ],
)
def test_other_applies_are_not_flagged(call):
    assert _findings(PANDAS + f"result = {call}\n") == []


@pytest.mark.parametrize(
    "call",
    [
        'frame.apply("sum", axis=1)',
        'frame.apply(func="mean", axis="columns")',
        "frame.apply(np.sqrt, axis=1)",
        "frame.apply(numpy.log1p, axis=1)",
        "frame.apply(sqrt, axis=1)",
        "frame.apply(np.abs, 1)",
        'frame.apply({0: "max", 1: np.abs}, axis=1)',
        'frame.apply({"first": lambda v: v + 1}, axis=1)',
    ],
)
def test_forms_pandas_does_not_run_per_row_are_not_flagged(call):
    source = "import numpy\nimport numpy as np\nfrom numpy import sqrt\n" + PANDAS + f"result = {call}\n"
    assert _findings(source) == []


@pytest.mark.parametrize(
    "call",
    [
        "frame.apply(np.sum, axis=1)",
        "frame.apply(np.maximum.reduce, axis=1)",
        "frame.apply(sum, axis=1)",
        "frame.apply(sqrt, axis=1)",
        "frame.apply((np.sqrt,), axis=1)",
        "frame.apply({**table}, axis=1)",
        'frame.apply(f"{name}", axis=1)',
    ],
)
def test_numpy_functions_that_are_no_ufuncs_and_lists_are_flagged(call):
    source = "import numpy as np\n" + PANDAS + "\n\ndef sqrt(row):\n    return row\n\n\n" + f"result = {call}\n"
    assert len(_findings(source)) == 1


def test_a_list_of_method_names_suggests_agg():
    source = PANDAS + 'stats = frame.apply(["sum", "mean"], axis=1)\n'
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and "agg" in finding.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


def test_what_pandas_calls_once_per_row(monkeypatch):
    """The behaviour the rule's exemptions rest on (pandas, run here)."""
    frame = pd.DataFrame(np.arange(21.0).reshape(7, 3), columns=["a", "b", "c"])
    series_sums: list = []
    original_sum = pd.Series.sum
    monkeypatch.setattr(pd.Series, "sum", lambda self, *a, **k: series_sums.append(1) or original_sum(self, *a, **k))

    def sums(run) -> int:
        series_sums.clear()
        run()
        return len(series_sums)

    # a method name is `frame.sum(axis=1)`, once; a dict only reaches the rows it names
    assert sums(lambda: frame.apply("sum", axis=1)) == 0
    assert sums(lambda: frame.apply({0: "sum", 3: "sum"}, axis=1)) == 2
    # a list builds one Series per row, where `agg` computes the same from the columns
    assert sums(lambda: frame.apply(["sum"], axis=1)) == 7  # noqa: GPU104
    assert sums(lambda: frame.agg(["sum"], axis=1)) == 0
    listed = frame.apply(["sum", "mean"], axis=1)  # noqa: GPU104
    pd.testing.assert_frame_equal(listed, frame.agg(["sum", "mean"], axis=1))
    # `np.sum` is a plain function, called once per row
    assert sums(lambda: frame.apply(np.sum, axis=1)) == 7  # noqa: GPU104

    seen: list = []

    def record(value):
        seen.append(type(value))
        return value

    # a ufunc (here one made at run time, which gpulint cannot see) is handed whole columns
    frame.apply(np.frompyfunc(record, 1, 1), axis=1)  # noqa: GPU104
    assert pd.Series not in seen
    seen.clear()
    frame.apply(record, axis=1)  # noqa: GPU104
    assert seen == [pd.Series] * 7


def test_dask_and_modin_frames_are_flagged_and_cudf_frames_are_not():
    source = """\
import cudf
import dask.dataframe as dd
import modin.pandas as mpd

lazy = dd.read_csv("data-*.csv")
spread = mpd.read_csv("data.csv")
device = cudf.read_csv("data.csv")
a = lazy.apply(lambda r: r["a"] + 1, axis=1, meta=(None, "f8"))
b = spread.apply(lambda r: r["a"] + 1, axis=1)
c = device.apply(lambda r: r["a"] + 1, axis=1)
"""
    assert [d.start.line for d in _findings(source)] == [8, 9]


def test_evidence_comes_from_types_not_names():
    source = """\
import pandas as pd


class Grid:
    def apply(self, function, axis=0):
        return function


df = Grid()
out = df.apply(lambda r: r["a"], axis=1)


def helper(df):
    return df.apply(lambda r: r["a"], axis=1)


def typed(table: pd.DataFrame):
    return table.apply(lambda r: r["a"], axis=1)


helper(Grid())  # the only call passes a Grid: `apply(..., axis=1)` is its method
"""
    assert [d.start.line for d in _findings(source)] == [18]


# -- the rewrites ----------------------------------------------------------------


def test_np_where_stored_in_a_column_of_the_same_frame_stays_an_array():
    source = PANDAS + 'frame["size"] = frame.apply(lambda r: "big" if r["qty"] > 5 else "small", axis=1)\n'
    assert idempotent_fix(source) == (
        'import pandas as pd\nimport numpy as np\n\nframe = pd.read_csv("data.csv")\n'
        'frame["size"] = np.where(frame["qty"] > 5, "big", "small")\n'
    )


def test_np_where_anywhere_else_becomes_a_series_on_the_frame_index():
    source = """\
import numpy
from pandas import read_csv

frame = read_csv("data.csv")
other = read_csv("other.csv")
sizes = frame.apply(lambda r: "big" if r["qty"] > 5 else "small", axis=1)
other["size"] = frame.apply(lambda r: "big" if r["qty"] > 5 else "small", axis=1)
"""
    assert (
        idempotent_fix(source)
        == """\
import numpy
from pandas import read_csv
import pandas as pd

frame = read_csv("data.csv")
other = read_csv("other.csv")
sizes = pd.Series(numpy.where(frame["qty"] > 5, "big", "small"), index=frame.index)
other["size"] = pd.Series(numpy.where(frame["qty"] > 5, "big", "small"), index=frame.index)
"""
    )


def test_np_where_combined_with_a_column_is_already_a_series():
    source = PANDAS + 'signed = frame.apply(lambda r: (1 if r["up"] > 0 else -1) * r["size"], axis=1)\n'
    assert idempotent_fix(source).endswith('signed = (np.where(frame["up"] > 0, 1, -1)) * frame["size"]\n')


def test_parentheses_only_where_the_result_is_an_operand():
    source = (
        PANDAS
        + """\
total = frame.apply(lambda r: r["a"] * r["b"], axis=1).sum()
rest = 1 - frame.apply(lambda r: r["a"] - r["b"], axis=1)
print(frame.apply(lambda r: r["a"] > 1 or not r["b"] < 2, axis=1))
"""
    )
    assert (
        idempotent_fix(source)
        == PANDAS
        + """\
total = (frame["a"] * frame["b"]).sum()
rest = 1 - (frame["a"] - frame["b"])
print((frame["a"] > 1) | (~(frame["b"] < 2)))
"""
    )


def test_comments_survive_in_place_or_above_the_statement():
    source = (
        PANDAS
        + """\
if True:
    out = frame.apply(
        # per row
        lambda r: r["a"]  # the a part
        - r["b"],
        axis=1,  # rows
    )
"""
    )
    assert (
        idempotent_fix(source)
        == PANDAS
        + """\
if True:
    # per row
    # rows
    out = (frame["a"]  # the a part
        - frame["b"])
"""
    )


def test_moved_comments_keep_line_endings_and_go_above_decorators():
    crlf = (
        PANDAS.replace("\n", "\r\n") + 'out = frame.apply(\r\n    lambda r: r["a"] + 1,  # one more\r\n    axis=1)\r\n'
    )
    assert idempotent_fix(crlf) == PANDAS.replace("\n", "\r\n") + '# one more\r\nout = frame["a"] + 1\r\n'
    decorated = (
        PANDAS + '@register(frame.apply(lambda r: r["a"] + 1,  # one more\n          axis=1))\ndef f():\n    pass\n'
    )
    assert idempotent_fix(decorated) == PANDAS + '# one more\n@register(frame["a"] + 1)\ndef f():\n    pass\n'


def test_dask_gets_column_expressions_but_no_np_where():
    source = """\
import dask.dataframe as dd

lazy = dd.read_csv("data-*.csv")
a = lazy.apply(lambda r: r["a"] - r["b"], axis=1)
b = lazy.apply(lambda r: "x" if r["a"] > 0 else "y", axis=1)
"""
    fixed = idempotent_fix(source)
    assert 'a = lazy["a"] - lazy["b"]\n' in fixed
    assert 'b = lazy.apply(lambda r: "x" if r["a"] > 0 else "y", axis=1)\n' in fixed


def test_modin_gets_np_where_only_when_stored_in_a_column():
    source = """\
import modin.pandas as mpd

spread = mpd.read_csv("data.csv")
spread["c"] = spread.apply(lambda r: "x" if r["a"] > 0 else "y", axis=1)
d = spread.apply(lambda r: "x" if r["a"] > 0 else "y", axis=1)
"""
    fixed = idempotent_fix(source)
    assert 'spread["c"] = np.where(spread["a"] > 0, "x", "y")\n' in fixed
    assert 'd = spread.apply(lambda r: "x" if r["a"] > 0 else "y", axis=1)\n' in fixed


# -- what is declined ----------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        "frame.apply(score, axis=1)",
        'frame.apply(lambda r: r["a"], axis=1, raw=True)',
        'frame.apply(lambda r: r["a"], axis=1, result_type="expand")',
        'frame.apply(lambda r, k: r["a"] + k, axis=1, args=(1,))',
        'frame.apply(lambda r: r["a"] + k, axis=1, k=1)',
        'frame.apply(lambda r, k=1: r["a"] + k, axis=1)',
        "frame.apply(lambda *r: r[0], axis=1)",
        'frame[frame["a"] > 0].apply(lambda r: r["a"] * 2, axis=1)',
        'frame.T.apply(lambda r: r["a"] * 2, axis=1)',
        "frame.apply(lambda r: r.a * 2, axis=1)",
        'frame.apply(lambda r: r["a"] + offsets, axis=1)',
        'frame.apply(lambda r: "%s" % r["a"], axis=1)',
        'frame.apply(lambda r: "-" * r["a"], axis=1)',
        'frame.apply(lambda r: "big" if r["a"] > 1 else 0, axis=1)',
        'frame.apply(lambda r: "big" if r["a"] > 1 else r["a"], axis=1)',
        'frame.apply(lambda r: r["a"] if r["flag"] else 0, axis=1)',
        "frame.apply(lambda r: sum(r), axis=1)",
        "frame.apply(lambda r: 1, axis=1)",
        # NumPy computes other values than Python does on a row of mixed dtypes (Python objects)
        'frame.apply(lambda r: r["a"] ** 40, axis=1)',
        'frame.apply(lambda r: r["a"] ** 0.5, axis=1)',
        'frame.apply(lambda r: r["a"] ** -1, axis=1)',
        'frame.apply(lambda r: r["a"] ** r["b"], axis=1)',
        'frame.apply(lambda r: fmt % r["a"], axis=1)',
        'frame.apply(lambda r: -r["flag"], axis=1)',
        'frame.apply(lambda r: -(r["a"] if r["a"] > 1 else r["b"]), axis=1)',
        'frame.apply(lambda r: -(r["a"] * r["b"]), axis=1)',
        'frame.apply(lambda r: r["a"] + r["a"], axis=1)',
        'frame.apply(lambda r: r["a"] // r["b"], axis=1)',
        'frame.apply(lambda r: 3 % r["b"], axis=1)',
        'frame.apply(lambda r: (r["a"] > 0) + True, axis=1)',
        'frame.apply(lambda r: (r["a"] > 0) - (r["b"] > 0), axis=1)',
        'frame.apply(lambda r: r["a"] + 2 ** 64, axis=1)',
        # Python skips what the guard rules out; the column expression computes every part
        'frame.apply(lambda r: total > 0 and r["a"] > "m", axis=1)',
        'frame.apply(lambda r: r["a"] if total > 0 else 0, axis=1)',
        'frame.apply(lambda r: round(r["a"] if r["a"] > 0 else 0.5), axis=1)',
    ],
)
def test_declined_shapes_get_a_display_only_suggestion(call):
    source = PANDAS + (
        f"offsets = pd.Series([1, 2])\nfmt = '%d'\ntotal = 0\n\n\ndef score(row):\n    return 1\n\n\nresult = {call}\n"
    )
    _assert_display_only(source)


@pytest.mark.parametrize(
    ("body", "rewrite"),
    [
        ('r["a"] ** 2', 'frame["a"] ** 2'),
        ('r["a"] - r["b"]', 'frame["a"] - frame["b"]'),
        ('r["a"] % 3', 'frame["a"] % 3'),
        ('-(r["a"] * 2)', '-(frame["a"] * 2)'),
        ('r["a"] / abs(total)', 'frame["a"] / abs(total)'),
        ('(r["a"] > 0) * 3', '(frame["a"] > 0) * 3'),
    ],
)
def test_near_misses_of_the_declined_shapes_are_rewritten(body, rewrite):
    source = PANDAS + f"total = 4\nresult = frame.apply(lambda r: {body}, axis=1)\n"
    assert idempotent_fix(source) == PANDAS + f"total = 4\nresult = {rewrite}\n"


# -- executed before and after ---------------------------------------------------------

SETUP = """\
data = pd.DataFrame({"a": rng.integers(-5, 5, N), "b": rng.uniform(-1, 1, N), "up": rng.uniform(-1, 1, N)},
                    index=pd.RangeIndex(N) * 3 + 7)"""


@pytest.mark.parametrize(
    "body",
    [
        'r["a"] * 2 + r["b"]',
        'r["a"] > 0 and r["b"] < 0.5 or r["up"] == 0',
        'not r["a"] > 0',
        'abs(r["a"]) - round(r["b"], 1)',
        '"pos" if r["a"] > 0 else "neg"',
        '(1 if r["up"] > 0 else -1) * r["b"]',
        '"big" if r["a"] > 3 else "mid" if r["a"] > 0 else "small"',
        '1.5 if r["a"] > 0 else r["b"]',
    ],
)
@pytest.mark.parametrize("stored", [False, True])
def test_rewrites_compute_the_same_values(body, stored):
    if stored:
        source = f'def run(data):\n    data["out"] = data.apply(lambda r: {body}, axis=1)\n    return data\n'
    else:
        source = f"def run(data):\n    return data.apply(lambda r: {body}, axis=1)\n"
    source = "import pandas as pd\n\n\n" + source.replace("def run(data)", "def run(data: pd.DataFrame)")
    fixed = idempotent_fix(source)
    assert "apply" not in fixed
    for n in (0, 1, 7, 60):
        before = run_example(SETUP, source, "run(data)", n=n)
        after = run_example(SETUP, fixed, "run(data)", n=n)
        assert type(after) is type(before)
        assert_same_result(before, after, strict=False)
        if isinstance(before, pd.Series):
            pd.testing.assert_index_equal(after.index, before.index)


#: Frames whose rows hold Python objects (mixed dtypes) or NumPy scalars (one dtype).
EDGE_FRAMES = {
    "mixed": 'pd.DataFrame({"a": [3, -5, 10**9, 1], "b": [2.5, -1.0, 7.0, np.nan], "t": list("wxyz")})',
    "ints": 'pd.DataFrame({"a": [3, -5, 10**9, 1], "b": [2, -1, 7, 4]})',
    "floats": 'pd.DataFrame({"a": [-4.0, np.nan, 2.5], "b": [0.5, -1.0, 3.0]})',
    "negative-floats-mixed": 'pd.DataFrame({"a": [-4.0, -0.5], "b": [1.0, 2.0], "t": ["u", "v"]})',
    "flags-mixed": 'pd.DataFrame({"a": [True, False], "b": [1.5, 2.0], "t": ["u", "v"]})',
}
EDGE_BODIES = [
    'r["a"] ** 3',
    'r["a"] ** 40',
    'r["a"] ** 0.5',
    'r["a"] ** -1',
    'r["a"] ** 2',
    'fmt % r["a"]',
    'r["a"] % 3',
    '-r["a"]',
    '(r["a"] > 0) + True',
    '(r["a"] > 0) * 3',
    'r["a"] / abs(total)',
    'r["a"] - r["b"]',
    'abs(r["a"]) + r["b"] * 2',
    'r["a"] + 2 ** 64',
    'total < 0 and r["t"] > 1',
    'round(r["a"] if r["a"] > 0 else 0.5)',
    'r["a"] > 0 and r["b"] < 1',
    'abs(r["a"] if r["a"] > 0 else r["b"])',
]


@pytest.mark.parametrize("body", EDGE_BODIES)
def test_rewrites_keep_python_values_on_rows_of_python_objects(body):
    """What a row rewrite computes is what the lambda computed for every row, where the
    frame has rows (the rows of a mixed frame hold Python ints, floats and bools)."""
    source = (
        "import numpy as np\nimport pandas as pd\n\nfmt = '%.1f'\n\n\n"
        f"def run(frame: pd.DataFrame, total):\n    return frame.apply(lambda r: {body}, axis=1)\n"
    )
    fixed = idempotent_fix(source)
    before_namespace: dict = {}
    after_namespace: dict = {}
    exec(source, before_namespace)
    exec(fixed, after_namespace)
    for code in EDGE_FRAMES.values():
        try:
            before = before_namespace["run"](eval(code), 4)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        after = after_namespace["run"](eval(code), 4)
        assert_same_result(before, after, strict=False)


# -- the pandas behaviour the "Fix safety" section describes ------------------------------


def test_pandas_probes_an_empty_frame_with_a_row_of_nan():
    empty = pd.DataFrame({"first": pd.Series([], dtype=str), "n": pd.Series([], dtype="int64")})
    # the probe succeeds: an empty Series, like the column expression
    assert isinstance(empty.apply(lambda r: r["n"] * 2, axis=1), pd.Series)  # noqa: GPU104
    assert isinstance(empty.apply(lambda r: "a" if r["n"] > 0 else "b", axis=1), pd.Series)  # noqa: GPU104
    # the probe fails on NaN: pandas returns an empty copy of the frame instead
    for function in (
        lambda r: r["first"] + "!",
        lambda r: r["first"] < "m",
        lambda r: round(r["n"]),
        lambda r: r["missing"] * 2,
    ):
        result = empty.apply(function, axis=1)  # noqa: GPU104
        assert isinstance(result, pd.DataFrame) and list(result.columns) == ["first", "n"]
    assert isinstance(empty["first"] + "!", pd.Series)
    # and storing that copy in a column fails, where the rewrite stores an empty column
    with pytest.raises(ValueError):
        empty["shout"] = empty.apply(lambda r: r["first"] + "!", axis=1)  # noqa: GPU104
    empty["shout"] = empty["first"] + "!"
    assert list(empty.columns) == ["first", "n", "shout"]


def test_np_where_alone_is_an_array_and_needs_the_frame_index():
    frame = pd.DataFrame({"x": [1, 20]}, index=[10, 20])
    assert isinstance(np.where(frame["x"] > 10, "hi", "lo"), np.ndarray)
    wrapped = pd.Series(np.where(frame["x"] > 10, "hi", "lo"), index=frame.index)
    expected = frame.apply(lambda r: "hi" if r["x"] > 10 else "lo", axis=1)  # noqa: GPU104
    pd.testing.assert_series_equal(wrapped, expected)


@pytest.mark.parametrize(
    ("function", "reported"),
    [
        ("lambda row: row['ids'][row['start']:row['stop']]", False),
        ("lambda row: row['ids'][row['start']:]", False),
        ("lambda row: row['ids'][row['position']]", False),
        # cut by constants, or a field used as a bound of something else: a column form exists
        ("lambda row: row['ids'][:5]", True),
        ("lambda row: row['a'] * row['b']", True),
    ],
)
def test_a_row_cutting_its_own_field_by_its_fields_is_not_reported(function, reported):
    source = f"import pandas as pd\n\ntokens = pd.read_parquet('t.parquet')\nkept = tokens.apply({function}, axis=1)\n"
    assert [d.code for d in lint_source(source) if d.code == "GPU104"] == (["GPU104"] if reported else [])


@pytest.mark.parametrize(
    "frame",
    [
        "pd.DataFrame(np.random.standard_normal((4, 3)), columns=list('abc'))",
        "pd.DataFrame({'a': [1, 2], 'b': [3, 4]})",
        "pd.read_csv('big.csv').head()",
    ],
)
def test_a_frame_of_a_few_rows_is_not_reported(frame):
    source = (
        f"import numpy as np\nimport pandas as pd\n\nframe = {frame}\n"
        "total = frame.apply(lambda row: row['a'] + row['b'], axis=1)\n"
    )
    assert [d for d in lint_source(source) if d.code == "GPU104"] == []
