"""Program templates, per rule with a rewrite: strategies that draw whole programs built from
the rule's idioms (its flagged examples, varied) and data from `values`.

A `Program` is a module's source, the `setup` that builds its inputs and the `call` whose
value is compared. `reference`, when given, is what the flagged code means to do (GPU107
makes a chained assignment that pandas 3 discards take effect): the fixed program is
compared with it instead of with the original.

`state`, when given, is an expression reading what the user's own code recorded while the
program ran (fits counted by a user's estimator, items a user's dataset served): compared
apart from the result, because a fix that moves that code into worker processes loses it.

`idiom` names the template a program comes from, so that a reported difference points at
the idiom that produced it.

`hazard`, when given, names the difference the program is built to exercise, one a rule's
"Fix safety" names (a piece changed after it was collected, a hoisted copy whose source
changes, a loop that runs zero times): any difference of an unsafe fix counts as that
class; a safe fix must still be identical.

`groups_by`, when given, names the column the program groups its frame by: where every
key is missing there is no group, and what the rewrite computes then is compared as on
inputs with no rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

from hypothesis import strategies as st

from . import values as v
from .expressions import idioms, mentions, numeric, text


@dataclass(frozen=True)
class Program:
    rule: str
    idiom: str
    setup: str
    source: str
    call: str
    reference: str | None = None
    state: str | None = None
    hazard: str | None = None
    groups_by: str | None = None


def _src(template: str) -> str:
    """A template written indented in this file, moved to column 0. Only the template's
    own indentation is removed: lines that drawn pieces insert (a statement before the
    loop, a tail after it) are written relative to the result already, and indented less
    than the template (deeper pieces are inserted after `_src`)."""
    lines = template.lstrip("\n").split("\n")
    prefix = lines[0][: len(lines[0]) - len(lines[0].lstrip(" "))]
    return "\n".join(line[len(prefix) :] if line.startswith(prefix) else line if line.strip() else "" for line in lines)


#: Numeric kinds with the far edges (complex with NaN, datetimes with NaT), drawn now and then.
EDGE_KINDS = v.NUMERIC_KINDS + v.EXOTIC_KINDS

#: Whether an expression may use element-free calls and `%` formatting (less often: most
#: loop rewrites decline them, so most programs should be ones they rewrite).
EXTRAS = st.sampled_from([False, False, True])


# -- GPU105 elementwise-apply -----------------------------------------------------------------
@st.composite
def elementwise_apply(draw: st.DrawFn) -> Program:
    numeric_data = draw(st.booleans())
    kinds = draw(st.sampled_from([v.NUMERIC_KINDS, v.NUMERIC_KINDS, EDGE_KINDS])) if numeric_data else v.TEXT_KINDS
    # bools twice as often: Python's bool arithmetic (True + True == 2) is not the column's
    setup = f"s = {draw(v.series(kinds + ('bool',) if numeric_data else kinds))}\nk = {draw(v.scalar())}\n"
    shape = draw(st.sampled_from(["lambda", "lambda", "lambda", "builtin", "frame", "identity"]))
    method = draw(st.sampled_from(["map", "apply"]))
    if shape == "builtin":
        function = draw(
            st.sampled_from(
                ["abs", "float", "int", "bool", "round"]
                if numeric_data
                else ["len", "str.lower", "str.upper", "str.strip", "str.title"]
            )
        )
    elif shape == "identity":
        function = "lambda x: x"
    elif shape == "frame":
        setup = f"df = {draw(v.frame(('a', 'b'), kinds, extra_object_column=False))}\nk = 1\n"
        function = draw(st.sampled_from(["abs", "float", "int", "bool", "round"] if numeric_data else ["len"]))
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                return df.map({function})
            """)
        return Program("GPU105", f"frame.map({function})", setup, source, "f(df, k)")
    else:
        # a body that reads the element and is not the element itself (that is "identity")
        body = draw(
            idioms(st.just("x")).filter(lambda e: e != "x" and mentions(("x",))(e)) if numeric_data else text("x")
        )
        function = f"lambda x: {body}"
    extra = ', na_action="ignore"' if method == "map" and draw(st.booleans()) else ""
    source = _src(f"""
        import pandas as pd


        def f(s: pd.Series, k):
            out = s.{method}({function}{extra})
            return out
        """)
    return Program("GPU105", f"{shape} s.{method}", setup, source, "f(s, k)")


# -- GPU104 apply-axis-1 ----------------------------------------------------------------------
ROW_LEAVES = st.sampled_from(['r["a"]', 'r["b"]'])


