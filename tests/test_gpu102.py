"""GPU102 iterrows-loop: what the fixer rewrites, and what it must leave to a suggestion."""

from __future__ import annotations

from functools import partial

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import only_finding

HEADER = "import numpy as np\nimport pandas as pd\n\n\ndef f(df: pd.DataFrame, rate: float = 0.2):\n"


_only = partial(only_finding, code="GPU102")


@pytest.mark.parametrize(
    "body",
    [
        # an array used whole inside the row expression would broadcast differently
        "    weights = np.ones(3)\n    out = []\n    for _, row in df.iterrows():\n"
        "        out.append(row['a'] * weights)\n    return out\n",
        # no empty list right before the loop: `out` may be anything
        "    out = [0]\n    for _, row in df.iterrows():\n        out.append(row['a'] * 2)\n    return out\n",
        # `%` on a string formats the whole column into one string
        "    out = []\n    for _, row in df.iterrows():\n        out.append('%s' % row['a'])\n    return out\n",
        # the loop's else clause runs after it: not a single computation
        "    out = []\n    for _, row in df.iterrows():\n        out.append(row['a'])\n    else:\n"
        "        out.append(0)\n    return out\n",
        # the index label is used: positional semantics unknown
        "    out = []\n    for i, row in df.iterrows():\n        out.append(row['a'] * i)\n    return out\n",
        # a row attribute may be a Series attribute (`row.name` is the label)
        "    out = []\n    for _, row in df.iterrows():\n        out.append(row.a * 2)\n    return out\n",
        # more than one statement in the body
        "    out = []\n    for _, row in df.iterrows():\n        x = row['a']\n        out.append(x)\n    return out\n",
        # a receiver that is a call would be evaluated once per column reference
        "    out = []\n    for _, row in df.dropna().iterrows():\n        out.append(row['a'] + row['b'])\n    return out\n",
        # mixed string / number branches: np.where would turn the number into a string
        "    return ['big' if row['a'] > 1 else row['b'] for _, row in df.iterrows()]\n",
        # a filtered comprehension changes the length
        "    return [row['a'] for _, row in df.iterrows() if row['b'] > 0]\n",
    ],
)
def test_shapes_that_only_get_a_suggestion(body):
    source = HEADER + body
    diagnostic = _only(source)
    assert diagnostic.fix is not None and diagnostic.fix.applicability is Applicability.DISPLAY
    assert "itertuples" in diagnostic.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


def test_outer_scalar_name_is_kept_and_result_matches():
    body = "    out = []\n    for _, row in df.iterrows():\n        out.append(row['a'] * rate + 1)\n    return out\n"
    source = HEADER + body
    assert _only(source).fix.applicability is Applicability.UNSAFE
    fixed = fix_text(source, unsafe_fixes=True)
    assert "out = (df['a'] * rate + 1).tolist()" in fixed
    setup = "df = pd.DataFrame({'a': rng.integers(0, 9, N)})"
    for n in (0, 3, 50):
        before = run_example(setup, source, "f(df)", n=n)
        after = run_example(setup, fixed, "f(df)", n=n)
        assert_same_result(before, after, strict=False)


def test_chained_frames_and_aliases_are_followed():
    source = (
        "from pandas import read_csv as load\n\n"
        "frame = load('x.csv').dropna()\n"
        "for _, row in frame.iterrows():\n"
        "    print(row)\n"
    )
    assert _only(source).start.line == 4


def test_a_local_class_with_iterrows_is_not_a_frame():
    source = (
        "class Rows:\n    def iterrows(self):\n        return []\n\n"
        "rows = Rows()\nfor _, r in rows.iterrows():\n    pass\n"
    )
    assert lint_source(source) == []


def test_noqa_silences_the_loop():
    source = "import pandas as pd\nfor _, r in pd.read_csv('a').iterrows():  # noqa: GPU102\n    pass\n"
    assert lint_source(source) == []


# -- the library decides whether the rewrite means the same ----------------------------

LOOP = "out = []\nfor _, row in frame.iterrows():\n    out.append(row['a'] * 2)\n"
COMPREHENSION = "out = [row['a'] * 2 for _, row in frame.iterrows()]\n"
COLUMN = "for idx, row in frame.iterrows():\n    frame.loc[idx, 'b'] = row['a'] * 2\n"


