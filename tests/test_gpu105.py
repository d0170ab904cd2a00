"""GPU105 elementwise-apply: which functions have a vectorized form, the rewrites, and
why none of them is safe."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import findings, idempotent_fix

HEADER = "import string\n\nimport numpy as np\nimport pandas as pd\n\nframe = pd.read_csv('data.csv')\ns = frame['a']\n"


_findings = partial(findings, code="GPU105")


@pytest.mark.parametrize(
    ("call", "rewrite"),
    [
        ("s.apply(abs)", "s.abs()"),
        ("s.map(float)", "s.astype(float)"),
        ("s.apply(int)", "s.astype(int)"),
        ("s.apply(bool)", "s.astype(bool)"),
        ("s.apply(round)", "s.round()"),
        ("s.apply(len)", "s.str.len()"),
        ("s.apply(str.lower)", "s.str.lower()"),
        ("s.map(str.upper, na_action='ignore')", "s.str.upper()"),
        ("s.map(lambda x: x * 2 + len(x), na_action='ignore')", "s * 2 + s.str.len()"),
        ("s.map(lambda x: x > 1, na_action=None)", "s > 1"),
        ("s.apply(func=str.title)", "s.str.title()"),
        ("s.map(arg=lambda x: x * 2)", "s * 2"),
        ("s.apply(lambda x: x * 2 + 1)", "s * 2 + 1"),
        ("s.apply(lambda x: -x ** 2)", "-s ** 2"),
        ("s.apply(lambda x: x > 3)", "s > 3"),
        ("s.apply(lambda x: abs(x - 1))", "abs(s - 1)"),
        ("s.apply(lambda x: float(x) / 2)", "s.astype(float) / 2"),
        ("s.apply(lambda x: len(x.strip()))", "s.str.strip().str.len()"),
        ("s.apply(lambda x: x.strip('-').upper())", "s.str.strip('-').str.upper()"),
        ("s.apply(lambda x: (x.strip() + '!').lower())", "(s.str.strip() + '!').str.lower()"),
        ("s.apply(lambda x: x == 'a')", "s == 'a'"),
        ("s.apply(lambda lower: lower.lower())", "s.str.lower()"),
        ("frame['a'].apply(lambda x: x * rate)", "frame['a'] * rate"),
        ("frame.map(abs)", "frame.abs()"),
        ("frame.applymap(lambda v: v * 10)", "frame * 10"),
        ("frame.map(float)", "frame.astype(float)"),
        # only what reads the element changes; the rest stays one Python computation
        ("s.apply(lambda x: x / float(rate))", "s / float(rate)"),
        ("s.apply(lambda x: x * int(rate) + len('ab'))", "s * int(rate) + len('ab')"),
        ("s.apply(lambda x: int(rate) - abs(x))", "int(rate) - abs(s)"),
        ("s.apply(lambda x: x.strip() + '-'.upper())", "s.str.strip() + '-'.upper()"),
        ("s.apply(lambda x: round(x) + round(rate, 2))", "round(s) + round(rate, 2)"),
        ("frame.map(lambda v: v * len('ab'.strip()))", "frame * len('ab'.strip())"),
        ("s.map(lambda x: x)", "s.copy()"),
        ("s.apply(lambda x: x ** 2)", "s ** 2"),
        ("s.apply(lambda x: x % 2)", "s % 2"),
        ("s.apply(lambda x: 10 % x)", "10 % s"),
        ("s.apply(lambda x: x * 2 + x)", "s * 2 + s"),
        ("s.apply(lambda x: -(x * 2))", "-(s * 2)"),
        ("s.apply(lambda x: x * 10 ** 9)", "s * 10 ** 9"),
        ("s.apply(lambda x: x > 2 ** 62)", "s > 2 ** 62"),
    ],
)
def test_rewrites(call, rewrite):
    source = HEADER + f"rate = 0.2\nresult = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert idempotent_fix(source) == HEADER + f"rate = 0.2\nresult = {rewrite}\n"


@pytest.mark.parametrize(
    ("statement", "rewrite"),
    [
        ("total = s.apply(lambda x: x * 2).sum()", "total = (s * 2).sum()"),
        ("total = 1 - s.map(lambda x: x + 1)", "total = 1 - (s + 1)"),
        ("total = (s + s).apply(lambda x: x * 2)", "total = (s + s) * 2"),
        ("total = s.apply(lambda x: x * 2)[0]", "total = (s * 2)[0]"),
        ("print(s.apply(lambda x: x * 2))", "print(s * 2)"),
        ("total = s.apply(abs).sum()", "total = s.abs().sum()"),
    ],
)
def test_rewrites_keep_their_precedence(statement, rewrite):
    assert idempotent_fix(HEADER + statement + "\n") == HEADER + rewrite + "\n"


@pytest.mark.parametrize(
    "call",
    [
        "s.apply(str)",  # astype(str) keeps missing values missing
        "s.apply(lambda x: round(x, 2))",  # NumPy rounds through a scaled float
        "s.apply(lambda x: 1 if x > 0 else 0)",  # np.where returns an array
        "s.apply(lambda x: x * 2, args=())",
        "s.apply(lambda x: x * 2, convert_dtype=False)",
        "frame['a'].fillna(0).apply(lambda x: x * x)",  # the receiver would be computed twice
        "frame.map(str.lower)",  # a DataFrame has no `.str`
        "frame.map(len)",
        "frame.map(lambda v: v.strip())",
        "s.apply(\n    lambda x: x * 2,  # doubled\n)",
        # `%` formats one string per element, but the whole column at once when vectorized
        "s.apply(lambda x: '%.2f' % x)",
        "s.apply(lambda x: fmt % x)",
        "s.apply(lambda x: x.strip() % 2)",
        "s.apply(lambda x: '-' * x)",
        # an alias would share later changes, and `na_action` has nothing left to skip
        "s.map(lambda x: x, na_action='ignore')",
        # with `na_action`, a missing value must stay missing: comparisons, predicates and
        # `bool` make it False or True, `int` raises on it
        "s.map(str.isdigit, na_action='ignore')",
        "s.map(int, na_action='ignore')",
        "s.map(bool, na_action='ignore')",
        "s.map(lambda x: x > 1, na_action='ignore')",
        "s.map(lambda x: x.startswith('a'), na_action='ignore')",
        "s.map(lambda x: int(x) + 1, na_action='ignore')",
        # NumPy powers: complex vs NaN, raising negative exponents, int64 wrapping from 2e6
        "s.apply(lambda x: x ** 0.5)",
        "s.apply(lambda x: x ** 3)",
        "s.apply(lambda x: x ** -1)",
        "s.apply(lambda x: x ** rate)",
        "s.apply(lambda x: 2 ** x)",
        # bools: Python makes ints of them, NumPy keeps bools (or raises)
        "s.apply(lambda x: x + x)",
        "s.apply(lambda x: x * x)",
        "s.apply(lambda x: x - x)",
        "s.apply(lambda x: -x)",
        "s.apply(lambda x: -(x > 0))",
        "s.apply(lambda x: (x > 0) + (x > 1))",
        "s.apply(lambda x: x.isdigit() + True)",
        "s.apply(lambda x: abs(x) - x)",
        "s.apply(lambda x: x - bool(rate))",
        # an int int64 cannot hold: Python ints grow, pandas raises OverflowError
        "s.apply(lambda x: x * 10 ** 20)",
        "s.apply(lambda x: x + 99999999999999999999)",
        "s.apply(lambda x: x > 10 ** 20)",
        # the element itself with a string: a categorical column refuses `+` and `<`
        "s.apply(lambda x: x + '!')",
        "s.apply(lambda x: 'id-' + x)",
        "s.apply(lambda x: (x + '!').lower())",
        "s.apply(lambda x: x < 'm')",
        # `str` methods and `len` of something that is no string raise for every element, but
        # `apply` on an empty Series returns where `.str` on an int Series raises
        "s.apply(lambda x: len(x).lower())",
        "s.apply(lambda x: len(len(x)))",
        "s.apply(lambda x: (x > 'a').upper())",
        # `str` methods whose column form takes arguments: a missing value stays missing there
        "s.apply(lambda x: x.replace(',', ''))",
        "s.apply(lambda t: t.lower().translate(str.maketrans('', '', string.punctuation)))",
    ],
)
def test_declined_rewrites_get_a_suggestion(call):
    source = HEADER + f"fmt = '%d'\nresult = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and finding.fix.edits == ()
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "call",
    [
        "s.apply(np.sqrt)",  # pandas hands a ufunc the whole column
        "s.apply('sum')",
        "s.map({1: 'one'})",
        "s.map(other)",  # a Series: a lookup
        "s.apply(parse)",
        "s.apply(lambda x: parse(x))",
        "s.apply(lambda x: x.split(','))",
        "s.apply(lambda x: x.replace(',', x))",  # the element in the arguments
        "s.apply(lambda x: x.replace(old, ''))",  # a pattern the code does not spell out
        "s.apply(lambda x: x.translate(x))",
        "s.apply(lambda x: x * weights)",  # an array per element
        "s.apply(lambda x: 2)",  # does not use the element
        "s.apply(lambda x, y: x + y)",
        "s.apply(lambda *xs: xs)",
        "s.apply(lambda x: x * 2, by_row=False)",
        "frame.apply(abs)",  # column-wise
        "frame.apply(lambda column: column * 2)",
        "frame.groupby('k').apply(lambda g: g * 2)",
        "items.map(abs)",
    ],
)
def test_not_flagged(call):
    source = (
        HEADER
        + ("other = pd.Series([1])\nweights = np.ones(3)\nitems = [1, 2]\n\n\ndef parse(x):\n    return x\n\n\n")
        + f"result = {call}\n"
    )
    assert _findings(source) == []


def test_shadowed_builtins_are_not_builtins():
    source = HEADER + "\n\ndef len(x):\n    return 1\n\n\nresult = s.apply(len)\n"
    assert _findings(source) == []


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("import cudf\nframe = cudf.read_csv('a.csv')\n", {"GPU104": 0, "GPU105": 0}),
        ("import dask.dataframe as dd\nframe = dd.read_csv('a-*.csv')\n", {"GPU104": 1, "GPU105": 1}),
        ("import modin.pandas as pd\nframe = pd.read_csv('a.csv')\n", {"GPU104": 1, "GPU105": 1}),
        ("import pandas as pd\nframe = pd.read_csv('a.csv')\n", {"GPU104": 1, "GPU105": 1}),
    ],
    ids=["cudf", "dask", "modin", "pandas"],
)
def test_cudf_udfs_are_compiled_and_dask_still_loops(setup, expected):
    source = setup + (
        "rows = frame.apply(lambda r: r['a'] + r['b'], axis=1)\nelements = frame['a'].apply(lambda x: x * 2)\n"
    )
    codes = [d.code for d in lint_source(source)]
    assert {code: codes.count(code) for code in expected} == expected


def test_dask_gets_a_suggestion_only():
    source = (
        "import dask.dataframe as dd\nframe = dd.read_csv('a-*.csv')\nout = frame['a'].apply(abs, meta=('a', 'f8'))\n"
    )
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY


# -- executed: the rewrite gives the original's values wherever the original returns -----------

COLUMNS = {
    "numbers": "pd.Series(rng.normal(size=N) * 10, index=pd.RangeIndex(N) * 2, name='v')",
    "ints": "pd.Series(rng.integers(-5, 5, N), name='v')",
    "numbers-with-nan": "pd.Series(rng.normal(size=N)).where(rng.uniform(size=N) > 0.3)",
    "strings": "pd.Series(rng.choice([' Ab ', 'cD', 'ß', 'İx', '12'], N))",
    "object-strings": "pd.Series(rng.choice([' Ab ', 'cD', '12'], N), dtype=object)",
    "category": "pd.Series(rng.choice(['Ab', 'cD'], N), dtype='category')",
    "strings-with-none": "pd.Series(rng.choice(['Ab', 'cD'], N), dtype=object).where(rng.uniform(size=N) > 0.3, None)",
}
CALLS = [
    "s.apply(abs)",
    "s.map(float)",
    "s.apply(round)",
    "s.apply(lambda x: x * 3 - 1)",
    "s.apply(lambda x: x >= 0)",
    "s.apply(str.lower)",
    "s.apply(str.upper)",
    "s.map(lambda x: x + 1, na_action='ignore')",
    "s.apply(lambda x: x.strip().lower())",
    "s.apply(len)",
    "s.map(str.strip, na_action='ignore')",
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("column", list(COLUMNS))
def test_rewrite_has_the_same_values_where_the_original_returns(column, call):
    source = f"import pandas as pd\n\n\ndef run(s: pd.Series):\n    return {call}\n"
    fixed = idempotent_fix(source)
    assert fixed != source
    setup = f"s = {COLUMNS[column]}"
    for n in (1, 7, 100):
        try:
            before = run_example(setup, source, "run(s)", n=n)
        except (TypeError, ValueError, AttributeError):
            continue  # the element function refuses this column: nothing to preserve
        try:
            after = run_example(setup, fixed, "run(s)", n=n)
        except AttributeError:
            # documented: a non-string column with no value to call the function on
            # (`na_action="ignore"` skipped them all) has no `.str` accessor
            assert before.isna().all() and "str" in fixed, before
            continue
        assert_same_result(_plain(before), _plain(after), strict=False)


def _plain(result: pd.Series) -> pd.Series:
    """Values as Python objects, every missing value as None: the dtype (`str`, `object`,
    `category`) and the spelling of a missing value (NaN, None) are what the unsafe fix
    may change."""
    values = result.astype(object)
    return values.where(values.notna(), None)


def test_str_accessor_is_not_identical_to_the_str_method():
    """Why no GPU105 fix is safe: on an object column the element-wise call returns pandas'
    string dtype where the accessor keeps `object`, and on an empty float column the
    accessor raises where `apply` returns the column."""
    strings = pd.Series(["Ab", "cD"], dtype=object)
    assert strings.apply(str.lower).dtype != strings.str.lower().dtype  # noqa: GPU105
    empty = pd.Series([], dtype=float)
    assert empty.apply(str.lower).dtype == np.float64  # noqa: GPU105
    with pytest.raises(AttributeError):
        empty.str.lower()


#: Odd but valid code, and how many GPU105 findings each holds.
ODD_CODE = {
    "star-target": ("for *rest, last in [[1, 2]]:\n    out = s.apply(lambda x: x * last)\n", 1),
    "walrus": ("if (t := s.apply(abs)) is not None:\n    print(t)\n", 1),
    "walrus-in-lambda": ("out = s.apply(lambda x: (y := x * 2))\n", 0),
    "nested-def-in-loop": ("for i in range(2):\n    def f():\n        return s.apply(str.lower)\n", 1),
    "class-in-loop": ("for i in range(2):\n    class C:\n        out = s.apply(abs)\n", 1),
    "async-for": ("async def go(items):\n    async for item in items:\n        print(s.apply(abs))\n", 1),
    "loop-else": ("for i in range(2):\n    pass\nelse:\n    out = s.apply(abs)\n", 1),
    "match": ("match s.apply(abs):\n    case object():\n        pass\n", 1),
}


@pytest.mark.parametrize(("body", "count"), list(ODD_CODE.values()), ids=list(ODD_CODE))
def test_odd_but_valid_code_is_handled(body, count):
    source = HEADER + body
    assert len(_findings(source)) == count
    idempotent_fix(source)


# -- executed on edge values: a rewrite never raises where `apply` returns, nor changes a value ----

#: Edge Series, as code (`total` and `k` are the scalars the lambdas read from outside).
EDGE_SERIES = {
    "empty-str": "pd.Series([], dtype='str')",
    "ints": "pd.Series([0, 3, -5, 7, 1])",
    "ints-near-1e9": "pd.Series([10**9, -10**9 + 7, 3])",
    "bools": "pd.Series([True, False, True])",
    "floats-nan-negative": "pd.Series([1.5, np.nan, -2.25, 0.0, -4.0])",
    "Int64-NA": "pd.Series([1, None, -3], dtype='Int64')",
    "boolean-NA": "pd.Series([True, None, False], dtype='boolean')",
    "object-strings": "pd.Series([' Ab ', 'cD', '12'], dtype=object)",
    "str-strings-missing": "pd.Series([' Ab ', None, '12'])",
    "empty-float": "pd.Series([], dtype=float)",
    "empty-object": "pd.Series([], dtype=object)",
}
#: Lambda bodies: the shapes whose rewrites used to raise or change values, and near misses.
EDGE_BODIES = [
    "x / float(total)",
    "x * int(k) - len('ab')",
    "x + bool(k) * 2",
    "float(total) / (x + 0.5)",
    "round(x) + round(total, 1)",
    "x + '-'.strip()",
    "'%.2f' % x",
    "'%d items' % x",
    "x % 3",
    "7 % (x + 10)",
    "x ** 3",
    "x ** 2",
    "x ** 0.5",
    "x ** -1",
    "2 ** (x % 4)",
    "x ** 0",
    "x + x",
    "x * x",
    "x - x",
    "-x",
    "+x",
    "-(x > 0)",
    "(x > 0) + (x < 2)",
    "(x > 0) * 3",
    "x * 2 + 1",
    "x * 10 ** 20",
    "x > 10 ** 20",
    "abs(x - 1)",
    "abs(x) - x",
    "float(x) / 2",
    "int(x) + 1",
    "bool(x)",
    "x > 0",
    "x == 1",
    "x",
    "x.strip().lower()",
    "len(x) + len('ab')",
    "x.upper() + '!'",
    "len(x).lower()",
    "len(x.strip() + '!')",
    "'-' * (x % 3)",
    "x * 2",
    "x // 3",
    "x.isdigit() + True",
    "x.isdigit() * 1",
]


def _documented(series: str, rewrite: str) -> bool:
    """A Series with no values of a non-string dtype: `.str` raises there (the rule's Fix
    safety names it)."""
    return series == "empty-float" and ".str" in rewrite


@pytest.mark.parametrize("body", EDGE_BODIES)
def test_rewrites_run_on_edge_values(body):
    source = (
        "import numpy as np\nimport pandas as pd\n\n\n"
        f"def run(s: pd.Series, total, k):\n    return s.apply(lambda x: {body})\n"
    )
    fixed = idempotent_fix(source)
    rewrite = fixed.splitlines()[-1]
    before_namespace: dict = {}
    after_namespace: dict = {}
    exec(source, before_namespace)
    exec(fixed, after_namespace)
    for name, code in EDGE_SERIES.items():
        try:
            before = before_namespace["run"](eval(code), 4, 3)
        except (TypeError, ValueError, AttributeError, ZeroDivisionError, OverflowError):
            continue  # the element function refuses these values: nothing to preserve
        series = eval(code)
        try:
            after = after_namespace["run"](series, 4, 3)
        except Exception:
            if _documented(name, rewrite):
                continue
            raise
        assert isinstance(after, pd.Series) and after is not series, (name, rewrite)
        assert _plain(before).tolist() == _plain(after).tolist(), (name, rewrite)


def test_string_categoricals_keep_what_apply_computes():
    """`apply` on a categorical column maps its categories; the `.str` methods give plain
    strings that `+` accepts, but the categorical itself refuses `+` and `<`."""
    categories = pd.Series([" Ab", "cD ", " Ab"], dtype="category")
    with pytest.raises(TypeError):
        categories + "!"
    source = "import pandas as pd\n\n\ndef run(s: pd.Series):\n    return s.apply(lambda x: x.strip() + '!')\n"
    fixed = idempotent_fix(source)
    assert "apply" not in fixed
    before = run_example("s = pd.Series([' Ab', 'cD ', ' Ab'], dtype='category')", source, "run(s)", n=3)
    after = run_example("s = pd.Series([' Ab', 'cD ', ' Ab'], dtype='category')", fixed, "run(s)", n=3)
    assert _plain(before).tolist() == _plain(after).tolist()


@pytest.mark.parametrize(
    ("values", "reported"),
    [
        ("pd.DataFrame([['M', 1], ['XL', 2], ['L', 3]], columns=['size', 'n'])['size']", False),
        ("pd.Series(['M', 'XL', 'L'])", False),
        ("pd.read_csv('sizes.csv')['size'].head(10)", False),
        ("pd.read_csv('sizes.csv')['size']", True),
        ("pd.Series(['M', 'XL', 'L'] * count)", True),
    ],
)
def test_a_few_values_are_not_reported(values, reported):
    source = f"import pandas as pd\n\nsizes = {values}\nflags = sizes.apply(lambda x: 1 if x == 'XL' else 0)\n"
    assert [d.code for d in lint_source(source) if d.code == "GPU105"] == (["GPU105"] if reported else [])


# -- a timestamp's parts: the `.dt` accessor's ---------------------------------------------------

_DATES = "import pandas as pd\n\nstamps = pd.to_datetime(pd.read_csv('data.csv')['date'])\n"
_DURATIONS = (
    "import pandas as pd\n\ntrips = pd.read_parquet('trips.parquet')\ndurations = trips['dropoff'] - trips['pickup']\n"
)


@pytest.mark.parametrize(
    ("head", "call"),
    [
        (_DATES, "stamps.apply(lambda t: t.month)"),
        (_DATES, "stamps.map(lambda t: t.weekday())"),
        (_DATES, "stamps.apply(lambda t: t.hour * 60 + t.minute)"),
        (_DATES, "stamps.apply(lambda t: t.strftime('%Y-%m'))"),
        (_DATES, "stamps.apply(lambda row: row.month, 1)"),
        # a duration's: `.dt.total_seconds()`, `.dt.days` on a timedelta column
        (_DURATIONS, "durations.apply(lambda td: td.total_seconds() / 60)"),
        (_DURATIONS, "durations.map(lambda td: td.days)"),
        (_DURATIONS, "durations.apply(lambda td: td.seconds // 3600)"),
    ],
)
def test_a_timestamps_or_durations_parts_read_per_element_are_flagged_and_shown_not_rewritten(head, call):
    source = head + f"result = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and "`.dt` accessor" in finding.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "call",
    [
        "stamps.apply(lambda t: t.to_period('M'))",  # not a part with a `.dt` twin here
        "stamps.apply(lambda t: t.month.bit_length())",  # a method of the part, not of the element
        "stamps.apply(lambda t: other.month)",  # does not read the element
        "stamps.apply(lambda t: t.strftime(fmt))",  # a format known only at run time
        "frame.map(lambda t: t.month)",  # a frame has no `.dt`
        "[t.month for t in stamps]",  # not apply/map
    ],
)
def test_a_timestamps_parts_near_misses(call):
    source = _DATES + f"frame = pd.read_csv('data.csv')\nother = stamps[0]\nfmt = '%Y'\nresult = {call}\n"
    assert _findings(source) == []


@pytest.mark.parametrize(
    "call",
    [
        "durations.apply(lambda td: td.total_seconds(unit))",  # an argument the `.dt` form does not take
        "durations.apply(lambda td: td.days.bit_length())",  # a method of the part
        "durations.apply(lambda td: other.total_seconds())",  # does not read the element
    ],
)
def test_a_durations_parts_near_misses(call):
    source = _DURATIONS + f"other = durations[0]\nunit = 's'\nresult = {call}\n"
    assert _findings(source) == []


@pytest.mark.parametrize("call", ["s.apply(lambda x: len(x.split()))", "s.map(lambda x: len(x.split(',')))"])
def test_words_counted_per_element_are_flagged_with_a_suggestion(call):
    # `s.str.split().str.len()` counts them for the whole column (cuDF's form on a GPU); the
    # rewrite is shown, not written
    source = HEADER + f"result = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "call",
    [
        "s.apply(lambda x: x.split())",  # a list per element: nothing to gain
        "s.apply(lambda x: len(x.split(sep)))",  # a separator known only at run time
        "s.apply(lambda x: len(x.split(maxsplit=1)))",
        "s.apply(lambda x: len(other.split()))",  # not the element's words
    ],
)
def test_words_counted_near_misses(call):
    source = HEADER + f"sep = load()\nother = 'a b'\nresult = {call}\n"
    assert _findings(source) == []


SHOWN_FORMS = {
    "min with a number": ("s.map(lambda x: min(x, 1))", "`clip`"),
    "max with a number first": ("s.apply(lambda x: max(0, x - 3))", "`clip`"),
    "membership in a list": ('s.apply(lambda x: x in ["a", "b", "c"])', "`isin`"),
    "not in a tuple, in a conditional": ("s.apply(lambda x: 'other' if x not in ('a', 'b') else x)", "`isin`"),
    "length of the text": ("s.apply(lambda x: len(str(x)))", "`.astype(str)`"),
    "words of the text": ("s.apply(lambda x: len(str(x).split()))", "`.astype(str)`"),
}


@pytest.mark.parametrize(("call", "why"), list(SHOWN_FORMS.values()), ids=list(SHOWN_FORMS))
def test_forms_shown_but_not_written(call, why):
    """A clip, a membership test and the length of an element's text have a column form
    (`clip`, `isin`, `.astype(str).str.len()`) that treats missing values otherwise: the
    finding shows it, and `--show-fixes` says why it is not written."""
    source = HEADER + f"result = {call}\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and finding.fix.edits == ()
    assert why in (finding.fix.declined or "")
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "call",
    [
        "s.map(lambda x: min(x, limit))",  # no number: a name that may hold a Series
        "s.map(lambda x: min(x, 1, 2))",
        "s.map(lambda x: max(x, key=len))",
        "s.apply(lambda x: min(x))",  # the element is a collection
        "s.apply(lambda x: x in allowed)",  # a collection the code does not show
        "s.apply(lambda x: x in letters)",  # a string: `in` finds substrings
        "s.apply(lambda x: x in table)",  # a dict
        "s.apply(lambda x: 'a' in x)",  # a substring test: `.str.contains`
        "s.apply(lambda x: x in [])",
        "s.apply(lambda x: len(str(x, 'utf-8')))",  # decoding bytes
        "s.apply(lambda x: len(repr(x)))",
    ],
)
def test_near_misses_of_the_shown_forms(call):
    source = HEADER + "limit = 3\nallowed = load()\nletters = 'abc'\ntable = dict(a=1)\n" + f"result = {call}\n"
    assert _findings(source) == []


@pytest.mark.parametrize(
    "bound",
    ["known = set(top)\n", "known = {c for c in top}\n", "known = frozenset(top)\n", "known = [c for c in top]\n"],
    ids=["set-call", "set-comprehension", "frozenset-call", "list-comprehension"],
)
def test_membership_in_a_collection_the_code_builds_is_shown_as_isin(bound):
    source = HEADER + "top = load()\n" + bound + "result = s.apply(lambda x: x if x in known else 'Other')\n"
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and "`isin`" in (finding.fix.declined or "")


@pytest.mark.parametrize(
    ("selection", "flagged"),
    [
        ("frame[['date'] + cols + [target]]", True),  # lists joined with `+`: a column selection
        ("frame[cols + ['date']]", True),
        ("frame[['date']][10:20]", True),
        ("frame[offset + 1]", False),  # near-miss: a number, not labels: nothing known
    ],
)
def test_a_frame_selected_by_joined_label_lists_is_a_frame(selection, flagged):
    source = (
        HEADER
        + "cols = list(frame.columns)\ntarget, offset = 'y', 3\n"
        + f"stamps = {selection}\nstamps['month'] = stamps.date.apply(lambda t: t.month)\n"
    )
    assert bool(_findings(source)) is flagged
