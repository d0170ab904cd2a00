"""GPU101 dataframe-grown-in-loop: what the rule's own examples do not cover.

The `.append`/`._append` rewrites cannot be executed (pandas 3.1 has neither method), so
their exact output is checked here; the other rewrites are also executed before and after
on generated data, including loops that run zero times.
"""

from __future__ import annotations

import textwrap
from functools import partial

import pandas as pd
import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example
from .rule_helpers import findings, idempotent_fix

CODE = "GPU101"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


_findings = partial(findings, code=CODE)


def _assert_same_when_run(source: str, fixed: str, setup: str, call: str, strict: bool) -> None:
    for n in (0, 1, 5, 40):
        before = run_example(setup, source, call, n=n)
        after = run_example(setup, fixed, call, n=n)
        assert_same_result(before, after, strict=strict)


# -- the legacy `.append` / `._append` forms ------------------------------------------------


def test_append_of_a_frame_becomes_one_concat_unsafe():
    source = _src("""
        import pandas as pd


        def legacy(tables: list) -> pd.DataFrame:
            out = pd.DataFrame()
            for table in tables:
                out = out.append(pd.DataFrame(table), ignore_index=True)
            return out
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=False) == source
    assert idempotent_fix(source) == _src("""
        import pandas as pd


        def legacy(tables: list) -> pd.DataFrame:
            out = pd.DataFrame()
            parts = [out]
            for table in tables:
                parts.append(pd.DataFrame(table))
            out = pd.concat(parts, ignore_index=True)
            return out
    """)


def test_private_append_of_dict_rows_builds_one_frame():
    source = _src("""
        import pandas as pd

        out = pd.DataFrame(columns=["item"])
        for item in ["a", "b"]:
            out = out._append({"item": item}, ignore_index=True)
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert idempotent_fix(source) == _src("""
        import pandas as pd

        out = pd.DataFrame(columns=["item"])
        rows = []
        for item in ["a", "b"]:
            rows.append({"item": item})
        out = pd.concat([out, pd.DataFrame(rows)], ignore_index=True)
    """)


def test_append_without_a_module_alias_imports_pandas():
    source = _src("""
        from pandas import DataFrame

        out = DataFrame()
        for item in ["a", "b"]:
            out = out.append(DataFrame({"item": [item]}))
    """)
    assert idempotent_fix(source) == _src("""
        from pandas import DataFrame
        import pandas as pd

        out = DataFrame()
        parts = [out]
        for item in ["a", "b"]:
            parts.append(DataFrame({"item": [item]}))
        out = pd.concat(parts)
    """)


def test_series_private_append_of_a_series():
    source = _src("""
        import pandas as pd

        total = pd.Series(dtype=float)
        for value in [1.0, 2.0]:
            total = total._append(pd.Series([value]))
    """)
    assert idempotent_fix(source) == _src("""
        import pandas as pd

        total = pd.Series(dtype=float)
        parts = [total]
        for value in [1.0, 2.0]:
            parts.append(pd.Series([value]))
        total = pd.concat(parts)
    """)


@pytest.mark.parametrize("piece", ["row", "{'item': item}", "[item]"])
def test_append_of_a_row_of_unknown_shape_is_display_only(piece):
    # A Series, a dict without ignore_index, or a list: the legacy method appended rows or
    # raised; which one cannot be told from source, so no rewrite is offered.
    source = _src(f"""
        import pandas as pd

        out = pd.DataFrame()
        for item in ["a", "b"]:
            row = pd.Series([item])
            out = out.append({piece})
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and not finding.fix.edits


# -- executed rewrites beyond the documented examples -------------------------------------------

EXECUTED = {
    "nested loops share one list": (
        """
        import pandas as pd


        def grid(n: int) -> pd.DataFrame:
            frame = pd.DataFrame()
            for a in range(n):
                for b in range(3):
                    # one piece per pair
                    frame = pd.concat([frame, pd.DataFrame({"a": [a], "b": [b * 0.5]})], ignore_index=True)
            return frame
        """,
        """
        import pandas as pd


        def grid(n: int) -> pd.DataFrame:
            frame = pd.DataFrame()
            rows = []
            for a in range(n):
                for b in range(3):
                    # one piece per pair
                    rows.append({"a": a, "b": b * 0.5})
            if rows:
                frame = pd.concat([frame, pd.DataFrame(rows, columns=["a", "b"])], ignore_index=True)
            return frame
        """,
        "grid(N)",
    ),
    "outer loop reads the frame: inner loop rewritten": (
        """
        import pandas as pd


        def sizes(n: int) -> list:
            frame = pd.DataFrame({"a": [0]})
            seen = []
            for a in range(n):
                for b in range(2):
                    frame = pd.concat([frame, pd.DataFrame({"a": [a + b]})])
                seen.append(len(frame))
            return [seen, frame]
        """,
        """
        import pandas as pd


        def sizes(n: int) -> list:
            frame = pd.DataFrame({"a": [0]})
            seen = []
            for a in range(n):
                parts = [frame]
                for b in range(2):
                    parts.append(pd.DataFrame({"a": [a + b]}))
                frame = pd.concat(parts)
                seen.append(len(frame))
            return [seen, frame]
        """,
        "sizes(N)[1]",
    ),
    "prepending reverses the list": (
        """
        import pandas as pd


        def newest_first(n: int) -> pd.DataFrame:
            frame = pd.DataFrame({"a": [-1]}, index=["start"])
            for a in range(n):
                frame = pd.concat([pd.DataFrame({"a": [a], "b": [str(a)]}, index=[f"r{a}"]), frame])
            return frame
        """,
        """
        import pandas as pd


        def newest_first(n: int) -> pd.DataFrame:
            frame = pd.DataFrame({"a": [-1]}, index=["start"])
            parts = [frame]
            for a in range(n):
                parts.append(pd.DataFrame({"a": [a], "b": [str(a)]}, index=[f"r{a}"]))
            frame = pd.concat(parts[::-1])
            return frame
        """,
        "newest_first(N)",
    ),
    "several pieces per step, ragged columns, sort": (
        """
        import pandas as pd


        def ragged(n: int) -> pd.DataFrame:
            frame = pd.DataFrame({"z": [1.5]})
            for a in range(n):
                frame = pd.concat([frame, pd.DataFrame({"b": [a]}), pd.DataFrame({"a": [a * 2.0]})], sort=True)
            return frame
        """,
        """
        import pandas as pd


        def ragged(n: int) -> pd.DataFrame:
            frame = pd.DataFrame({"z": [1.5]})
            parts = [frame]
            for a in range(n):
                parts.extend([pd.DataFrame({"b": [a]}), pd.DataFrame({"a": [a * 2.0]})])
            frame = pd.concat(parts, sort=True)
            return frame
        """,
        "ragged(N)",
    ),
    "int and float pieces on an annotated start": (
        """
        import pandas as pd


        def mixed(start: pd.DataFrame, n: int) -> pd.DataFrame:
            for a in range(n):
                value = a if a % 2 else a + 0.5
                start = pd.concat([start, pd.DataFrame({"v": [value]}, index=[a])])
            return start
        """,
        """
        import pandas as pd


        def mixed(start: pd.DataFrame, n: int) -> pd.DataFrame:
            parts = [start]
            for a in range(n):
                value = a if a % 2 else a + 0.5
                parts.append(pd.DataFrame({"v": [value]}, index=[a]))
            start = pd.concat(parts)
            return start
        """,
        "mixed(pd.DataFrame({'v': [7]}, index=['s']), N)",
    ),
    "while loop with break": (
        """
        import pandas as pd


        def until(n: int) -> pd.Series:
            values = pd.Series(dtype="int64")
            count = 0
            while True:
                if count >= n:
                    break
                values = pd.concat([values, pd.Series([count])], ignore_index=True)
                count += 1
            return values
        """,
        """
        import pandas as pd


        def until(n: int) -> pd.Series:
            values = pd.Series(dtype="int64")
            count = 0
            parts = [values]
            while True:
                if count >= n:
                    break
                parts.append(pd.Series([count]))
                count += 1
            values = pd.concat(parts, ignore_index=True)
            return values
        """,
        "until(N)",
    ),
    "a start of None in a loop that always runs": (
        """
        import pandas as pd

        frame = None
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
        """,
        """
        import pandas as pd

        frame = None
        parts = [frame]
        for a in range(3):
            parts.append(pd.DataFrame({"a": [a]}))
        frame = pd.concat(parts)
        """,
        "frame",
    ),
}


@pytest.mark.parametrize("name", list(EXECUTED))
def test_rewrite_is_exact_and_computes_the_same_result(name):
    # Pieces built in the loop (`pd.DataFrame(...)`, `pd.Series(...)`) carry no evidence of
    # one dtype per column, so the rewrite is unsafe; on these data it still agrees exactly.
    source, expected, call = (_src(text) if i < 2 else text for i, text in enumerate(EXECUTED[name]))
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=False) == source
    assert idempotent_fix(source) == expected
    _assert_same_when_run(source, expected, "", call, strict=True)


def test_loc_rows_rewrite_has_the_same_values_only():
    source = _src("""
        import pandas as pd


        def table(n: int) -> pd.DataFrame:
            board = pd.DataFrame(columns=["i", "half"])
            for outer in range(n):
                for inner in range(2):
                    board.loc[board.shape[0]] = (outer, inner / 2)
            return board
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    fixed = idempotent_fix(source)
    assert fixed == _src("""
        import pandas as pd


        def table(n: int) -> pd.DataFrame:
            board = pd.DataFrame(columns=["i", "half"])
            rows = []
            for outer in range(n):
                for inner in range(2):
                    rows.append((outer, inner / 2))
            board = pd.DataFrame(rows, columns=board.columns)
            return board
    """)
    _assert_same_when_run(source, fixed, "", "table(N)", strict=False)
    # .loc enlargement infers dtypes from the first row (float64 for both columns here) and
    # leaves an Index of int64: the rewrite differs there, hence unsafe.
    before = run_example("", source, "table(N)", n=3)
    after = run_example("", fixed, "table(N)", n=3)
    assert list(before.dtypes.astype(str)) == ["float64", "float64"]
    assert list(after.dtypes.astype(str)) == ["int64", "float64"]


def test_comments_inside_the_growth_statement_survive():
    source = _src("""
        import pandas as pd

        frame = pd.DataFrame()

        # grow it
        for a in range(3):
            frame = pd.concat(
                [frame, pd.DataFrame({"a": [a]})],  # the new piece
                ignore_index=True,  # renumber
            )  # done
    """)
    assert idempotent_fix(source) == _src("""
        import pandas as pd

        frame = pd.DataFrame()

        # grow it
        rows = []
        for a in range(3):
            # the new piece
            # renumber
            rows.append({"a": a})  # done
        frame = pd.concat([frame, pd.DataFrame(rows, columns=["a"])], ignore_index=True)
    """)


def test_fresh_names_avoid_names_in_use():
    source = _src("""
        import pandas as pd

        parts = "taken"
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
    """)
    assert "parts_2 = [frame]" in idempotent_fix(source)


def test_two_loops_in_one_file_are_bothidempotent_fix():
    source = _src("""
        import pandas as pd

        left = pd.DataFrame()
        for a in range(3):
            left = pd.concat([left, pd.DataFrame({"a": [a]})])
        right = pd.DataFrame()
        for b in range(3):
            right = pd.concat([right, pd.DataFrame({"b": [b]})])
    """)
    fixed = idempotent_fix(source)
    assert "parts = [left]" in fixed and "parts_2 = [right]" in fixed
    assert _findings(fixed) == []


# -- declined occurrences: still reported, with a display-only suggestion -----------------------

DECLINED = {
    "used in the loop": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            print(len(frame))
    """,
    "used in the loop's else": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
        else:
            print(frame)
    """,
    "used in the while test": """
        frame = pd.DataFrame()
        while len(frame) < 10:
            frame = pd.concat([frame, pd.DataFrame({"a": [1]})])
    """,
    "a function reads the module-level frame": """
        def show():
            print(frame)

        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            show()
    """,
    "a closure reads the local frame": """
        def build(items):
            frame = pd.DataFrame()
            size = lambda: len(frame)
            for a in items:
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            return frame, size
    """,
    "declared global": """
        frame = pd.DataFrame()

        def build():
            global frame
            for a in range(3):
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
    """,
    "inside try": """
        frame = pd.DataFrame()
        for a in range(3):
            try:
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            except ValueError:
                pass
    """,
    "return inside the loop": """
        def build(items):
            frame = pd.DataFrame()
            for a in items:
                if a is None:
                    return None
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            return frame
    """,
    "axis=1 joins columns": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({f"c{a}": [a]})], axis=1)
    """,
    "keys nest differently": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})], keys=["old", "new"])
    """,
    "option computed in the loop": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})], ignore_index=a > 1)
    """,
    "ignore_index on a start with an unknown index": """
        def build(frame: pd.DataFrame, items):
            for a in items:
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})], ignore_index=True)
            return frame
    """,
    "a start of None and maybe no iterations": """
        def build(items):
            frame = None
            for a in items:
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            return frame
    """,
    "two growth statements": """
        frame = pd.DataFrame()
        for a in range(3):
            if a % 2:
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            else:
                frame = pd.concat([frame, pd.DataFrame({"b": [a]})])
    """,
    "the frame in the middle": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([pd.DataFrame({"a": [a]}), frame, pd.DataFrame({"a": [-a]})])
    """,
    "an attribute grows": """
        def build(store, items):
            for a in items:
                store.frame = pd.concat([store.frame, pd.DataFrame({"a": [a]})])
    """,
    "an annotated assignment": """
        frame = pd.DataFrame()
        for a in range(3):
            frame: pd.DataFrame = pd.concat([frame, pd.DataFrame({"a": [a]})])
    """,
    ".loc with a dict row": """
        board = pd.DataFrame(columns=["a"])
        for a in range(3):
            board.loc[len(board)] = {"a": a}
    """,
    ".loc on a frame whose index is not known to be 0..n-1": """
        def build(board: pd.DataFrame):
            for a in range(3):
                board.loc[len(board)] = [a]
            return board
    """,
    ".loc on a Series": """
        values = pd.Series(dtype=float)
        for a in range(3):
            values.loc[len(values)] = a
    """,
}