@st.composite
def apply_axis_1(draw: st.DrawFn) -> Program:
    kinds = draw(st.sampled_from([v.NUMERIC_KINDS, ("int64",), ("str", "object"), EDGE_KINDS]))
    setup = f"df = {draw(v.frame(('a', 'b'), kinds))}\nk = {draw(v.scalar())}\n"
    if kinds == ("str", "object"):
        body = draw(
            st.sampled_from(['r["a"] + " " + r["b"]', 'r["a"] + r["b"]', '"big" if r["a"] > r["b"] else "small"'])
        )
    else:
        body = draw(idioms(ROW_LEAVES, draw(EXTRAS)).filter(mentions(('r["a"]', 'r["b"]'))))
    shape = draw(st.sampled_from(["return", "column", "module"]))
    if shape == "return":
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                return df.apply(lambda r: {body}, axis=1)
            """)
        return Program("GPU104", "return df.apply", setup, source, "f(df, k)")
    if shape == "column":
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                df["c"] = df.apply(lambda r: {body}, axis=1)
                return df
            """)
        return Program("GPU104", "df['c'] = df.apply", setup, source, "f(df, k)")
    # module level, with NumPy imported only after the rewritten line
    source = _src(f"""
        import pandas as pd

        frame = pd.DataFrame(df)
        out = frame.apply(lambda r: {body}, axis=1)

        import numpy as np
        """)
    return Program("GPU104", "module level, numpy imported later", setup, source, "out")


# -- GPU102 iterrows-loop ---------------------------------------------------------------------
LOOP_TAILS = ("return out", "return out, i", 'print("last row:", i)\n    return out')


@st.composite
def iterrows_loop(draw: st.DrawFn) -> Program:
    kinds = draw(st.sampled_from([v.NUMERIC_KINDS, ("int64", "float64"), EDGE_KINDS]))
    setup = f"df = {draw(v.frame(('a', 'b'), kinds))}\nk = {draw(v.scalar())}\n"
    body = draw(
        numeric(st.sampled_from(['row["a"]', 'row["b"]']), 2, draw(EXTRAS)).filter(mentions(('row["a"]', 'row["b"]')))
    )
    tail = draw(st.sampled_from(LOOP_TAILS))
    before = draw(st.sampled_from(["", "i = -1\n    "]))
    shape = draw(st.sampled_from(["append", "append", "store", "comprehension"]))
    if shape == "append":
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                {before}out = []
                for i, row in df.iterrows():
                    out.append({body})
                {tail}
            """)
    elif shape == "store":
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                {before}for i, row in df.iterrows():
                    df.loc[i, "c"] = {body}
                out = df
                {tail}
            """)
    else:
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                return [{body} for _, row in df.iterrows()]
            """)
        tail = ""
    return Program("GPU102", f"{shape} {tail.split(chr(10))[0]}".strip(), setup, source, "f(df, k)")


# -- GPU103 index-loop-over-dataframe ---------------------------------------------------------
@st.composite
def index_loop(draw: st.DrawFn) -> Program:
    kinds = draw(st.sampled_from([v.NUMERIC_KINDS, ("int64", "float64"), EDGE_KINDS]))
    loop, leaves = draw(
        st.sampled_from(
            [
                ("for i in range(len(df)):", ['df.loc[i, "a"]', 'df["b"][i]']),
                ("for i in range(len(df)):", ['df["a"].iloc[i]', 'df["b"].iloc[i]']),
                ("for i in df.index:", ['df.at[i, "a"]', 'df.loc[i, "b"]']),
            ]
        )
    )
    # label access by position assumes the default index, as the rule's "Fix safety" says
    labels_by_position = "range" in loop and "iloc" not in leaves[0]
    setup = f"df = {draw(v.frame(('a', 'b'), kinds, default_index=labels_by_position))}\nk = {draw(v.scalar())}\n"
    body = draw(numeric(st.sampled_from(leaves), 2, draw(EXTRAS)).filter(mentions(tuple(leaves))))
    tail = draw(st.sampled_from(LOOP_TAILS))
    before = draw(st.sampled_from(["", "i = -1\n    "]))
    # a store by label (`df.loc[i, "c"] = ...`) only where the loop goes by label
    if "iloc" in leaves[0] or draw(st.booleans()):
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                {before}out = []
                {loop}
                    out.append({body})
                {tail}
            """)
        shape = "append"
    else:
        source = _src(f"""
            import pandas as pd


            def f(df: pd.DataFrame, k):
                {before}{loop}
                    df.loc[i, "c"] = {body}
                out = df
                {tail}
            """)
        shape = "store"
    return Program("GPU103", f"{shape} {loop} {tail.split(chr(10))[0]}", setup, source, "f(df, k)")


