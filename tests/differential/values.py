"""Data for the programs, written as source so that a failing program is a script of its own.

Each strategy draws a Python expression that builds a value (`pd.Series([...],
dtype="int8", index=[...], name="v")`), reaching the edges the fixes must survive: int64
bounds, small int dtypes (int8, uint8), bools, NaN and None, negatives, empty data,
object/str/categorical columns, 2-D arrays and non-default indexes.
"""

from __future__ import annotations

import math

import pandas as pd
from hypothesis import strategies as st

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: Element kinds and the dtypes a Series or array of them may take.
NUMERIC_KINDS = ("int64", "int8", "uint8", "float64", "bool")
TEXT_KINDS = ("object", "str", "category")
#: Kinds at the far edges: complex numbers (with NaN) and datetimes (with NaT).
EXOTIC_KINDS = ("complex128", "datetime64[ns]")


def literal(value: object) -> str:
    """`value` as source (NaN and infinities spelled so that they evaluate)."""
    if value is pd.NaT:
        return "pd.NaT"
    if isinstance(value, pd.Timestamp):
        return f"pd.Timestamp({str(value)!r})"
    if isinstance(value, complex) and math.isnan(value.real):
        return 'complex("nan")'
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)


def elements(kind: str) -> st.SearchStrategy[object]:
    """Values for one element of the given kind, biased to the edges."""
    if kind == "int64":
        edges = st.sampled_from([0, 1, -1, 2, 3, -7, 10**9, -(10**9), 2**31, INT64_MAX, INT64_MIN, 3037000499])
        return st.one_of(edges, st.integers(-100, 100), st.integers(INT64_MIN, INT64_MAX))
    if kind == "int8":
        return st.one_of(st.sampled_from([-128, 127, 0, -1, 100]), st.integers(-128, 127))
    if kind == "uint8":
        return st.one_of(st.sampled_from([0, 255, 200, 1]), st.integers(0, 255))
    if kind == "float64":
        edges = st.sampled_from([math.nan, 0.0, -0.0, 1.5, -2.5, 0.1, 1e300, -4.0, 2.0])
        return st.one_of(edges, st.floats(-1e6, 1e6, allow_nan=False))
    if kind == "bool":
        return st.booleans()
    if kind == "complex128":
        return st.sampled_from([0j, 1 + 2j, -1.5j, complex("nan"), 3 + 0j])
    if kind == "datetime64[ns]":
        return st.sampled_from(
            [pd.Timestamp("2020-01-01"), pd.Timestamp("1970-01-01 00:00:01"), pd.NaT, pd.Timestamp("2262-04-11")]
        )
    words = st.sampled_from(["a", "B", " x ", "ab", "Straße", "İ", "12", "", "hello world", "Zz"])
    if kind == "object":
        return st.one_of(words, st.sampled_from([None, math.nan]))
    return words  # str, category


def index_for(n: int) -> st.SearchStrategy[str | None]:
    """Source of an index for `n` rows, or None for the default RangeIndex."""
    return st.one_of(
        st.none(),
        st.just(f"[{', '.join(str(i * 10 + 5) for i in range(n))}]"),
        st.just(f"[{', '.join(str(n - i) for i in range(n))}]"),
        st.just(f"[{', '.join(repr(chr(97 + i % 26) + str(i)) for i in range(n))}]"),
        st.just(f"pd.RangeIndex(1, {n + 1})"),
    )


@st.composite
def values(draw: st.DrawFn, kind: str, min_size: int = 0, max_size: int = 6) -> list:
    return draw(st.lists(elements(kind), min_size=min_size, max_size=max_size))


@st.composite
def series(
    draw: st.DrawFn,
    kinds: tuple[str, ...] = NUMERIC_KINDS + TEXT_KINDS,
    min_size: int = 0,
    max_size: int = 6,
    named: bool | None = None,
) -> str:
    """Source of a pandas Series of one of `kinds`."""
    kind = draw(st.sampled_from(kinds))
    items = draw(values(kind, min_size, max_size))
    parts = [f"[{', '.join(literal(v) for v in items)}]", f'dtype="{kind}"']
    index = draw(index_for(len(items)))
    if index is not None:
        parts.append(f"index={index}")
    if named if named is not None else draw(st.booleans()):
        parts.append('name="v"')
    return f"pd.Series({', '.join(parts)})"


@st.composite
def array(
    draw: st.DrawFn,
    kinds: tuple[str, ...] = NUMERIC_KINDS,
    min_size: int = 0,
    max_size: int = 6,
    two_d: bool | None = None,
) -> str:
    """Source of a 1-D or 2-D NumPy array of one of `kinds`."""
    kind = draw(st.sampled_from(kinds))
    dtype = "object" if kind == "object" else "str" if kind in ("str", "category") else kind
    if two_d if two_d is not None else draw(st.booleans()):
        rows = draw(st.integers(0 if min_size == 0 else 1, 4))
        width = draw(st.integers(1, 3))
        grid = [draw(values(kind, width, width)) for _ in range(rows)]
        body = "[" + ", ".join("[" + ", ".join(literal(v) for v in row) + "]" for row in grid) + "]"
        if rows == 0:
            return f'np.empty((0, {width}), dtype="{dtype}")'
        return f'np.array({body}, dtype="{dtype}")'
    items = draw(values(kind, min_size, max_size))
    return f'np.array([{", ".join(literal(v) for v in items)}], dtype="{dtype}")'


@st.composite
def array_with_nan(draw: st.DrawFn) -> str:
    """Source of a 1-D float array with a NaN after its first element (where the builtins'
    answer depends on the order)."""
    items = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=5))
    items.insert(draw(st.integers(1, len(items))), math.nan)
    return f'np.array([{", ".join(literal(v) for v in items)}], dtype="float64")'


@st.composite
def frame(
    draw: st.DrawFn,
    columns: tuple[str, ...],
    kinds: tuple[str, ...] = NUMERIC_KINDS + TEXT_KINDS,
    min_size: int = 0,
    max_size: int = 5,
    extra_object_column: bool | None = None,
    default_index: bool = False,
) -> str:
    """Source of a DataFrame with the given columns, each of a drawn kind, equal lengths."""
    n = draw(st.integers(min_size, max_size))
    parts = []
    for column in columns:
        kind = draw(st.sampled_from(kinds))
        items = draw(values(kind, n, n))
        parts.append(f'"{column}": pd.Series([{", ".join(literal(v) for v in items)}], dtype="{kind}")')
    if extra_object_column if extra_object_column is not None else draw(st.booleans()):
        parts.append(f'"note": pd.Series([{", ".join(repr("n" + str(i)) for i in range(n))}], dtype="object")')
    index = None if default_index else draw(index_for(n))
    body = "pd.DataFrame({" + ", ".join(parts) + "})"
    if index is not None:
        body = f"{body}.set_axis({index})"
    return body


def scalar(kinds: tuple[str, ...] = ("int64", "float64", "bool")) -> st.SearchStrategy[str]:
    """Source of a plain Python scalar (an outside name the lambdas may read)."""
    return st.sampled_from(kinds).flatmap(elements).map(literal)
