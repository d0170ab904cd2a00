"""What gpulint knows about pandas and the libraries that share its DataFrame API (cuDF,
Modin, Dask DataFrames): which calls, methods and attributes give frames, series and arrays.

Nothing here imports pandas: values are recognised by the qualified names of the functions
that make them and by the methods called on values already known.
"""

from __future__ import annotations

import ast

from .values import OTHER, Env, Kind, Ty, argument, library_of

#: Module qualified names whose DataFrame API is pandas', mapped to the library family.
FRAME_LIBRARIES = {
    "pandas": "pandas",
    "modin.pandas": "modin",
    "cudf": "cudf",
    "dask.dataframe": "dask",
}

FRAME_FACTORIES = frozenset(
    """DataFrame read_csv read_parquet read_json read_excel read_sql read_sql_query read_sql_table
    read_feather read_table read_fwf read_orc read_stata read_sas read_spss read_xml
    merge merge_asof merge_ordered pivot_table pivot get_dummies json_normalize crosstab melt from_pandas
    from_arrow DataFrame.from_records DataFrame.from_dict""".split()
)
SERIES_FACTORIES = frozenset({"Series"})
#: Return a frame or a series: `concat` (depending on its pieces), `read_hdf` (whatever was stored).
NDFRAME_FACTORIES = frozenset({"concat", "read_hdf"})
#: Readers that return an iterator of chunks instead of a frame when given `chunksize=`
#: (or `iterator=True`): `TextFileReader`, `JsonReader`, a generator for `read_sql*`, ...
CHUNKED_READERS = frozenset(
    "read_csv read_table read_fwf read_json read_sql read_sql_query read_sql_table read_hdf read_stata read_sas".split()
)
#: Libraries whose chunked readers behave like pandas' (cuDF and Dask have no `chunksize`).
_CHUNKING_LIBRARIES = frozenset({"pandas", "modin"})

FRAME_TO_FRAME = frozenset(
    """copy head tail dropna fillna ffill bfill drop drop_duplicates rename reset_index set_index
    sort_values sort_index query assign merge join astype filter sample nlargest nsmallest pivot pivot_table
    melt explode replace round abs clip where mask select_dtypes reindex transpose isna isnull notna notnull
    interpolate add_prefix add_suffix infer_objects convert_dtypes rename_axis set_axis droplevel
    applymap map cumsum cumprod diff shift pct_change rank describe corr cov _append
    append persist""".split()
)
FRAME_TO_SERIES = frozenset("sum mean median min max std var count nunique idxmax idxmin prod any all dtypes".split())
SERIES_TO_SERIES = frozenset(
    """copy head tail dropna fillna ffill bfill drop drop_duplicates rename sort_values sort_index astype
    abs round clip where mask replace isna isnull notna notnull isin between map cumsum cumprod cummax cummin
    diff shift pct_change rank interpolate reindex sample nlargest nsmallest explode
    value_counts _append append persist""".split()
)
#: Reductions and other methods of a groupby that return a frame or a series.
GROUPBY_TO_NDFRAME = frozenset(
    "agg aggregate sum mean median min max count size std var first last nunique transform cumsum".split()
)
#: Kinds whose values are frames or series.
NDFRAME_KINDS = frozenset({"frame", "series", "ndframe"})


def _array_lib(lib: str) -> str:
    """The array library a frame library's `.values` and `.to_numpy()` give."""
    return "cupy" if lib == "cudf" else "numpy"


def constructed_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """What a function of a frame library returns (or the class an annotation names)."""
    frame = library_of(qualname, FRAME_LIBRARIES)
    if frame is None:
        return None
    lib, attr = frame
    if call is not None and attr in CHUNKED_READERS:
        chunked = _chunked(call)
        if chunked is None:
            return None
        if chunked:
            frames = attr != "read_json" or _json_type(lib, call) == Ty(Kind.FRAME, lib)
            return Ty(Kind.READER, lib) if frames and lib in _CHUNKING_LIBRARIES else None
    if attr == "read_excel" and call is not None:
        return _excel_type(lib, call)
    if attr == "read_json" and call is not None:
        return _json_type(lib, call)
    if attr in FRAME_FACTORIES:
        return Ty(Kind.FRAME, lib)
    if attr in SERIES_FACTORIES:
        return Ty(Kind.SERIES, lib)
    if attr == "concat":
        return _concat_type(lib, call, env)
    if attr in NDFRAME_FACTORIES:
        return Ty(Kind.NDFRAME, lib)
    return None


def _chunked(call: ast.Call) -> bool | None:
    """Whether a reader call asks for chunks: True (`chunksize=1000`, `iterator=True`), False
    (neither, or `chunksize=None`/`iterator=False`), None (decided at run time, or `**options`)."""
    if any(k.arg is None for k in call.keywords):
        return None
    result: bool | None = False
    for name in ("chunksize", "iterator"):
        value = argument(call, name)
        if value is None:
            continue
        if isinstance(value, ast.Constant):
            if value.value is not None and value.value is not False:
                return True
        else:
            result = None
    return result


def _excel_type(lib: str, call: ast.Call) -> Ty | None:
    """`read_excel` returns a frame for one sheet (a name or a position, the first by default)
    and a dict of frames for `sheet_name=None` or a list of sheets."""
    if any(k.arg is None for k in call.keywords):
        return None
    sheet = argument(call, "sheet_name", 1)
    if sheet is None or isinstance(sheet, ast.Constant) and isinstance(sheet.value, (str, int)):
        return Ty(Kind.FRAME, lib)
    if isinstance(sheet, (ast.Constant, ast.List, ast.Tuple, ast.ListComp)):
        return OTHER  # `None` or a list of sheets: a dict of frames
    return None