# -- GPU201 array-element-loop ----------------------------------------------------------------
@st.composite
def array_element_loop(draw: st.DrawFn) -> Program:
    n = draw(st.integers(0, 5))
    kinds = draw(st.sampled_from([v.NUMERIC_KINDS, v.NUMERIC_KINDS, EDGE_KINDS]))
    kind_a, kind_b = draw(st.sampled_from(kinds)), draw(st.sampled_from(kinds))
    a = draw(v.values(kind_a, n, n))
    b = draw(v.values(kind_b, n, n))
    setup = (
        f'a = np.array([{", ".join(map(v.literal, a))}], dtype="{kind_a}")\n'
        f'b = np.array([{", ".join(map(v.literal, b))}], dtype="{kind_b}")\n'
        f"k = {draw(v.scalar(('int64', 'float64')))}\n"
    )
    leaves = st.sampled_from(["a[i]", "b[i]"])
    body = draw(numeric(leaves, 2, draw(EXTRAS)).filter(mentions(("a[i]", "b[i]"))))
    tail = draw(st.sampled_from(("return out", "return out, i", 'print("last index:", i)\n    return out')))
    before = draw(st.sampled_from(["", "i = -1\n    "]))
    shape = draw(st.sampled_from(["store", "store", "total", "in place"]))
    if shape == "store":
        out = draw(st.sampled_from(["np.zeros(len(a))", "np.zeros(len(a), dtype=a.dtype)", "a.copy()"]))
        source = _src(f"""
            import numpy as np


            def f(a: np.ndarray, b: np.ndarray, k):
                {before}out = {out}
                for i in range(len(a)):
                    out[i] = {body}
                {tail}
            """)
    elif shape == "in place":
        source = _src(f"""
            import numpy as np


            def f(a: np.ndarray, b: np.ndarray, k):
                {before}for i in range(a.size):
                    a[i] = {body}
                out = a
                {tail}
            """)
    else:
        start = draw(st.sampled_from(["0", "0.0"]))
        source = _src(f"""
            import numpy as np


            def f(a: np.ndarray, b: np.ndarray, k):
                {before}out = {start}
                for i in range(a.shape[0]):
                    out += {body}
                {tail}
            """)
    return Program("GPU201", f"{shape} {tail.split(chr(10))[0]}", setup, source, "f(a, b, k)")


# -- GPU205 comprehension-over-array ----------------------------------------------------------
@st.composite
def comprehension_over_array(draw: st.DrawFn) -> Program:
    on_series = draw(st.booleans())
    if on_series:
        setup = f"a = {draw(v.series(draw(st.sampled_from([v.NUMERIC_KINDS, EDGE_KINDS]))))}\nk = {draw(v.scalar())}\n"
        annotation = "pd.Series"
    else:
        setup = f"a = {draw(v.array(draw(st.sampled_from([v.NUMERIC_KINDS, EDGE_KINDS]))))}\nk = {draw(v.scalar())}\n"
        annotation = "np.ndarray"
    body = draw(
        st.one_of(
            idioms(st.just("x"), draw(EXTRAS)).filter(mentions(("x",))),
            st.sampled_from(["x", "x * 2", "x[0]", "x.sum()"]),
        )
    )
    wrap = draw(st.sampled_from(["[{}]", "np.array([{}])", "np.asarray([{}])"]))
    comprehension = wrap.format(f"{body} for x in a")
    source = _src(f"""
        import numpy as np
        import pandas as pd


        def f(a: {annotation}, k):
            return {comprehension}
        """)
    return Program("GPU205", f"{wrap.format('...')} over {annotation}", setup, source, "f(a, k)")


# -- GPU204 python-builtin-on-array -----------------------------------------------------------
BUILTINS = ("sum", "max", "min", "any", "all", "sorted", "list")


@st.composite
def python_builtin_on_array(draw: st.DrawFn) -> Program:
    builtin = draw(st.sampled_from(BUILTINS))
    shape = draw(st.sampled_from(["array", "array", "series", "module"]))
    if shape == "series":
        setup = f"a = {draw(v.series(draw(st.sampled_from([v.NUMERIC_KINDS, EDGE_KINDS]))))}\n"
        source = _src(f"""
            import pandas as pd


            def f(a: pd.Series):
                return {builtin}(a)
            """)
        return Program("GPU204", f"{builtin}(series)", setup, source, "f(a)")
    data = (
        v.array_with_nan()
        if builtin in ("max", "min", "sorted") and draw(st.booleans())
        else v.array(draw(st.sampled_from([v.NUMERIC_KINDS, EDGE_KINDS])))
    )
    setup = f"a = {draw(data)}\n"
    if shape == "array":
        source = _src(f"""
            import numpy as np


            def f(a: np.ndarray):
                return {builtin}(a)
            """)
        return Program("GPU204", f"{builtin}(array)", setup, source, "f(a)")
    reader = draw(st.sampled_from([("import numpy", "numpy.asarray"), ("from numpy import asarray", "asarray")]))
    source = _src(f"""
        {reader[0]}

        values = {reader[1]}(a)
        result = {builtin}(values)

        import numpy as np
        """)
    return Program("GPU204", f"{builtin}(array), numpy imported later", setup, source, "result")


# -- GPU106 groupby-apply-lambda --------------------------------------------------------------
@st.composite
def groupby_apply_lambda(draw: st.DrawFn) -> Program:
    setup = f"df = {draw(v.frame(('g', 'v'), ('int64', 'bool', 'str', 'category', 'float64')))}\n"
    method = draw(st.sampled_from(["sum", "mean", "max", "min", "count", "nunique", "first", "std"]))
    form = draw(
        st.sampled_from(
            [
                f'df.groupby("g").apply(lambda grp: grp["v"].{method}())',
                f'df.groupby("g")["v"].apply(lambda t: t.{method}())',
                f'df.groupby("g")["v"].transform(lambda t: t.{method}())',
                f'df.groupby("g")[["v"]].agg(lambda c: c.{method}())',
                'df.groupby("g").apply(len)',
                'df.groupby("g").apply(lambda grp: len(grp))',
            ]
        )
    )
    source = _src(f"""
        import pandas as pd


        def f(df: pd.DataFrame):
            return {form}
        """)
    return Program("GPU106", form.replace(method, "M"), setup, source, "f(df)", groups_by="g")