@pytest.mark.parametrize("name", list(DECLINED))
def test_declined_occurrence_gets_a_display_only_fix(name):
    source = "import pandas as pd\n\n" + _src(DECLINED[name])
    findings = _findings(source)
    assert findings, "still reported"
    for finding in findings:
        assert finding.fix is not None
        assert finding.fix.applicability is Applicability.DISPLAY and not finding.fix.edits, finding.fix
    assert fix_text(source, unsafe_fixes=True) == source


# -- recurrences (the loop computes what it adds, or whether, from the frame) and fresh starts ---

RECURRENCES = {
    "the piece reads the frame": """
        frame = pd.DataFrame({"a": [1]})
        for a in range(3):
            frame = pd.concat([frame, frame.tail(1) * 2])
    """,
    "through a name computed from the frame": """
        frame = pd.DataFrame({"a": [1.0]})
        for a in range(3):
            last = frame["a"].iloc[-1]
            frame = pd.concat([frame, pd.DataFrame({"a": [last * 2]})], ignore_index=True)
    """,
    "a function of the frame": """
        def step(frame):
            return frame.tail(1) + 1

        frame = pd.DataFrame({"a": [1]})
        for a in range(3):
            frame = pd.concat([frame, step(frame)])
    """,
    "an attribute grown from itself": """
        class Log:
            def run(self, n):
                self.frame = pd.DataFrame({"a": [1]})
                for _ in range(n):
                    self.frame = pd.concat([self.frame, self.frame.tail(1)])
    """,
    "the frame is cut back in the loop": """
        frame = pd.DataFrame({"a": [1]})
        for a in range(30):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            if len(frame) > 10:
                frame = frame.tail(10)
    """,
    "a row of the .loc form read from the frame": """
        frame = pd.DataFrame(columns=["a"])
        frame.loc[len(frame)] = [1]
        for a in range(3):
            frame.loc[len(frame)] = [frame["a"].iloc[-1] + a]
    """,
    "in the inner loop of two": """
        frame = pd.DataFrame({"a": [1]})
        for a in range(3):
            for b in range(2):
                frame = pd.concat([frame, frame.tail(1) * b])
    """,
    "rows kept only when far from those kept so far": """
        frame = pd.DataFrame({"a": [0.0]})
        for a in range(30):
            if (frame["a"] - a * 0.3).abs().min() < 1:
                continue
            frame = pd.concat([frame, pd.DataFrame({"a": [a * 0.3]})], ignore_index=True)
    """,
    "bound afresh each iteration through a tuple": """
        def pair(a):
            return a, pd.DataFrame({"a": [a]})

        for a in range(3):
            key, frame = pair(a)
            frame = pd.concat([frame, pd.DataFrame({"a": [key]})])
    """,
}