def _json_type(lib: str, call: ast.Call) -> Ty | None:
    """`read_json` returns a series for `typ="series"`."""
    if any(k.arg is None for k in call.keywords):
        return None
    typ = argument(call, "typ")
    if typ is None:
        return Ty(Kind.FRAME, lib)
    if isinstance(typ, ast.Constant) and typ.value in ("frame", "series"):
        return Ty(typ.value, lib)
    return None


def _concat_type(lib: str, call: ast.Call | None, env: Env | None) -> Ty:
    """`concat` returns a frame if it is given one, a series if only series; else either."""
    if call is not None and env is not None and call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
        kinds = {ty.kind for ty in (env.type_of(e) for e in call.args[0].elts) if ty is not None}
        if "frame" in kinds:
            return Ty(Kind.FRAME, lib)
        if kinds == {"series"} and not any(
            k.arg == "axis" and not (isinstance(k.value, ast.Constant) and k.value.value in (0, "index"))
            for k in call.keywords
        ):
            return Ty(Kind.SERIES, lib)
    return Ty(Kind.NDFRAME, lib)


def method_type(receiver: Ty, method: str, call: ast.Call) -> Ty | None:
    """`receiver.<method>(...)` on a frame, a series, a groupby, an accessor or a reader."""
    lib = receiver.lib
    kind = receiver.kind
    if lib == "cudf" and kind in NDFRAME_KINDS and method in ("to_numpy", "to_cupy"):
        # `to_numpy()` copies to the host; `to_cupy()` (like `.values`) stays on the device
        return Ty(Kind.ARRAY, "numpy" if method == "to_numpy" else "cupy")
    if kind in NDFRAME_KINDS and (method == "to_pandas" or method == "compute" and lib == "dask"):
        # into pandas: cuDF's `to_pandas()` copies to the host; Dask's `compute()` gathers
        # its partitions, which are pandas objects under Dask's default backend
        return Ty(kind, "pandas")
    if kind == "reader":
        return Ty(Kind.FRAME, lib) if method == "get_chunk" else None
    if kind == "frame":
        if method in FRAME_TO_FRAME:
            return receiver
        if method in FRAME_TO_SERIES:
            return Ty(Kind.SERIES, lib)
        if method == "groupby":
            return Ty(Kind.GROUPBY, lib)
        if method == "to_numpy":
            return Ty(Kind.ARRAY, _array_lib(lib))
    elif kind in ("series", "ndframe"):
        if method == "reset_index" and kind == "series":
            drop = any(k.arg == "drop" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords)
            return receiver if drop else Ty(Kind.FRAME, lib)
        if method in SERIES_TO_SERIES:
            return receiver
        if method == "to_frame":
            return Ty(Kind.FRAME, lib)
        if method == "groupby" and kind == "series":
            return Ty(Kind.GROUPBY, lib)
        if method == "to_numpy":
            return Ty(Kind.ARRAY, _array_lib(lib))
    elif kind == "groupby":
        if method in GROUPBY_TO_NDFRAME:
            return Ty(Kind.NDFRAME, lib)
    elif kind == "accessor":
        return Ty(Kind.SERIES, lib)
    return None


def attribute_type(receiver: Ty, attr: str) -> Ty | None:
    """`receiver.<attr>` on a frame or a series: indexers, accessors, `.values`, `.T`."""
    lib = receiver.lib
    if lib == "cudf" and attr == "values_host" and receiver.is_pandas_like:
        return Ty(Kind.ARRAY, "numpy")
    if receiver.kind in NDFRAME_KINDS:
        if attr in ("loc", "iloc", "at", "iat"):
            return Ty(Kind.INDEXER, lib)
        if attr in ("str", "dt", "cat"):
            return Ty(Kind.ACCESSOR, lib)
        if attr == "values":  # a Dask collection's `.values` is a Dask array: not typed
            return None if lib == "dask" else Ty(Kind.ARRAY, _array_lib(lib))
        if attr == "T" and receiver.kind == "frame":
            return receiver
    return None


def subscript_type(receiver: Ty, key: ast.expr, env: Env) -> Ty | None:
    """`frame["col"]` is a series, `frame[[...]]` and `frame[mask]` are frames,
    `series[mask]` is a series, anything taken from a groupby is a groupby."""
    if receiver.kind == "frame":
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return Ty(Kind.SERIES, receiver.lib)
        if isinstance(key, ast.List):
            return receiver
        key_ty = env.type_of(key)
        if key_ty is not None and key_ty.kind == "series":
            return receiver  # boolean mask selects rows
        return None
    if receiver.kind == "groupby":
        return receiver
    if receiver.kind == "series":
        key_ty = env.type_of(key)
        if key_ty is not None and key_ty.kind == "series":
            return receiver
    return None


def iterates_rows(iterable: ast.expr, env: Env) -> str | None:
    """If `iterable` is `X.iterrows()` on something that may be a frame, X's library
    ("" when only the call itself is the evidence); else None."""
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr == "iterrows"
        and not iterable.args
        and not iterable.keywords
    ):
        return None
    receiver = env.type_of(iterable.func.value)
    if receiver is None:
        return ""
    if receiver.kind in ("frame", "ndframe"):
        return receiver.lib
    return None