# -- GPU107 chained-assignment ----------------------------------------------------------------
@st.composite
def chained_assignment(draw: st.DrawFn) -> Program:
    n = draw(st.integers(1, 6))
    kind = draw(st.sampled_from(("int64", "float64")))
    column = draw(v.values(kind, n, n))
    index = draw(
        st.sampled_from([None, f"list(range({n}))", f"[i * 2 for i in range({n})]", f"list(range({n}, 0, -1))"])
    )
    frame = f'pd.DataFrame({{"c": pd.Series([{", ".join(map(v.literal, column))}], dtype="{kind}"), "d": {n}}})'
    if index is not None:
        frame += f".set_axis({index})"
    # a scalar key is a label the frame has: what writing to a missing label meant differed
    # between the forms (the column grew apart from the frame), so there is no one reference
    key = draw(st.sampled_from(["slice(1, 3)", "slice(0, 2)", "slice(None, 2)", "df.index[0]", "df.index[-1]", "mask"]))
    value = draw(st.sampled_from(["0", "7", "-1"]))
    setup = f"df = {frame}\nk = {key if key != 'mask' else 'None'}\n"
    target, col_target = draw(
        st.sampled_from(
            [
                ('df["c"][k]', "col[k]"),
                ('df["c"].loc[k]', "col.loc[k]"),
                ('df["c"][df["c"] > 0]', "col[col > 0]"),
            ]
        )
    )
    if key == "mask":
        target, col_target = 'df["c"][df["c"] > 0]', "col[col > 0]"
    source = _src(f"""
        import pandas as pd


        def f(df: pd.DataFrame, k):
            {target} = {value}
            return df
        """)
    reference = _src(f"""
        import pandas as pd


        def f(df: pd.DataFrame, k):
            col = df["c"].copy()
            {col_target} = {value}
            df["c"] = col
            return df
        """)
    return Program(
        "GPU107",
        f"{target} = v, k = {'slice' if 'slice' in key else 'label' if 'index' in key else key}",
        setup,
        source,
        "f(df, k)",
        reference,
    )


# -- GPU101 dataframe-grown-in-loop -----------------------------------------------------------
MIXED = st.sampled_from(["1", "2.5", "None", "True", "'x'", "float('nan')", "-3", str(2**62)])


@st.composite
def dataframe_grown_in_loop(draw: st.DrawFn) -> Program:
    shape = draw(st.sampled_from(["records", "groups", "loc"]))
    if shape == "records":
        items = draw(st.lists(MIXED, max_size=4))
        setup = f"days = [{', '.join(items)}]\n"
        source = _src("""
            import pandas as pd


            def f(days: list) -> pd.DataFrame:
                totals = pd.DataFrame()
                for day in days:
                    piece = pd.DataFrame({"day": [day], "total": [day]})
                    totals = pd.concat([totals, piece], ignore_index=True)
                return totals
            """)
        return Program("GPU101", "one-row literals", setup, source, "f(days)")
    if shape == "loc":
        items = draw(st.lists(st.tuples(MIXED, MIXED), max_size=4))
        setup = f"rows = [{', '.join(f'({a}, {b})' for a, b in items)}]\n"
        source = _src("""
            import pandas as pd


            def f(rows: list) -> pd.DataFrame:
                board = pd.DataFrame(columns=["x", "y"])
                for x, y in rows:
                    board.loc[len(board)] = [x, y]
                return board
            """)
        return Program("GPU101", "df.loc[len(df)] = row", setup, source, "f(rows)")
    kinds = ("int64", "str", "category", "float64", "bool", "int8", *v.EXOTIC_KINDS)
    setup = f"sales = {draw(v.frame(('region', 'amount'), kinds))}\n"
    selection = draw(
        st.sampled_from(
            ["group.head(2)", 'group.nlargest(1, "amount")', "group.dropna()", "group.copy()", "group.tail(1)"]
        )
    )
    if draw(st.integers(0, 3)) == 0:
        # the piece is changed after it joined: the chain kept a copy, a list keeps the piece
        change = draw(
            st.sampled_from(
                [
                    'piece["amount"] = 0',
                    "piece.iloc[:, 1] = 0",
                    'piece.loc[:, "amount"] = 0',
                    "piece.drop(piece.index, inplace=True)",
                ]
            )
        )
        source = _src(f"""
            import pandas as pd


            def f(sales: pd.DataFrame) -> pd.DataFrame:
                best = pd.DataFrame()
                for _, group in sales.groupby("region"):
                    piece = {selection}
                    best = pd.concat([best, piece])
                    {change}
                return best
            """)
        return Program("GPU101", f"groupby piece changed after: {change}", setup, source, "f(sales)", hazard="aliasing")
    source = _src(f"""
        import pandas as pd


        def f(sales: pd.DataFrame) -> pd.DataFrame:
            best = pd.DataFrame()
            for _, group in sales.groupby("region"):
                best = pd.concat([best, {selection}])
            return best
        """)
    return Program("GPU101", f"groupby pieces {selection}", setup, source, "f(sales)")