@pytest.mark.parametrize("name", RECURRENCES)
def test_recurrence_is_not_reported(name):
    source = "import pandas as pd\n\n" + _src(RECURRENCES[name])
    assert _findings(source) == []


ACCUMULATIONS = {
    "the loop only prints the frame's length": """
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            print(len(frame))
    """,
    "the piece reads another frame": """
        source = pd.DataFrame({"a": [1, 2, 3]})
        frame = pd.DataFrame()
        for a in range(3):
            frame = pd.concat([frame, source.tail(1) * a])
    """,
    "a value computed from the frame feeds something else": """
        frame = pd.DataFrame()
        sizes = []
        for a in range(3):
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
            sizes.append(len(frame))
    """,
    "the outer loop starts the frame afresh and reads it after the inner one": """
        totals = pd.DataFrame()
        for day in range(3):
            frame = pd.DataFrame()
            for a in range(3):
                frame = pd.concat([frame, pd.DataFrame({"a": [a + len(totals)]})])
            totals = frame
    """,
    "a test of its size only": """
        frame = pd.DataFrame()
        for a in range(30):
            if len(frame) >= 10:
                break
            frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
    """,
    "started on the first iteration": """
        frame = None
        for a in range(3):
            if frame is None:
                frame = pd.DataFrame({"a": [a]})
            else:
                frame = pd.concat([frame, pd.DataFrame({"a": [a]})])
    """,
}


@pytest.mark.parametrize("name", ACCUMULATIONS)
def test_accumulation_next_to_reads_is_still_reported(name):
    source = "import pandas as pd\n\n" + _src(ACCUMULATIONS[name])
    assert len(_findings(source)) == 1


# -- detection ------------------------------------------------------------------------------------


def test_one_finding_per_frame_and_loop():
    # two growth statements of one frame in one loop are one idiom: reported at the first
    source = "import pandas as pd\n\n" + _src(DECLINED["two growth statements"])
    assert [d.start.line for d in _findings(source)] == [6]


@pytest.mark.parametrize(
    "body",
    [
        "frame = pd.concat([frame, pd.read_csv(path)])",
        "frame = pd.concat([pd.read_parquet(path).dropna(), frame], ignore_index=True)",
        "piece = pd.read_csv(path)\n    piece['path'] = path\n    frame = pd.concat([frame, piece])",
        "frame = frame._append(pd.read_json(path))",
    ],
)
def test_a_file_read_grown_into_the_frame_is_gpu108_not_gpu101(body):
    source = "import pandas as pd\n\nframe = pd.DataFrame()\nfor path in ['a.csv', 'b.csv']:\n    " + body + "\n"
    assert _findings(source) == []
    assert [d.code for d in lint_source(source)] == ["GPU108"]


@pytest.mark.parametrize(
    "body",
    [
        # one file read in chunks: the data is read once, only the growth is the problem
        "for chunk in pd.read_csv('big.csv', chunksize=1000):\n    frame = pd.concat([frame, chunk])",
        # the name was rebound after the read: not a file read any more
        "for path in ['a.csv']:\n    piece = pd.read_csv(path)\n    piece = pd.DataFrame({'p': [path]})\n"
        "    frame = pd.concat([frame, piece])",
        # the read comes from an earlier loop, not this iteration
        "piece = pd.read_csv('a.csv')\nfor size in range(3):\n    frame = pd.concat([frame, piece.head(size)])",
    ],
)
def test_growth_without_a_read_in_the_iteration_stays_gpu101(body):
    source = "import pandas as pd\n\nframe = pd.DataFrame()\n" + body + "\n"
    codes = [d.code for d in lint_source(source)]
    assert codes.count("GPU101") == 1 and "GPU108" not in codes, codes


@pytest.mark.parametrize("key", ["len(board)", "len(board.index)", "board.shape[0]"])
def test_loc_message_quotes_the_key_the_code_uses(key):
    source = _src(f"""
        import pandas as pd

        board = pd.DataFrame(columns=["a"])
        for a in range(3):
            board.loc[{key}] = [a]
    """)
    [finding] = _findings(source)
    assert f"through `.loc[{key}]`" in finding.message


@pytest.mark.parametrize(
    "source",
    [
        # a user-defined concat, and NumPy's
        "def concat(items):\n    return items\n\nframe = []\nfor a in range(3):\n    frame = concat([frame, a])\n",
        "import numpy as np\n\narr = np.zeros(1)\nfor a in range(3):\n    arr = np.concatenate([arr, [a]])\n",
        # a list grown by `+`, and a frame grown outside any loop
        "import pandas as pd\n\nitems = []\nfor a in range(3):\n    items = items + [a]\n",
        "import pandas as pd\n\nframe = pd.DataFrame()\nframe = pd.concat([frame, frame])\n",
        # `.append` on something not known to be a frame: a parameter, a list, a class
        "import pandas as pd\n\ndef f(t, rows):\n    for r in rows:\n        t = t.append(r)\n    return t\n",
        "import pandas as pd\n\nitems = [1]\nfor a in range(3):\n    items = items.append(a)\n",
        # growth inside a function defined in the loop runs when called, not per iteration
        "import pandas as pd\n\nframe = pd.DataFrame()\nfor a in range(3):\n    grow = lambda x: pd.concat([frame, x])\n",
        # bound afresh earlier in the same iteration: one start copied per step, nothing grows
        "import pandas as pd\n\nfor a in range(3):\n    f = pd.DataFrame()\n    f = pd.concat([f, pd.DataFrame({'a': [a]})])\n",
        # `.loc` at a label that is not the frame's length
        "import pandas as pd\n\nframe = pd.DataFrame(columns=['a'])\nfor a in range(3):\n    frame.loc[a] = [a]\n",
        # `len` rebound by the file
        "import pandas as pd\n\nlen = max\nframe = pd.DataFrame(columns=['a'])\nfor a in range(3):\n    frame.loc[len(frame)] = [a]\n",
    ],
)
def test_not_flagged(source):
    assert _findings(source) == []