@pytest.mark.parametrize("body", [LOOP, COMPREHENSION, COLUMN], ids=["loop", "comprehension", "column"])
@pytest.mark.parametrize(
    ("setup", "lib", "hint"),
    [
        ("import dask.dataframe as dd\nframe = dd.read_csv('a-*.csv')\n", "dask", ".compute()"),
        ("import cudf\nframe = cudf.read_csv('a.csv')\n", "cudf", "cuDF does not iterate rows"),
        # only `iterrows()` says it is a frame: it may as well be a Dask or cuDF one
        ("import pandas as pd\nframe = load()\n", "", "itertuples"),
    ],
    ids=["dask", "cudf", "unknown"],
)
def test_only_pandas_and_modin_frames_are_rewritten(body, setup, lib, hint):
    source = setup + body
    diagnostic = _only(source)
    assert diagnostic.context.lib == lib
    assert diagnostic.fix.applicability is Applicability.DISPLAY and diagnostic.fix.edits == ()
    assert hint in diagnostic.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "setup",
    [
        "import pandas as pd\nframe = pd.read_csv('a.csv')\n",
        "import modin.pandas as mpd\nframe = mpd.read_csv('a.csv')\n",
        # into pandas first: the rewrite applies to the pandas copy
        "import cudf\nframe = cudf.read_csv('a.csv').to_pandas()\n",
        "import dask.dataframe as dd\nframe = dd.read_csv('a-*.csv').compute()\n",
    ],
    ids=["pandas", "modin", "cudf-to-pandas", "dask-compute"],
)
def test_pandas_and_modin_frames_are_rewritten(setup):
    source = setup + LOOP
    diagnostic = _only(source)
    assert diagnostic.context.lib in ("pandas", "modin")
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=True) == setup + "out = (frame['a'] * 2).tolist()\n"


def test_a_transposed_frame_is_not_repeated_per_column():
    source = HEADER + "    return [row['a'] + row['b'] for _, row in df.T.iterrows()]\n"
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_each_chunk_of_a_chunked_reader_is_a_pandas_frame():
    source = (
        "import pandas as pd\n\n"
        "for chunk in pd.read_csv('a.csv', chunksize=1000):\n"
        "    out = []\n"
        "    for _, row in chunk.iterrows():\n"
        "        out.append(row['a'] * 2)\n"
    )
    diagnostic = _only(source)
    assert diagnostic.context.lib == "pandas"
    assert "out = (chunk['a'] * 2).tolist()" in fix_text(source, unsafe_fixes=True)


# -- the row loop's names, read after it ---------------------------------------------------------


@pytest.mark.parametrize(
    "after",
    [
        "    print('last row:', i, row['a'])\n    return out\n",
        "    return out, i\n",
        "    def last():\n        return row\n    return out, last()\n",
    ],
)
def test_a_loop_whose_names_are_read_after_it_is_not_rewritten(after):
    source = HEADER + "    out = []\n    for i, row in df.iterrows():\n        out.append(row['a'] * 2)\n" + after
    assert _only(source).fix.applicability is Applicability.DISPLAY
    assert fix_text(source, unsafe_fixes=True) == source


def test_a_column_loop_whose_label_is_read_after_it_is_not_rewritten():
    source = HEADER + "    for idx, row in df.iterrows():\n        df.loc[idx, 'b'] = row['a'] * 2\n    return idx\n"
    assert fix_text(source, unsafe_fixes=True) == source


def test_names_rebound_or_looped_over_again_after_the_loop_do_not_block_the_rewrite():
    source = HEADER + (
        "    out = []\n    for i, row in df.iterrows():\n        out.append(row['a'] * 2)\n"
        "    seen = [i for i in range(2)]\n"
        "    for i, row in df.iterrows():\n        seen.append(i)\n"
        "    return out, seen\n"
    )
    fixed = fix_text(source, unsafe_fixes=True)
    assert "    out = (df['a'] * 2).tolist()\n" in fixed
    setup = "df = pd.DataFrame({'a': rng.integers(0, 9, N)})"
    for n in (0, 3):
        assert_same_result(
            run_example(setup, source, "f(df)", n=n), run_example(setup, fixed, "f(df)", n=n), strict=False
        )


@pytest.mark.parametrize(
    ("read", "reported"),
    [
        ("torchvision.io.read_image(row['path'])", False),
        ("Image.open(row['path'])", False),
        ("open(row['path']).read()", False),
        ("np.load(row['path'])", False),
        # nothing read from storage: the row Series is the cost
        ("row['path'].upper()", True),
        ("np.sqrt(row['a'])", True),
    ],
)
def test_a_loop_that_reads_a_file_per_row_is_not_reported(read, reported):
    source = (
        "import numpy as np\nimport pandas as pd\nimport torchvision\nfrom PIL import Image\n\n"
        f"labels = pd.read_csv('labels.csv')\nitems = []\nfor _, row in labels.iterrows():\n"
        f"    items.append({read})\n"
    )
    assert [d.code for d in lint_source(source) if d.code == "GPU102"] == (["GPU102"] if reported else [])


@pytest.mark.parametrize(
    "frame",
    [
        "pd.DataFrame({'a': [1, 2, 3]})",
        "pd.read_csv('big.csv').head(5)",
        "pd.read_csv('big.csv').nlargest(3, 'a')",
    ],
)
def test_a_frame_of_a_few_rows_is_not_reported(frame):
    source = f"import pandas as pd\n\nframe = {frame}\nfor _, row in frame.iterrows():\n    print(row['a'])\n"
    assert [d for d in lint_source(source) if d.code == "GPU102"] == []
    counted = source.replace("for _, row in frame.iterrows()", "for i, (_, row) in enumerate(frame.iterrows())")
    assert [d for d in lint_source(counted) if d.code == "GPU102"] == []
    comprehension = f"import pandas as pd\n\nframe = {frame}\nvalues = [row['a'] for _, row in frame.iterrows()]\n"
    assert [d for d in lint_source(comprehension) if d.code == "GPU102"] == []