# -- GPU202 array-grown-in-loop ---------------------------------------------------------------
@st.composite
def array_grown_in_loop(draw: st.DrawFn) -> Program:
    shape = draw(st.sampled_from(["pieces", "pieces", "aliasing", "promotion", "error-order"]))
    if shape == "aliasing":
        return draw(_grown_piece_changed_later())
    if shape == "promotion":
        items = draw(
            st.lists(
                st.sampled_from(
                    [
                        "[1.5, 'a']",
                        "2**70",
                        "'x'",
                        "[2**64, -1]",
                        "float('nan')",
                        "np.datetime64('2020-01-01')",
                        "1j",
                        "None",
                        "[True, 2]",
                    ]
                ),
                min_size=1,
                max_size=3,
            )
        )
        setup = f"pieces = [{', '.join(items)}]\n"
        return Program(
            "GPU202",
            "pieces of mixed kinds",
            setup,
            _GROWN.format(start="np.array([])", grow="found = np.append(found, piece)", before=""),
            "f(pieces)",
            hazard="promotion",
        )
    if shape == "error-order":
        good = draw(st.lists(st.sampled_from(["[1.0, 2.0]", "[3.0]", "[]"]), max_size=2))
        bad = draw(st.sampled_from(["[[1.0], [2.0, 3.0]]", "'text'", "{'a': 1}"]))
        setup = f"pieces = [{', '.join([*good, bad, '[4.0]'])}]\n"
        return Program(
            "GPU202",
            "a piece the chain cannot join",
            setup,
            _GROWN.format(
                start="np.empty((0, 2))",
                grow="found = np.vstack([found, piece])",
                before='print("piece", piece)\n        ',
            ),
            "f(pieces)",
            hazard="error-order",
        )
    pieces = draw(st.lists(v.array(v.NUMERIC_KINDS, min_size=0, max_size=3, two_d=False), max_size=3))
    setup = f"pieces = [{', '.join(pieces)}]\n"
    start, grow = draw(
        st.sampled_from(
            [
                ("np.array([])", "found = np.append(found, piece)"),
                ("np.empty(0)", "found = np.concatenate([found, piece])"),
                ("np.array([], dtype=np.int8)", "found = np.append(found, piece)"),
                ("np.zeros(0, dtype=bool)", "found = np.concatenate([found, piece])"),
                ("np.empty((0, 3))", "found = np.vstack([found, np.resize(piece, 3)])"),
            ]
        )
    )
    return Program(
        "GPU202",
        f"{start} / {grow.split('=')[1].split('(')[0].strip()}",
        setup,
        _GROWN.format(start=start, grow=grow, before=""),
        "f(pieces)",
    )


_GROWN = _src("""
    import numpy as np


    def f(pieces: list) -> np.ndarray:
        found = {start}
        for piece in pieces:
            {before}{grow}
        return found
    """)

#: A piece the loop changes after growing the array with it: (setup of `buffer` before the
#: loop, the statements of one iteration, the library), `acc` grown from `buffer`.
_CHANGED_LATER = {
    "row buffer refilled": (
        "buffer = np.empty(2)",
        "buffer[0] = i\nbuffer[1] = i * 10\nacc = np.vstack([acc, buffer])",
        "np.empty((0, 2))",
    ),
    "piece += 1 after": ("buffer = np.zeros(2)", "acc = np.append(acc, buffer)\nbuffer += 1", "np.array([])"),
    "piece.fill before": ("buffer = np.zeros(2)", "buffer.fill(i)\nacc = np.concatenate([acc, buffer])", "np.zeros(0)"),
    "np.add(out=) after": (
        "buffer = np.zeros(2)",
        "acc = np.append(acc, buffer)\nnp.add(buffer, 1, out=buffer)",
        "np.array([])",
    ),
    "list piece grows": ("buffer = [0.0]", "acc = np.append(acc, buffer)\nbuffer.append(float(i))", "np.array([])"),
    "view of a changed array": (
        "base = np.zeros(4)\nbuffer = base[:2]",
        "acc = np.append(acc, buffer)\nbase += 1",
        "np.array([])",
    ),
    "dict value changed in place": (
        'box = {"k": np.zeros(2)}',
        'acc = np.append(acc, box["k"])\nbox["k"][0] += 1',
        "np.array([])",
    ),
}


@st.composite
def _grown_piece_changed_later(draw: st.DrawFn) -> Program:
    n = draw(st.integers(0, 4))
    if draw(st.integers(0, 7)) == 0:
        setup = f"import torch\nn = {n}\n"
        source = _src("""
            import torch


            def f(n):
                acc = torch.empty(0, 2)
                b = torch.zeros(1, 2)
                for i in range(n):
                    b.fill_(i)
                    acc = torch.cat([acc, b])
                return acc
            """)
        return Program("GPU202", "tensor refilled before torch.cat", setup, source, "f(n)", hazard="aliasing")
    label = draw(st.sampled_from(sorted(_CHANGED_LATER)))
    before, body, start = _CHANGED_LATER[label]
    indent = "\n        "
    source = (
        f"import numpy as np\n\n\ndef f(n):\n    acc = {start}\n    {before.replace(chr(10), chr(10) + '    ')}\n"
        f"    for i in range(n):\n        {body.replace(chr(10), indent)}\n    return acc\n"
    )
    return Program("GPU202", label, f"n = {n}\n", source, "f(n)", hazard="aliasing")