def test_other_frame_libraries_are_flagged_but_fixed_unsafely():
    source = _src("""
        import cudf

        frame = cudf.DataFrame()
        for a in range(3):
            frame = cudf.concat([frame, cudf.DataFrame({"a": [a]})])
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert "frame = cudf.concat(parts)" in idempotent_fix(source)


# -- safe only where the pieces provably share one dtype per column ---------------------------
#
# A single concat of [start, *pieces] and the loop's chain of pairwise concats can pick
# different dtypes when one column takes three or more dtypes across start and pieces (bool,
# int64, float64 pieces: object vs float64). The fix is safe only where every piece is a row
# selection of one DataFrame: the group of an enclosing groupby loop, or a private frame (built
# by the function itself, never handed on) that nothing changes while the loops run.

#: Loop header and piece of each shape that is safe. `sales` is a pandas DataFrame: for the
#: "group" shapes a parameter, for the "frame" shapes a private copy made by the function (a
#: parameter is shared with the caller, so selections of it are fixed unsafely, see below).
SAFE_SHAPES = {
    "group": ("for _, group in sales.groupby('region'):", "group"),
    "group, empty groups": ("for _, group in sales.groupby('grade', observed=False):", "group"),
    "group.head": ("for _, group in sales.groupby('region'):", "group.head(2)"),
    "group.tail": ("for key, group in sales.groupby(['region', 'returned']):", "group.tail(n=1)"),
    "group.nlargest": ("for _, group in sales.groupby('region'):", "group.nlargest(2, 'amount')"),
    "group.nsmallest": ("for _, group in sales.groupby('region', sort=False):", "group.nsmallest(1, ['units'])"),
    "group.sample": ("for _, group in sales.groupby('region'):", "group.sample(frac=0.5, random_state=0)"),
    "group.query": ("for _, group in sales.groupby('region'):", "group.query('amount > 500 & units < 0')"),
    "group.query in": ("for _, group in sales.groupby('grade'):", 'group.query(\'region in ["north", "east"]\')'),
    "group.drop_duplicates": ("for _, group in sales.groupby('region'):", "group.drop_duplicates(subset=['returned'])"),
    "group.dropna": ("for _, group in sales.groupby('region'):", "group.dropna()"),
    "group.dropna subset": ("for _, group in sales.groupby('region'):", "group.dropna(subset=['score'])"),
    "group.copy": ("for _, group in sales.groupby('region'):", "group.copy()"),
    "group.iloc slice": ("for _, group in sales.groupby('region'):", "group.iloc[1:3]"),
    "group.loc slice": ("for _, group in sales.groupby('region'):", "group.loc[:]"),
    "group.loc mask": (
        "for _, group in sales.groupby('region'):",
        "group.loc[group['amount'] > group['amount'].mean()]",
    ),
    "group.loc combined mask": (
        "for _, group in sales.groupby('region'):",
        "group.loc[(group.amount > 100) & ~group['returned'] | group['score'].isna()]",
    ),
    "group.loc isin": ("for _, group in sales.groupby('region'):", "group.loc[group['grade'].isin(['a', 'b'])]"),
    "group chain": ("for _, group in sales.groupby('region'):", "group.dropna().loc[group.units < 0].head(3).copy()"),
    "frame.loc mask per threshold": ("for limit in (0, 250, 999, 2000):", "sales.loc[sales['amount'] > limit]"),
    "frame.loc between": ("for low in range(0, 1000, 300):", "sales.loc[sales.amount.between(low, low + 299)]"),
    "frame.query per threshold": ("for limit in [100, 5000]:", "sales.query('amount >= @limit')"),
    "frame.head per size": ("for size in range(4):", "sales.head(size)"),
    "frame.iloc window": ("for start in range(0, 12, 5):", "sales.iloc[start:start + 5]"),
    "frame.sample": ("for seed in range(3):", "sales.sample(frac=0.3, random_state=seed)"),
    "frame.loc notna": ("for _ in range(2):", "sales.loc[sales['score'].notna()]"),
}

SAFE_SETUP = (
    "sales = pd.DataFrame({"
    "'region': rng.choice(['north', 'south', 'east', 'west'], N), "
    "'grade': pd.Categorical(rng.choice(['a', 'b'], N), categories=['a', 'b', 'c']), "
    "'amount': rng.integers(0, 1000, N), "
    "'units': rng.normal(size=N), "
    "'returned': rng.integers(0, 2, N).astype(bool), "
    "'score': np.where(rng.random(N) < 0.3, np.nan, rng.normal(size=N)), "
    "'sold': pd.Timestamp('2024-01-01') + pd.to_timedelta(rng.integers(0, 365, N), unit='D'), "
    "'stock': pd.array(rng.integers(0, 9, N), dtype='Int64')}, "
    "index=[f'o{i}' for i in range(N)])"
)

#: Starts the fixer keeps first in the list: empty, empty with object columns, non-empty
#: with other dtypes and columns than the pieces.
SAFE_STARTS = {
    "empty": ("pd.DataFrame()", ""),
    "object columns": ("pd.DataFrame(columns=['amount', 'region'])", ""),
    "other dtypes": ("pd.DataFrame({'amount': [True], 'extra': ['x']}, index=['start'])", ""),
    "empty, ignore_index": ("pd.DataFrame()", ", ignore_index=True"),
    "sorted columns, sort": ("pd.DataFrame({'amount': [0.5], 'zone': ['z']})", ", sort=True"),
}


def _safe_source(
    header: str, piece: str, start: str, options: str, prepend: bool = False, private: bool = False
) -> str:
    entries = f"{piece}, out" if prepend else f"out, {piece}"
    body = [f"out = {start}", header, f"    out = pd.concat([{entries}]{options})", "return out"]
    if private:
        body.insert(0, "sales = given.copy()")
    return (
        "import pandas as pd\n\n\n"
        f"def build({'given' if private else 'sales'}: pd.DataFrame) -> pd.DataFrame:\n"
        + "".join(f"    {line}\n" for line in body)
    )


def _shape_source(shape: str, start: str = "pd.DataFrame()", options: str = "") -> str:
    header, piece = SAFE_SHAPES[shape]
    return _safe_source(header, piece, start, options, private=shape.startswith("frame"))


@pytest.mark.parametrize("shape", list(SAFE_SHAPES))
def test_row_selections_of_one_frame_are_fixed_safely(shape):
    piece = SAFE_SHAPES[shape][1]
    source = _shape_source(shape)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.SAFE
    fixed = idempotent_fix(source, unsafe=False)
    assert f"parts.append({piece})" in fixed and "out = pd.concat(parts)" in fixed


@pytest.mark.parametrize("shape", [shape for shape in SAFE_SHAPES if shape.startswith("frame")])
def test_row_selections_of_a_parameter_are_fixed_unsafely(shape):
    # A parameter is shared with the caller: another parameter, a global or the code a
    # loop calls may hold the same frame (see the executed cases below).
    header, piece = SAFE_SHAPES[shape]
    source = _safe_source(header, piece, "pd.DataFrame()", "")
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=False) == source


@pytest.mark.parametrize("start", list(SAFE_STARTS))
@pytest.mark.parametrize("shape", list(SAFE_SHAPES))
def test_safe_shapes_compute_exactly_the_same_frame(shape, start):
    # Differential: the loop and its rewrite, executed on the same generated data (no rows,
    # one row, empty groups and empty selections included), equal in values, dtypes and index.
    source = _shape_source(shape, *SAFE_STARTS[start])
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.SAFE
    fixed = idempotent_fix(source, unsafe=False)
    assert fixed != source
    for n in (0, 1, 5, 40):
        before = run_example(SAFE_SETUP, source, "build(sales)", n=n)
        after = run_example(SAFE_SETUP, fixed, "build(sales)", n=n)
        assert_same_result(before, after, strict=True)


@pytest.mark.parametrize(
    "source",
    [
        # prepending, several pieces per step, nested loops over one grouping of a private frame,
        # module level
        _safe_source("for _, group in sales.groupby('region'):", "group.head(1)", "pd.DataFrame()", "", prepend=True),
        _src("""
        import pandas as pd


        def build(sales: pd.DataFrame) -> pd.DataFrame:
            out = pd.DataFrame()
            for _, group in sales.groupby("region"):
                out = pd.concat([out, group.head(1), group.tail(1)], ignore_index=True)
            return out
    """),
        _src("""
        import pandas as pd


        def build(given: pd.DataFrame) -> pd.DataFrame:
            sales = given.copy()
            out = pd.DataFrame()
            for size in range(3):
                for _, group in sales.groupby("region"):
                    if len(group) > size:
                        out = pd.concat([out, group.head(size)])
            return out
    """),
        _src("""
        import pandas as pd

        sales = pd.read_parquet("sales.parquet")
        out = pd.DataFrame()
        for limit in (10, 20):
            print(len(sales), f"{limit}: {sales.shape}")
            out = pd.concat([out, sales.loc[sales["amount"] < limit]])
    """),
    ],
)
def test_more_safe_shapes(source):
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.SAFE
    assert idempotent_fix(source, unsafe=False) != source


def test_prepending_and_nested_safe_shapes_compute_the_same_frame():
    for source in (
        _safe_source(
            "for _, group in sales.groupby('region'):",
            "group.nlargest(1, 'amount')",
            "pd.DataFrame()",
            "",
            prepend=True,
        ),
        _safe_source(
            "for _, group in sales.groupby('grade', observed=False):",
            "group.loc[group.returned]",
            "pd.DataFrame({'amount': [True]})",
            "",
        ),
    ):
        fixed = idempotent_fix(source, unsafe=False)
        for n in (0, 1, 5, 40):
            assert_same_result(
                run_example(SAFE_SETUP, source, "build(sales)", n=n),
                run_example(SAFE_SETUP, fixed, "build(sales)", n=n),
                strict=True,
            )


def _grown(
    header: str,
    piece: str,
    before: str = "",
    params: str = "given: pd.DataFrame",
    prelude: str = "sales = given.copy()",
) -> str:
    """A growth loop where `sales` is, by default, a private frame: what makes the fix unsafe
    is the shape given, not a frame shared with the caller (see `test_control_is_safe`)."""
    lines = "".join(f"        {line}\n" for line in before.splitlines())
    return (
        "import pandas as pd\n\n\n"
        f"def build({params}):\n" + (f"    {prelude}\n" if prelude else "") + "    out = pd.DataFrame()\n"
        f"    {header}\n"
        f"{lines}"
        f"        out = pd.concat([out, {piece}])\n"
        "    return out\n"
    )


#: Shapes rewritten only with --unsafe-fixes: no evidence of one dtype per column.
UNSAFE_SHAPES = {
    "a frame built from a dict": _grown("for day in range(3):", "pd.DataFrame({'day': [day]})"),
    "a frame built from a row": _grown("for row in sales.to_dict('records'):", "pd.DataFrame([row])"),
    "a row turned into a frame": _grown("for _, row in sales.iterrows():", "row.to_frame().T"),
    "a read_csv chunk": _grown("for chunk in pd.read_csv('big.csv', chunksize=1000):", "chunk"),
    "a filtered read_csv chunk": _grown(
        "for chunk in pd.read_csv('big.csv', chunksize=1000):", "chunk.loc[chunk['amount'] > 0]"
    ),
    "a Series label .loc[k]": _grown("for key in ['o1', 'o2']:", "sales.loc[key]"),
    "a scalar label .loc[k] of a group": _grown("for key, group in sales.groupby('region'):", "group.loc[key]"),
    "indexing with a mask (a frame mask with MultiIndex columns)": _grown(
        "for limit in (1, 2):", "sales[sales['amount'] > limit]"
    ),
    "the frame reassigned in the loop": _grown(
        "for limit in (1, 2):", "sales.head(2)", "sales = sales.assign(limit=limit)"
    ),
    "a column assigned in the loop": _grown("for limit in (1, 2):", "sales.head(2)", "sales['limit'] = limit * 0.5"),
    "an in-place method": _grown("for limit in (1, 2):", "sales.head(2)", "sales.drop(columns='amount', inplace=True)"),
    "insert": _grown("for limit in (1, 2):", "sales.head(2)", "sales.insert(0, f'c{limit}', limit)"),
    "the frame passed to a function": _grown("for limit in (1, 2):", "sales.head(2)", "clean(sales)"),
    "the frame aliased": _grown("for limit in (1, 2):", "sales.head(2)", "other = sales"),
    "the group reassigned": _grown("for _, group in sales.groupby('region'):", "group", "group = group.assign(flag=1)"),
    "the group changed": _grown("for key, group in sales.groupby('region'):", "group", "group['key'] = key"),
    "the grouped frame changed in an outer loop": (
        "import pandas as pd\n\n\ndef build(given: pd.DataFrame):\n    sales = given.copy()\n"
        "    out = pd.DataFrame()\n    for step in range(2):\n        for _, group in sales.groupby('region'):\n"
        "            out = pd.concat([out, group.head(1)])\n        sales['amount'] = sales['amount'] * 0.5\n"
        "    return out\n"
    ),
    "groupby on something not known to be a frame": _grown(
        "for _, group in sales.groupby('region'):", "group", params="sales", prelude=""
    ),
    "groupby with a column selection": _grown("for _, group in sales.groupby('region')[['amount']]:", "group"),
    "pieces of two frames": _grown(
        "for size in range(3):",
        "sales.head(size), other.head(size)",
        prelude="sales, other = given.copy(), given.copy()",
    ),
    "a mask against an unknown value": _grown(
        "for limit in limits:", "sales.loc[sales['amount'] > limit]", params="given: pd.DataFrame, limits"
    ),
    "columns selected by sample(axis=1)": _grown("for seed in range(3):", "sales.sample(2, axis=1, random_state=seed)"),
    "columns dropped by dropna(axis=1)": _grown("for _, group in sales.groupby('region'):", "group.dropna(axis=1)"),
    "a query that is not a comparison": _grown("for _, group in sales.groupby('region'):", "group.query('amount')"),
    "a query with an unknown @name": _grown(
        "for _, group in sales.groupby('region'):",
        "group.query('amount > @limit')",
        params="given: pd.DataFrame, limit",
    ),
    "a query built at run time": _grown("for limit in (1, 2):", "sales.query(f'amount > {limit}')"),
    "a method attribute is no column": _grown("for limit in (1, 2):", "sales.loc[sales.size > limit]"),
    "a frame of another library": (
        "import cudf\n\n\ndef build(sales: cudf.DataFrame):\n    out = cudf.DataFrame()\n"
        "    for _, group in sales.groupby('region'):\n        out = cudf.concat([out, group.head(1)])\n"
        "    return out\n"
    ),
}


@pytest.mark.parametrize(
    "source",
    [
        _grown("for limit in (1, 2):", "sales.head(2)"),
        _grown("for limit in (1, 2):", "sales.head(2)", "print(len(sales), limit)"),
        _grown("for _, group in sales.groupby('region'):", "group"),
        # the outer-loop shape of "the grouped frame changed in an outer loop", unchanged
        (
            "import pandas as pd\n\n\ndef build(given: pd.DataFrame):\n    sales = given.copy()\n"
            "    out = pd.DataFrame()\n    for step in range(2):\n        for _, group in sales.groupby('region'):\n"
            "            out = pd.concat([out, group.head(1)])\n    return out\n"
        ),
    ],
)
def test_control_is_safe(source):
    # The shapes below differ from these by one thing each.
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.SAFE


@pytest.mark.parametrize("shape", list(UNSAFE_SHAPES))
def test_pieces_without_evidence_of_one_dtype_are_fixed_unsafely(shape):
    source = UNSAFE_SHAPES[shape]
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE, finding.fix
    assert fix_text(source, unsafe_fixes=False) == source
    fixed = idempotent_fix(source)
    assert "parts.append(" in fixed or "parts.extend(" in fixed


@pytest.mark.parametrize(
    "source",
    [
        # a module-level frame that a function also mentions, and one that is not local to the function
        _src("""
        import pandas as pd

        sales = pd.read_csv("s.csv")


        def shrink():
            sales.pop("amount")


        out = pd.DataFrame()
        for size in range(3):
            shrink()
            out = pd.concat([out, sales.head(size)])
    """),
        _src("""
        import pandas as pd

        sales = pd.read_csv("s.csv")


        def build(steps):
            out = pd.DataFrame()
            for size in range(3):
                steps()
                out = pd.concat([out, sales.head(size)])
            return out
    """),
        # the group reachable from a function defined before the loop
        _src("""
        import pandas as pd


        def build(sales: pd.DataFrame):
            def tag():
                group["tag"] = 1

            out = pd.DataFrame()
            for _, group in sales.groupby("region"):
                tag()
                out = pd.concat([out, group])
            return out
    """),
    ],
)
def test_frames_other_code_can_reach_are_fixed_unsafely(source):
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE


# -- a frame that other code can change while the pieces are taken ------------------------------
#
# Changed between two pieces, the frame gives pieces of different dtypes (column `a`: bool,
# then int64, then float64), and one concat picks another dtype than the loop's chain of
# pairwise ones. Each case is executed before and after the (unsafe) rewrite to show it.

#: Helpers the cases call, defined outside the linted source (unknown code to the linter).
CHANGING_SETUP = """
class Holder:
    def __init__(self, frame=None):
        self.frame = frame

    def keep(self, frame):
        self.frame = frame

    def mutate(self, i):
        self.frame["a"] = [1, 1.5, 0][i]


def steps(frame):
    for i in range(3):
        yield i
        frame["a"] = [1, 1.5, 0][i]


frame = pd.DataFrame({"a": [True, False], "g": [1, 1]})
"""

CHANGED_WHILE_LOOPING = {
    "an alias of a parameter": (
        """
        def f(sales: pd.DataFrame):
            out = pd.DataFrame()
            alias = sales
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                alias["a"] = [1, 1.5, 0][i]
            return out
    """,
        "f(frame)",
    ),
    "a parameter reached by the code the loop calls": (
        """
        def f(sales: pd.DataFrame, h):
            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                h.mutate(i)
            return out
    """,
        "f(frame, Holder(frame))",
    ),
    "a parameter that another parameter also holds": (
        """
        def f(sales: pd.DataFrame, other):
            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                other["a"] = [1, 1.5, 0][i]
            return out
    """,
        "f(frame, frame)",
    ),
    "a private frame under another name": (
        """
        def f(given: pd.DataFrame):
            sales = given.copy()
            alias = sales
            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                alias["a"] = [1, 1.5, 0][i]
            return out
    """,
        "f(frame)",
    ),
    "a private frame in a container": (
        """
        def f(given: pd.DataFrame):
            sales = given.copy()
            box = [sales]
            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                box[0]["a"] = [1, 1.5, 0][i]
            return out
    """,
        "f(frame)",
    ),
    "a private frame handed to other code before the loop": (
        """
        def f(given: pd.DataFrame, h):
            sales = given.copy()
            h.keep(sales)
            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                h.mutate(i)
            return out
    """,
        "f(frame, Holder())",
    ),
    "a private frame changed in place through `+=` on another name": (
        """
        def f(given: pd.DataFrame):
            sales = given.copy()
            alias = sales
            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                alias += [1, 0.5, 0][i]
            return out
    """,
        "f(frame[['a']])",
    ),
    "a private frame a nested function changes": (
        """
        def f(given: pd.DataFrame):
            sales = given.copy()

            def change(i):
                sales["a"] = [1, 1.5, 0][i]

            out = pd.DataFrame()
            for i in range(3):
                out = pd.concat([out, sales.head(1)])
                change(i)
            return out
    """,
        "f(frame)",
    ),
    "a private frame changed by the generator the loop iterates": (
        """
        def f(given: pd.DataFrame):
            sales = given.copy()
            out = pd.DataFrame()
            for i in steps(sales):
                out = pd.concat([out, sales.head(1)])
            return out
    """,
        "f(frame)",
    ),
    "the grouped frame, held by another parameter, changed in an outer loop": (
        """
        def f(sales: pd.DataFrame, other):
            out = pd.DataFrame()
            for i in range(3):
                for _, group in sales.groupby("g"):
                    out = pd.concat([out, group.head(1)])
                other["a"] = [1, 1.5, 0][i]
            return out
    """,
        "f(frame, frame)",
    ),
}


@pytest.mark.parametrize("name", list(CHANGED_WHILE_LOOPING))
def test_a_frame_changed_while_looping_is_fixed_unsafely(name):
    text, call = CHANGED_WHILE_LOOPING[name]
    source = "import pandas as pd\n\n\n" + _src(text)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=False) == source
    fixed = idempotent_fix(source)
    before = run_example(CHANGING_SETUP, source, call)
    after = run_example(CHANGING_SETUP, fixed, call)
    assert (str(before["a"].dtype), str(after["a"].dtype)) == ("float64", "object")
    assert_same_result(before, after, strict=False)


@pytest.mark.parametrize(
    "source",
    [
        # other code runs while the pieces are taken: what it does is not known
        _grown("for limit in (1, 2):", "sales.head(2)", "h.mutate(limit)", params="given: pd.DataFrame, h"),
        _grown("for limit in (1, 2):", "sales.head(2)", "log.append(limit)", params="given: pd.DataFrame, log"),
        _grown("for limit in steps:", "sales.head(2)", params="given: pd.DataFrame, steps"),
        _grown("for limit in (1, 2):", "sales.head(2)", "with lock:\n    pass", params="given: pd.DataFrame, lock"),
        _grown("for limit in (1, 2):", "sales.head(2)", "total += limit", params="given: pd.DataFrame, total"),
        # the frame bound otherwise than by a call, or also in the loop
        _grown("for limit in (1, 2):", "sales.head(2)", prelude="sales = given"),
        _grown("for limit in (1, 2):", "sales.head(2)", "sales = sales.copy()"),
        _grown("for limit in (1, 2):", "sales.head(2)", prelude="sales = given.copy() if given is not None else None"),
        # handed on before the loop, to a callback or a container
        _grown("for limit in (1, 2):", "sales.head(2)", prelude="sales = given.copy()\n    sales.pipe(print)"),
        _grown("for limit in (1, 2):", "sales.head(2)", prelude="sales = given.copy()\n    frames = {'s': sales}"),
        _grown("for limit in (1, 2):", "sales.head(2)", prelude="sales = given.copy()\n    picked = sales or given"),
        # module level: a function of the file reads it
        (
            "import pandas as pd\n\nsales = pd.read_csv('s.csv')\nout = pd.DataFrame()\nfor size in range(3):\n"
            "    out = pd.concat([out, sales.head(size)])\n\n\ndef later():\n    return sales\n"
        ),
    ],
)
def test_a_frame_other_code_may_change_is_fixed_unsafely(source):
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE


@pytest.mark.parametrize(
    "source",
    [
        # a counter in a `while` loop
        _src("""
        import pandas as pd


        def build(given: pd.DataFrame) -> pd.DataFrame:
            sales = given.copy()
            out = pd.DataFrame()
            size = 0
            while size < 4:
                out = pd.concat([out, sales.head(size)])
                size += 1
            return out
    """),
        # a local list collecting something else on the way
        _src("""
        import pandas as pd


        def build(given: pd.DataFrame) -> pd.DataFrame:
            sales = given.copy()
            sizes = []
            out = pd.DataFrame()
            for size in range(3):
                sizes.append(size)
                out = pd.concat([out, sales.tail(size)])
            return out
    """),
        # the frame changed before the loop (not while it runs), and read by builtins
        _src("""
        import pandas as pd


        def build(given: pd.DataFrame) -> pd.DataFrame:
            sales = given.copy()
            sales["extra"] = 1.5
            sales.pop("units")
            print(len(sales), type(sales))
            out = pd.DataFrame()
            for size in [1, 3]:
                out = pd.concat([out, sales.head(size)])
            return out
    """),
    ],
)
def test_a_private_frame_left_alone_while_looping_is_fixed_safely(source):
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.SAFE
    fixed = idempotent_fix(source, unsafe=False)
    for n in (0, 1, 5, 40):
        assert_same_result(
            run_example(SAFE_SETUP, source, "build(sales)", n=n),
            run_example(SAFE_SETUP, fixed, "build(sales)", n=n),
            strict=True,
        )


def test_why_mixed_pieces_are_unsafe():
    # The measured case behind the rule: bool, int and float pieces of one column.
    source = _src("""
        import pandas as pd


        def build(values: list) -> pd.DataFrame:
            out = pd.DataFrame()
            for value in values:
                out = pd.concat([out, pd.DataFrame({"v": [value]})])
            return out
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    fixed = idempotent_fix(source)
    before = run_example("", source, "build([True, 1, 1.5])")
    after = run_example("", fixed, "build([True, 1, 1.5])")
    assert (str(before["v"].dtype), str(after["v"].dtype)) == ("float64", "object")
    assert_same_result(before, after, strict=False)


def test_why_indexing_with_a_mask_is_not_a_row_selection():
    # With MultiIndex columns `frame["a"]` is a frame; `frame[frame_mask]` blanks values
    # (`where`) instead of selecting rows, so dtypes change with the data. `.loc` refuses.
    frame = pd.DataFrame(
        [[1, 2, 1.5], [3, 4, 2.5]], columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y"), ("b", "")])
    )
    assert str(frame.dtypes.iloc[0]) == "int64"
    blanked = frame[frame["a"] > 2]
    assert len(blanked) == 2 and str(blanked.dtypes.iloc[0]) == "float64"  # no row removed, int64 lost
    with pytest.raises(ValueError):
        frame.loc[frame["a"] > 2]


@pytest.mark.parametrize(
    "mask", ["group.amount > key", "group['amount'] > group", "group.amount in [1, 2]", "group.amount"]
)
def test_masks_that_may_not_select_rows_are_unsafe(mask):
    source = _grown("for key, group in sales.groupby('region'):", f"group.loc[{mask}]")
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE


# -- sort=True when the loop may not run ------------------------------------------------------


def test_sort_with_a_start_in_unsorted_column_order_is_declined():
    # One concat([start], sort=True) sorts the start's columns; a loop that never runs leaves
    # them as they are.
    source = _src("""
        import pandas as pd


        def build(items: list) -> pd.DataFrame:
            out = pd.DataFrame(columns=["b", "a"])
            for item in items:
                out = pd.concat([out, pd.DataFrame({"a": [item], "b": [item]})], sort=True)
            return out
    """)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and not finding.fix.edits
    zero_iterations = list(run_example("", source, "build([])").columns)
    assert zero_iterations == ["b", "a"]
    assert list(pd.concat([pd.DataFrame(columns=["b", "a"])], sort=True).columns) == ["a", "b"]


@pytest.mark.parametrize(
    "start", ['pd.DataFrame(columns=["a", "b"])', 'pd.DataFrame({"a": [1.5], "b": ["x"]})', "pd.DataFrame()"]
)
def test_sort_with_a_start_in_sorted_column_order_isidempotent_fix(start):
    source = _src(f"""
        import pandas as pd


        def build(items: list) -> pd.DataFrame:
            out = {start}
            for item in items:
                out = pd.concat([out, pd.DataFrame({{"b": [item], "a": [item]}})], sort=True)
            return out
    """)
    fixed = idempotent_fix(source)
    assert "out = pd.concat(parts, sort=True)" in fixed
    for items in ([], [1], [1, 2]):
        assert_same_result(
            run_example("", source, f"build({items})"), run_example("", fixed, f"build({items})"), strict=True
        )


# -- one-row frame literals: collected as records, the frame built once -------------------------


def _one_row(
    piece: str,
    start: str = "pd.DataFrame()",
    options: str = ", ignore_index=True",
    named: bool = False,
    loop: str = "for value in values:",
) -> str:
    if named:
        body = f"piece = {piece}\n                out = pd.concat([out, piece]{options})"
    else:
        body = f"out = pd.concat([out, {piece}]{options})"
    return _src(f"""
        import pandas as pd


        def build(values: list) -> pd.DataFrame:
            out = {start}
            {loop}
                {body}
            return out
    """)


ONE_ROW_LITERALS = {
    "dict of one-element lists": (
        'pd.DataFrame({"v": [value], "half": [value / 2]})',
        '{"v": value, "half": value / 2}',
    ),
    "list of one dict": ('pd.DataFrame([{"v": value, "half": value / 2}])', '{"v": value, "half": value / 2}'),
    "list of one list with columns": (
        'pd.DataFrame([[value, value / 2]], columns=["v", "half"])',
        '{"v": value, "half": value / 2}',
    ),
    "list of one tuple with columns": (
        "pd.DataFrame([(value, value / 2)], columns=('v', 'half'))",
        "{'v': value, 'half': value / 2}",
    ),
}
RECORD_STARTS = ["pd.DataFrame()", 'pd.DataFrame(columns=["half", "v"])', 'pd.DataFrame(columns=["v"])']


@pytest.mark.parametrize("named", [False, True], ids=["inline", "named"])
@pytest.mark.parametrize("shape", list(ONE_ROW_LITERALS))
def test_one_row_literals_are_collected_as_records(shape, named):
    piece, record = ONE_ROW_LITERALS[shape]
    source = _one_row(piece, named=named)
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_text(source, unsafe_fixes=False) == source
    columns = '["v", "half"]' if '"v"' in record else "['v', 'half']"
    assert idempotent_fix(source) == _src(f"""
        import pandas as pd


        def build(values: list) -> pd.DataFrame:
            out = pd.DataFrame()
            rows = []
            for value in values:
                rows.append({record})
            if rows:
                out = pd.concat([out, pd.DataFrame(rows, columns={columns})], ignore_index=True)
            return out
    """)


@pytest.mark.parametrize("start", RECORD_STARTS)
@pytest.mark.parametrize("named", [False, True], ids=["inline", "named"])
@pytest.mark.parametrize("shape", list(ONE_ROW_LITERALS))
def test_records_compute_exactly_the_same_frame_for_one_kind_of_value(shape, named, start):
    # Every column holds one kind of value (ints, and floats from them): the frame built
    # once equals the chain exactly, dtypes, index and column order included, also when the
    # loop runs zero times and whatever the start.
    source = _one_row(ONE_ROW_LITERALS[shape][0], start=start, named=named)
    fixed = idempotent_fix(source)
    assert "rows.append(" in fixed
    _assert_same_when_run(
        source, fixed, "values = [int(v) for v in rng.integers(0, 100, N)]", "build(values)", strict=True
    )


def test_records_without_a_guard_when_the_loop_always_runs_and_several_pieces_per_step():
    source = _one_row(
        'pd.DataFrame({"a": [value]}), pd.DataFrame([{"b": value * 0.5, "a": -value}])',
        start='pd.DataFrame({"c": ["s"], "a": [7]}, index=["x"])',
        loop="for value in range(4):",
    )
    fixed = idempotent_fix(source)
    assert fixed == _src("""
        import pandas as pd


        def build(values: list) -> pd.DataFrame:
            out = pd.DataFrame({"c": ["s"], "a": [7]}, index=["x"])
            rows = []
            for value in range(4):
                rows.extend([{"a": value}, {"b": value * 0.5, "a": -value}])
            out = pd.concat([out, pd.DataFrame(rows, columns=["a", "b"])], ignore_index=True)
            return out
    """)
    # The missing "b" of each first piece and the missing "c" are NaN either way.
    _assert_same_when_run(source, fixed, "values = []", "build(values)", strict=True)


def test_a_named_piece_keeps_its_place_and_the_comments_of_both_lines():
    source = _src("""
        import pandas as pd


        def build(values: list) -> pd.DataFrame:
            out = pd.DataFrame()
            for value in values:
                if value > 10:
                    # one row
                    row = pd.DataFrame([(value, str(value))], columns=["n", "label"])  # built
                    seen = value
                    # grow it
                    out = pd.concat([out, row], ignore_index=True)  # slow
            return out
    """)
    fixed = idempotent_fix(source)
    assert fixed == _src("""
        import pandas as pd


        def build(values: list) -> pd.DataFrame:
            out = pd.DataFrame()
            rows = []
            for value in values:
                if value > 10:
                    # one row
                    # grow it
                    # slow
                    rows.append({"n": value, "label": str(value)})  # built
                    seen = value
            if rows:
                out = pd.concat([out, pd.DataFrame(rows, columns=["n", "label"])], ignore_index=True)
            return out
    """)
    _assert_same_when_run(
        source, fixed, "values = [int(v) for v in rng.integers(0, 100, N)]", "build(values)", strict=True
    )


RECORDS_DECLINED = {
    "no ignore_index (every piece keeps index 0)": _one_row('pd.DataFrame({"v": [value]})', options=""),
    "ignore_index=False": _one_row('pd.DataFrame({"v": [value]})', options=", ignore_index=False"),
    "not a literal": _one_row("pd.DataFrame(value)"),
    "a column of several values": _one_row('pd.DataFrame({"v": [value, value]})'),
    "a column that is not a list literal": _one_row('pd.DataFrame({"v": value})'),
    "two rows": _one_row('pd.DataFrame([{"v": value}, {"v": 1}])'),
    "a starred value": _one_row('pd.DataFrame([[*value]], columns=["v"])'),
    "dtype=": _one_row('pd.DataFrame({"v": [value]}, dtype="float64")'),
    "index=": _one_row('pd.DataFrame({"v": [value]}, index=[value])'),
    "data=": _one_row('pd.DataFrame(data={"v": [value]})'),
    "a non-constant key": _one_row("pd.DataFrame({str(value): [value]})"),
    "a number as key": _one_row("pd.DataFrame({0: [value]})"),
    "a repeated key": _one_row('pd.DataFrame({"v": [value], "v": [1]})'),
    "a dict spread": _one_row("pd.DataFrame([{**value}])"),
    "columns not constants": _one_row('pd.DataFrame([[value]], columns=list("v"))'),
    "columns of another length": _one_row('pd.DataFrame([[value, 1]], columns=["v"])'),
    "no columns": _one_row("pd.DataFrame([[value]])"),
    "prepended": _one_row('pd.DataFrame({"v": [value]})').replace("[out, pd", "[pd").replace("]})]", "]}), out]"),
    "a comment inside the literal": _one_row('pd.DataFrame({"v": [value]  # the value\n        })'),
    "a piece also used later in the loop": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "ignore_index=True)\n", "ignore_index=True)\n        print(piece)\n"
    ),
    "a piece also used after the loop": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "return out", "return out, piece"
    ),
    "a piece bound twice": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "out = pd.DataFrame()", "piece = None\n    out = pd.DataFrame()"
    ),
    "a piece bound in another block": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "piece = pd", "if value:\n            piece = pd"
    ),
    "a jump between the piece and the growth": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "\n        out = pd.concat", "\n        if value:\n            continue\n        out = pd.concat"
    ),
    "a piece read by a nested function": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "return out", "return lambda: piece"
    ),
    "a piece read through locals()": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "return out", "return out, locals()['piece']"
    ),
    "a named piece next to another piece": _one_row('pd.DataFrame({"v": [value]})', named=True).replace(
        "[out, piece]", "[out, piece, pd.DataFrame({'v': [1]})]"
    ),
    "a series start": _one_row('pd.DataFrame({"v": [value]})', start='pd.Series(dtype="float64")'),
    "a Series literal": _one_row("pd.Series([value])"),
}


@pytest.mark.parametrize("name", list(RECORDS_DECLINED))
def test_pieces_that_are_not_one_row_literals_keep_the_list_of_pieces(name):
    source = RECORDS_DECLINED[name]
    ast_ok = compile(source, "<test>", "exec")
    assert ast_ok is not None
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.UNSAFE
    fixed = idempotent_fix(source)
    assert "rows" not in fixed and "parts" in fixed


def test_a_growth_declined_today_stays_declined_with_one_row_literals():
    # `ignore_index=True` on a start whose index is unknown, in a loop that may not run: the
    # rewrite would renumber the start. The records rewrite follows the same rule.
    source = _one_row('pd.DataFrame({"v": [value]})', start="pd.read_parquet('x.parquet')")
    [finding] = _findings(source)
    assert finding.fix.applicability is Applicability.DISPLAY and not finding.fix.edits


def test_other_frame_libraries_keep_the_list_of_pieces():
    source = _src("""
        import cudf

        out = cudf.DataFrame()
        for value in range(3):
            out = cudf.concat([out, cudf.DataFrame({"v": [value]})], ignore_index=True)
    """)
    fixed = idempotent_fix(source)
    assert "parts.append(cudf.DataFrame" in fixed and "rows" not in fixed


# Measured with pandas 3.1 (the decision behind the unsafe applicability): one-row frames
# concatenated one by one infer each row's dtype on its own and then find a common dtype
# per concat; a frame built once from records infers each column from all its values.
MIXED_VALUES = {
    "int then None": ("[3, None]", ("object", "float64")),  # None kept vs NaN
    "None then float": ("[None, 2.5]", ("object", "float64")),
    "str then None": ("['x', None]", ("object", "str")),
    "int then bool": ("[3, True]", ("int64", "object")),  # True becomes 1 vs kept
    "float, int, bool": ("[2.5, 3, True]", ("float64", "object")),
    "None then timestamp": ("[None, pd.Timestamp('2024-01-02')]", ("object", "datetime64[us]")),
    "int32 then float32": ("[np.int32(4), np.float32(1.5)]", ("float64", "float32")),
}