# -- torch rules ------------------------------------------------------------------------------
TORCH_DTYPES = st.sampled_from(["torch.float32", "torch.float64", "torch.int64", "torch.int8", "torch.bool"])


@st.composite
def host_to_device_in_loop(draw: st.DrawFn) -> Program:
    shape = draw(st.sampled_from(["plain", "plain", "view", "global", "generator", "zero-iterations"]))
    if shape != "plain":
        return draw(_hoisted_source_changes(shape))
    n = draw(st.integers(0, 4))
    dtype = draw(TORCH_DTYPES)
    weights = (
        [True, False, True] if dtype == "torch.bool" else draw(st.lists(st.integers(-9, 9), min_size=3, max_size=3))
    )
    setup = (
        f"import torch\nbatches = [torch.arange(3, dtype=torch.float64) * i for i in range({n})]\n"
        f"weights = torch.tensor({weights}, dtype={dtype})\n"
    )
    tail = draw(st.sampled_from(["return sums", "return sums, batch"]))
    source = _src(f"""
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"


        def f(batches, weights):
            w = torch.as_tensor(weights)
            sums = []
            for batch in batches:
                w_device = w.to(device)
                sums.append((batch.to(device) * w_device).sum().item())
            {tail}
        """)
    return Program("GPU302", f"copy hoisted, {tail}", setup, source, "f(batches, weights)")


#: Loops whose hoisted copy's source changes by a way the loop does not name (a view, a
#: function changing a global, the consumer of a generator), and one that runs zero times
#: over data torch cannot convert.
_HOISTED = {
    "view": """
        def f(batches, weights):
            w = np.array(weights, dtype=np.float64)
            view = w[:]
            sums = []
            for batch in batches:
                w_device = torch.tensor(w, device=device)
                sums.append((batch.to(device) * w_device).sum().item())
                view += 1
            return sums
        """,
    "global": """
        W = np.zeros(3)


        def bump():
            W[0] += 1


        def f(batches, weights):
            sums = []
            for batch in batches:
                w_device = torch.tensor(W, device=device)
                sums.append((batch.to(device) * w_device).sum().item())
                bump()
            return sums
        """,
    "generator": """
        def sums_of(batches, w):
            for batch in batches:
                w_device = torch.tensor(w, device=device)
                yield (batch.to(device) * w_device).sum().item()


        def f(batches, weights):
            w = np.array(weights, dtype=np.float64)
            out = []
            for value in sums_of(batches, w):
                out.append(value)
                w += 1
            return out
        """,
    "zero-iterations": """
        def f(batches, weights):
            w = np.array(["a", "b", "c"])
            sums = []
            for batch in batches:
                w_device = torch.tensor(w, device=device)
                sums.append(batch.sum().item() + len(w_device))
            return sums
        """,
}


@st.composite
def _hoisted_source_changes(draw: st.DrawFn, shape: str) -> Program:
    n = 0 if shape == "zero-iterations" else draw(st.integers(1, 4))
    weights = draw(st.lists(st.integers(-9, 9), min_size=3, max_size=3))
    setup = (
        f"import torch\nbatches = [torch.arange(3, dtype=torch.float64) * i for i in range({n})]\nweights = {weights}\n"
    )
    source = (
        _src("""
        import numpy as np
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
        """)
        + "\n\n"
        + _src(_HOISTED[shape])
    )
    hazard = "zero-iterations" if shape == "zero-iterations" else "stale-source"
    return Program("GPU302", f"hoisted source changes: {shape}", setup, source, "f(batches, weights)", hazard=hazard)


@st.composite
def device_round_trip(draw: st.DrawFn) -> Program:
    exotic = draw(st.sampled_from([None, None, "bfloat16", "requires_grad", "conj", "sparse"]))
    n = draw(st.integers(0, 4))
    if exotic is None:
        dtype = draw(TORCH_DTYPES)
        setup = f"import torch\nt = (torch.arange({n}) - 1).to({dtype})\n"
    else:
        setup = (
            "import torch\n"
            + {
                "bfloat16": f"t = (torch.arange({n}) - 1).to(torch.bfloat16)\n",
                "requires_grad": f"t = torch.arange({n}, dtype=torch.float32).requires_grad_()\n",
                "conj": f"t = (torch.arange({n}) * (1 + 1j)).to(torch.complex64)\n",  # conj() in the call
                "sparse": f"t = torch.eye({max(n, 1)}).to_sparse()\n",
            }[exotic]
        )
    factory = draw(st.sampled_from(["torch.tensor", "torch.as_tensor", "torch.from_numpy"]))
    source = _src(f"""
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"


        def f(t):
            t = t.to(device)
            return {factory}(t.cpu().numpy()).to(device)
        """)
    idiom = f"{factory}(t.cpu().numpy()).to(device)" + (f" of a {exotic} tensor" if exotic else "")
    call = "f(t.conj())" if exotic == "conj" else "f(t)"  # a deep copy would resolve the bit
    return Program("GPU303", idiom, setup, source, call, hazard="error" if exotic else None)


@st.composite
def tensor_created_on_host(draw: st.DrawFn) -> Program:
    counts = draw(st.lists(st.integers(-(2**62), 2**62), max_size=4))
    # n = -1: every factory raises, and the fix must raise the same
    setup = f"import torch\nn = {draw(st.integers(-1, 4))}\ncounts = {counts}\n"
    factory = draw(
        st.sampled_from(
            [
                "torch.zeros(n)",
                "torch.arange(n)",
                "torch.ones(n, dtype=torch.int8)",
                "torch.full((len(counts),), 7, dtype=torch.float64)",
                "torch.linspace(0, 1, n)",
                "torch.eye(n)",
                "torch.full((n,), 7)",
                "torch.randn(n)",
                "torch.empty(n).fill_(1)",
                "torch.zeros(n, dtype=torch.bfloat16)",
                "torch.ones(n, dtype=torch.complex64)",
                "torch.full((n,), 2**40)",
                "torch.full((n,), float('nan'))",
            ]
        )
    )
    move = draw(st.sampled_from([".to(device)", ".to(device=device)", '.to("cpu")']))
    source = _src(f"""
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"


        def f(n, counts):
            torch.manual_seed(0)
            return {factory}{move}


        def per_sequence(n, counts):
            return [f(n, counts) for _ in range(2)]  # made once per item: what GPU304 reports
        """)
    return Program("GPU304", f"{factory}{move}", setup, source, "per_sequence(n, counts)")


@st.composite
def dataloader_without_workers(draw: st.DrawFn) -> Program:
    n = draw(st.integers(0, 6))
    setup = f"import torch\nfrom torch.utils.data import TensorDataset\ndata = TensorDataset(torch.arange({n}.0))\n"
    arguments = draw(
        st.sampled_from(
            [
                "dataset, batch_size=2",
                "dataset, batch_size=2, num_workers=0",
                "\n        dataset,\n        batch_size=2,\n    ",
                "\n        dataset,\n        batch_size=2\n    ",
                "\n        dataset, batch_size=2\n    ",
                "dataset,\n                        batch_size=2",
            ]
        )
    )
    counting = draw(st.booleans())
    dataset = "Counting(data)" if counting else "data"
    source = _src(f"""
        import torch
        from torch.utils.data import DataLoader, Dataset

        device = "cuda" if torch.cuda.is_available() else "cpu"
        SEEN = []


        class Counting(Dataset):
            def __init__(self, inner):
                self.inner = inner

            def __len__(self):
                return len(self.inner)

            def __getitem__(self, i):
                SEEN.append(i)
                return self.inner[i]


        def f(data):
            dataset = {dataset}
            loader = DataLoader(ARGUMENTS)
            sums = []
            for (features,) in loader:
                sums.append(features.to(device).sum().item())
            return sums
        """).replace("ARGUMENTS", arguments)  # inserted after the template is moved to column 0
    return Program(
        "GPU305",
        f"DataLoader({'counting dataset' if counting else 'TensorDataset'})",
        setup,
        source,
        "f(data)",
        state="len(SEEN)",
    )


# -- scikit-learn rules -----------------------------------------------------------------------
SKLEARN_DATA = (
    "from sklearn.datasets import make_classification\n"
    "X, y = make_classification(n_samples=60, n_features=4, random_state={seed})\n"
    "X_train, X_test, y_train = X[:40], X[40:], y[:40]\n"
)


@st.composite
def manual_pipeline(draw: st.DrawFn) -> Program:
    setup = SKLEARN_DATA.format(seed=draw(st.integers(0, 3)))
    transformer = draw(st.sampled_from(["StandardScaler()", "MinMaxScaler()", "PCA(n_components=2)"]))
    module = "decomposition" if transformer.startswith("PCA") else "preprocessing"
    name = transformer.split("(")[0]
    late_import = draw(st.booleans())
    source = _src(f"""
        from sklearn.linear_model import LogisticRegression
        from sklearn.{module} import {name}

        t = {transformer}
        Xt = t.fit_transform(X_train)
        Xt_test = t.transform(X_test)
        model = LogisticRegression(max_iter=200)
        model.fit(Xt, y_train)
        result = model.predict_proba(Xt_test)
        """)
    if late_import:
        source += "\nfrom sklearn.pipeline import make_pipeline\n"
    return Program(
        "GPU401",
        f"{name} then LogisticRegression{', make_pipeline imported later' if late_import else ''}",
        setup,
        source,
        "result",
    )