@pytest.mark.parametrize("name", list(MIXED_VALUES))
def test_why_records_are_unsafe_for_mixed_values(name):
    values, (chained, built) = MIXED_VALUES[name]
    source = _one_row('pd.DataFrame({"v": [value]})')
    fixed = idempotent_fix(source)
    before = run_example(f"values = {values}", source, "build(values)")
    after = run_example(f"values = {values}", fixed, "build(values)")
    assert (str(before["v"].dtype), str(after["v"].dtype)) == (chained, built)
    assert list(before.index) == list(after.index) and list(before.columns) == list(after.columns)


KINDS = {
    "int": "3",
    "float": "2.5",
    "bool": "True",
    "None": "None",
    "str": "'x'",
    "nan": "float('nan')",
    "timestamp": "pd.Timestamp('2024-01-02')",
    "int32": "np.int32(4)",
    "float32": "np.float32(1.5)",
    "list": "[1, 2]",
}


def test_records_agree_with_the_chain_exactly_when_each_column_holds_one_kind():
    # Every pair of value kinds, through the real rewrite: the same kind twice always agrees
    # exactly; the pairs that differ are all mixed (the docs name them).
    source = _one_row('pd.DataFrame([{"v": value, "w": 1}])', start='pd.DataFrame(columns=["w"])')
    fixed = idempotent_fix(source)
    differing = set()
    for first, left in KINDS.items():
        for second, right in KINDS.items():
            setup = f"values = [{left}, {right}]"
            before = run_example(setup, source, "build(values)")
            after = run_example(setup, fixed, "build(values)")
            try:
                pd.testing.assert_frame_equal(before, after, check_exact=True, check_column_type=True)
            except AssertionError:
                differing.add((first, second))
    assert differing
    assert all(first != second for first, second in differing)
    assert ("int", "None") in differing and ("int", "bool") in differing and ("int", "float") not in differing


def test_a_frame_grown_two_ways_in_one_loop_is_one_finding():
    source = (
        "import pandas as pd\n\nframe = pd.DataFrame()\nfor i in range(100):\n"
        "    row = pd.DataFrame({'a': [i]})\n"
        "    if pd.__version__ >= '1.4':\n        frame = pd.concat([frame, row])\n"
        "    else:\n        frame = frame.append(row)\n"
        "other = pd.DataFrame()\nfor i in range(100):\n    other = pd.concat([other, pd.DataFrame({'a': [i]})])\n"
    )
    assert [d.start.line for d in lint_source(source) if d.code == "GPU101"] == [7, 12]