@st.composite
def estimator_without_n_jobs(draw: st.DrawFn) -> Program:
    setup = SKLEARN_DATA.format(seed=draw(st.integers(0, 3)))
    form = draw(
        st.sampled_from(
            [
                (
                    "RandomForestClassifier(n_estimators=4, random_state=0)",
                    "from sklearn.ensemble import RandomForestClassifier",
                ),
                ("KNeighborsClassifier(n_neighbors=3)", "from sklearn.neighbors import KNeighborsClassifier"),
                (
                    "BaggingClassifier(estimator=Counting(), n_estimators=4, random_state=0)",
                    "from sklearn.ensemble import BaggingClassifier",
                ),
                (
                    "LogisticRegressionCV(cv=3, scoring=counting_scorer)",
                    "from sklearn.linear_model import LogisticRegressionCV",
                ),
            ]
        )
    )
    source = _src(f"""
        from sklearn.tree import DecisionTreeClassifier
        {form[1]}

        CALLS = []


        class Counting(DecisionTreeClassifier):
            def fit(self, X, y, sample_weight=None, check_input=True):
                CALLS.append(len(X))
                return super().fit(X, y, sample_weight=sample_weight, check_input=check_input)


        def counting_scorer(estimator, X, y):
            CALLS.append(len(X))
            return (estimator.predict(X) == y).mean()


        def f(X, y):
            model = ESTIMATOR
            return model.fit(X, y).predict(X)
        """)
    name, arguments = form[0][:-1].split("(", 1)
    layout = draw(st.sampled_from(["{}({})", "{}(\n        {}\n    )", "{}(\n        {},\n    )"]))
    source = source.replace("ESTIMATOR", layout.format(name, arguments))
    return Program(
        "GPU403",
        form[0].split("(")[0] + ("(user code)" if "ount" in form[0] else ""),
        setup,
        source,
        "f(X_train, y_train)",
        state="len(CALLS)",
    )


#: Nodes of the graph programs: integers, strings and tuples, a float that equals an integer
#: (the same node), and now and then `None` (no node: both versions raise at the same edge).
GRAPH_NODES = st.sampled_from([0, 1, 2, 3, 4, "a", "b", 1.0, (1, 2)] * 4 + [None])
#: Attribute values, and edge keys of a multigraph.
GRAPH_VALUES = st.sampled_from([0, 1, 2.5, -1, "x", "y", float("nan"), True])
#: The loop's form: its target, what it iterates, the edge's endpoints and its keywords.
GRAPH_LOOPS = (
    ("u, v", "zip(sources, targets)", "u, v", ""),
    ("u, v", "zip(sources, targets)", "u, v", ", weight=1"),
    ("u, v, w", "zip(sources, targets, values)", "u, v", ", weight=w"),
    ("u, v, w", "zip(sources, targets, values, strict=False)", "v, u", ", weight=w, tag=u"),
    ("u, v, w", "zip(sources, targets, values)", "u, v", ", key=w"),
    ("u, v, w", "zip(sources, targets, values)", "u, v", ", key=w, weight=w"),
    ("(u, v), w", "zip(pairs, values)", "u, v", ", weight=w"),
    ("pair", "pairs", "pair[0], pair[1]", ", first=pair[0]"),
)


@st.composite
def graph_built_in_loop(draw: st.DrawFn) -> Program:
    cls = draw(st.sampled_from(["Graph", "DiGraph", "MultiGraph", "MultiDiGraph"]))
    target, iterable, ends, keywords = draw(st.sampled_from(GRAPH_LOOPS))
    size = draw(st.integers(0, 12))
    sources = draw(st.lists(GRAPH_NODES, min_size=size, max_size=size))
    targets = draw(st.lists(GRAPH_NODES, min_size=size, max_size=size))
    values = draw(st.lists(GRAPH_VALUES, min_size=size, max_size=size))
    isolated = draw(st.lists(GRAPH_NODES.filter(lambda n: n is not None), max_size=3))
    shown = ", ".join('float("nan")' if value != value else repr(value) for value in values)
    setup = (
        f"sources = {sources!r}\ntargets = {targets!r}\nvalues = [{shown}]\nisolated = {isolated!r}\n"
        "pairs = list(zip(sources, targets))\n"
    )
    source = _src(f"""
        import networkx as nx


        def f(sources, targets, values, pairs, isolated):
            G = nx.{cls}()
            G.add_nodes_from(isolated)
            for {target} in {iterable}:
                G.add_edge({ends}{keywords})
            edges = G.edges(keys=True, data=True) if G.is_multigraph() else G.edges(data=True)
            return [list(G.nodes(data=True)), list(edges), [list(G.adj[n]) for n in G]]
        """)
    return Program(
        "GPU601",
        f"{cls}: for {target} in {iterable.split('(')[0]}: add_edge({ends}{keywords})",
        setup,
        source,
        "f(sources, targets, values, pairs, isolated)",
    )


#: Rule code -> strategy drawing its programs (every rule whose fixer can edit code).
PROGRAMS: dict[str, Callable[[], st.SearchStrategy[Program]]] = {
    "GPU101": dataframe_grown_in_loop,
    "GPU102": iterrows_loop,
    "GPU103": index_loop,
    "GPU104": apply_axis_1,
    "GPU105": elementwise_apply,
    "GPU106": groupby_apply_lambda,
    "GPU107": chained_assignment,
    "GPU201": array_element_loop,
    "GPU202": array_grown_in_loop,
    "GPU204": python_builtin_on_array,
    "GPU205": comprehension_over_array,
    "GPU302": host_to_device_in_loop,
    "GPU303": device_round_trip,
    "GPU304": tensor_created_on_host,
    "GPU305": dataloader_without_workers,
    "GPU401": manual_pipeline,
    "GPU403": estimator_without_n_jobs,
    "GPU601": graph_built_in_loop,
}
