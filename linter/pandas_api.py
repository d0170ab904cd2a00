"""What gpulint knows about pandas and the libraries that share its DataFrame API (cuDF,
Modin, Dask DataFrames): which calls, methods and attributes give frames, series and arrays.

Nothing here imports pandas: values are recognised by the qualified names of the functions
that make them and by the methods called on values already known.
"""

from __future__ import annotations

import ast

from .values import LIST, OTHER, Env, Kind, Ty, argument, has_unpacking, library_of

#: cuDF's methods that copy a frame or a column to the host.
CUDF_HOST_COPY_METHODS = frozenset({"to_pandas", "to_numpy", "to_arrow", "tolist", "to_list"})
#: Module qualified names whose DataFrame API is pandas', mapped to the library family.
FRAME_LIBRARIES = {
    "pandas": "pandas",
    "modin.pandas": "modin",
    "cudf": "cudf",
    "dask.dataframe": "dask",
}

FRAME_FACTORIES = frozenset(
    [
        "DataFrame",
        "read_csv",
        "read_parquet",
        "read_json",
        "read_excel",
        "read_sql",
        "read_sql_query",
        "read_sql_table",
        "read_feather",
        "read_table",
        "read_fwf",
        "read_orc",
        "read_stata",
        "read_sas",
        "read_spss",
        "read_xml",
        "merge",
        "merge_asof",
        "merge_ordered",
        "pivot_table",
        "pivot",
        "get_dummies",
        "json_normalize",
        "crosstab",
        "melt",
        "from_pandas",
        "from_arrow",
        "DataFrame.from_records",
        "DataFrame.from_dict",
    ]
)
SERIES_FACTORIES = frozenset({"Series"})
#: Return a frame or a series: `concat` (depending on its pieces), `read_hdf` (whatever was stored).
NDFRAME_FACTORIES = frozenset({"concat", "read_hdf"})
#: Readers that return an iterator of chunks instead of a frame when given `chunksize=`
#: (or `iterator=True`): `TextFileReader`, `JsonReader`, a generator for `read_sql*`, ...
CHUNKED_READERS = frozenset(
    [
        "read_csv",
        "read_table",
        "read_fwf",
        "read_json",
        "read_sql",
        "read_sql_query",
        "read_sql_table",
        "read_hdf",
        "read_stata",
        "read_sas",
    ]
)
#: Libraries whose chunked readers behave like pandas' (cuDF and Dask have no `chunksize`).
_CHUNKING_LIBRARIES = frozenset({"pandas", "modin"})

FRAME_TO_FRAME = frozenset(
    [
        "copy",
        "head",
        "tail",
        "dropna",
        "fillna",
        "ffill",
        "bfill",
        "drop",
        "drop_duplicates",
        "rename",
        "reset_index",
        "set_index",
        "sort_values",
        "sort_index",
        "query",
        "assign",
        "merge",
        "join",
        "astype",
        "filter",
        "sample",
        "nlargest",
        "nsmallest",
        "pivot",
        "pivot_table",
        "melt",
        "explode",
        "replace",
        "round",
        "abs",
        "clip",
        "where",
        "mask",
        "select_dtypes",
        "reindex",
        "transpose",
        "isna",
        "isnull",
        "notna",
        "notnull",
        "interpolate",
        "add_prefix",
        "add_suffix",
        "infer_objects",
        "convert_dtypes",
        "rename_axis",
        "set_axis",
        "droplevel",
        "applymap",
        "map",
        "cumsum",
        "cumprod",
        "diff",
        "shift",
        "pct_change",
        "rank",
        "describe",
        "corr",
        "cov",
        "_append",
        "append",
        "persist",
    ]
)
FRAME_TO_SERIES = frozenset(
    [
        "sum",
        "mean",
        "median",
        "min",
        "max",
        "std",
        "var",
        "count",
        "nunique",
        "idxmax",
        "idxmin",
        "prod",
        "any",
        "all",
        "dtypes",
    ]
)
SERIES_TO_SERIES = frozenset(
    [
        "copy",
        "head",
        "tail",
        "dropna",
        "fillna",
        "ffill",
        "bfill",
        "drop",
        "drop_duplicates",
        "rename",
        "sort_values",
        "sort_index",
        "astype",
        "abs",
        "round",
        "clip",
        "where",
        "mask",
        "replace",
        "isna",
        "isnull",
        "notna",
        "notnull",
        "isin",
        "between",
        "map",
        "cumsum",
        "cumprod",
        "cummax",
        "cummin",
        "diff",
        "shift",
        "pct_change",
        "rank",
        "interpolate",
        "reindex",
        "sample",
        "nlargest",
        "nsmallest",
        "explode",
        "value_counts",
        "_append",
        "append",
        "persist",
    ]
)
#: Reductions and other methods of a groupby that return a frame or a series.
GROUPBY_TO_NDFRAME = frozenset(
    [
        "agg",
        "aggregate",
        "sum",
        "mean",
        "median",
        "min",
        "max",
        "count",
        "size",
        "std",
        "var",
        "first",
        "last",
        "nunique",
        "transform",
        "cumsum",
    ]
)
#: Kinds whose values are frames or series.
NDFRAME_KINDS = frozenset({"frame", "series", "ndframe"})
#: Functions elsewhere that return a frame of a frame library.
OTHER_FRAME_FACTORIES = {"dask.datasets.timeseries": "dask"}
#: Functions that apply elementwise to a series (the name of the parameter it is passed as):
#: a series in, a series out. `to_datetime` also assembles a frame's columns into a series;
#: the null tests return a frame for a frame.
ELEMENTWISE_FUNCTIONS = {
    "to_numeric": "arg",
    "to_datetime": "arg",
    "to_timedelta": "arg",
    "cut": "x",
    "qcut": "x",
    "isna": "obj",
    "isnull": "obj",
    "notna": "obj",
    "notnull": "obj",
}
NULL_TESTS = frozenset({"isna", "isnull", "notna", "notnull"})

#: Public attributes of `pandas.DataFrame` (pandas 3.1): `frame.<name>` is one of these, not
#: a column, so only other names are columns read by attribute.
FRAME_ATTRIBUTES = frozenset(
    [
        "T",
        "abs",
        "add",
        "add_prefix",
        "add_suffix",
        "agg",
        "aggregate",
        "align",
        "all",
        "any",
        "apply",
        "asfreq",
        "asof",
        "assign",
        "astype",
        "at",
        "at_time",
        "attrs",
        "axes",
        "between_time",
        "bfill",
        "boxplot",
        "clip",
        "columns",
        "combine",
        "combine_first",
        "compare",
        "convert_dtypes",
        "copy",
        "corr",
        "corrwith",
        "count",
        "cov",
        "cummax",
        "cummin",
        "cumprod",
        "cumsum",
        "describe",
        "diff",
        "div",
        "divide",
        "dot",
        "drop",
        "drop_duplicates",
        "droplevel",
        "dropna",
        "dtypes",
        "duplicated",
        "empty",
        "eq",
        "equals",
        "eval",
        "ewm",
        "expanding",
        "explode",
        "ffill",
        "fillna",
        "filter",
        "first_valid_index",
        "flags",
        "floordiv",
        "from_arrow",
        "from_dict",
        "from_records",
        "ge",
        "get",
        "groupby",
        "gt",
        "head",
        "hist",
        "iat",
        "idxmax",
        "idxmin",
        "iloc",
        "index",
        "infer_objects",
        "info",
        "insert",
        "interpolate",
        "isetitem",
        "isin",
        "isna",
        "isnull",
        "items",
        "iterrows",
        "itertuples",
        "join",
        "keys",
        "kurt",
        "kurtosis",
        "last_valid_index",
        "le",
        "loc",
        "lt",
        "map",
        "mask",
        "max",
        "mean",
        "median",
        "melt",
        "memory_usage",
        "merge",
        "min",
        "mod",
        "mode",
        "mul",
        "multiply",
        "ndim",
        "ne",
        "nlargest",
        "notna",
        "notnull",
        "nsmallest",
        "nunique",
        "pct_change",
        "pipe",
        "pivot",
        "pivot_table",
        "plot",
        "pop",
        "pow",
        "prod",
        "product",
        "quantile",
        "query",
        "radd",
        "rank",
        "rdiv",
        "reindex",
        "reindex_like",
        "rename",
        "rename_axis",
        "reorder_levels",
        "replace",
        "resample",
        "reset_index",
        "rfloordiv",
        "rmod",
        "rmul",
        "rolling",
        "round",
        "rpow",
        "rsub",
        "rtruediv",
        "sample",
        "select",
        "select_dtypes",
        "sem",
        "set_axis",
        "set_flags",
        "set_index",
        "shape",
        "shift",
        "size",
        "skew",
        "sort_index",
        "sort_values",
        "sparse",
        "squeeze",
        "stack",
        "std",
        "style",
        "sub",
        "subtract",
        "sum",
        "swaplevel",
        "tail",
        "take",
        "to_clipboard",
        "to_csv",
        "to_dict",
        "to_excel",
        "to_feather",
        "to_hdf",
        "to_html",
        "to_iceberg",
        "to_json",
        "to_latex",
        "to_markdown",
        "to_numpy",
        "to_orc",
        "to_parquet",
        "to_period",
        "to_pickle",
        "to_records",
        "to_sql",
        "to_stata",
        "to_string",
        "to_timestamp",
        "to_xarray",
        "to_xml",
        "transform",
        "transpose",
        "truediv",
        "truncate",
        "tz_convert",
        "tz_localize",
        "unstack",
        "update",
        "value_counts",
        "values",
        "var",
        "where",
        "xs",
        "append",
        "applymap",
        "backfill",
        "bool",
        "first",
        "last",
        "lookup",
        "pad",
        "swapaxes",
        "iteritems",
    ]
)
#: What the other frame libraries add to pandas' DataFrame attributes (and older pandas had).
EXTRA_FRAME_ATTRIBUTES = {
    "dask": frozenset(
        [
            "compute",
            "persist",
            "npartitions",
            "divisions",
            "known_divisions",
            "partitions",
            "map_partitions",
            "map_overlap",
            "repartition",
            "to_delayed",
            "to_dask_array",
            "to_bag",
            "visualize",
            "dask",
            "optimize",
            "random_split",
            "categorize",
            "clear_divisions",
            "get_partition",
            "reduction",
            "shuffle",
            "to_backend",
            "expr",
            "pprint",
            "simplify",
            "lower_once",
            "analyze",
            "explain",
            "enforce_runtime_divisions",
            "nunique_approx",
            "memory_usage_per_partition",
        ]
    ),
    "cudf": frozenset(
        [
            "to_pandas",
            "to_cupy",
            "to_arrow",
            "to_dlpack",
            "values_host",
            "from_pandas",
            "hash_values",
            "partition_by_hash",
            "scatter_by_map",
            "interleave_columns",
            "nans_to_nulls",
            "label_encoding",
            "to_avro",
        ]
    ),
    "modin": frozenset(["modin"]),
}


def _array_lib(lib: str) -> str:
    """The array library a frame library's `.values` and `.to_numpy()` give."""
    return "cupy" if lib == "cudf" else "numpy"


#: Libraries whose tables are indexed like pandas' but follow other copy rules, or whose
#: values have a `columns` attribute too (a Spark, Polars, Arrow or xarray table).
OTHER_TABLE_LIBRARIES = frozenset(
    {"cudf", "dask", "polars", "pyspark", "xarray", "vaex", "databricks", "pyarrow", "ibis", "sqlalchemy"}
)


def imports_only_pandas_tables(tree: ast.Module) -> bool:
    """The file imports no table library but pandas (or Modin): a frame whose library its
    use alone shows (`frame.columns`, `frame.iterrows()`) is one of theirs."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            continue
        if any(name.split(".")[0] in OTHER_TABLE_LIBRARIES for name in names):
            return False
    return True


def constructed_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """What a function of a frame library returns (or the class an annotation names)."""
    frame = library_of(qualname, FRAME_LIBRARIES)
    if frame is None:
        other = OTHER_FRAME_FACTORIES.get(qualname)
        return Ty(Kind.FRAME, other) if other is not None and call is not None else None
    lib, attr = frame
    if attr in ELEMENTWISE_FUNCTIONS and call is not None and env is not None:
        return _elementwise_type(attr, lib, call, env)
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


def _elementwise_type(function: str, lib: str, call: ast.Call, env: Env) -> Ty | None:
    """`pd.to_numeric(series)` is a series; `pd.cut(series, bins, retbins=True)` a tuple of the
    series and the bins (an array)."""
    if has_unpacking(call):
        return None
    value = argument(call, ELEMENTWISE_FUNCTIONS[function], 0)
    source = env.type_of(value) if value is not None else None
    if source is None:
        return None
    if source.kind == "series" or source.kind == "frame" and function == "to_datetime":
        result = Ty(Kind.SERIES, lib)
    elif source.kind in ("frame", "ndframe") and function in NULL_TESTS:
        result = Ty(source.kind, lib)
    else:
        return None
    if function in ("cut", "qcut"):
        bins = argument(call, "retbins", 4 if function == "cut" else 3)
        if bins is not None:
            if not isinstance(bins, ast.Constant):
                return None
            if bins.value:
                return Ty(Kind.TUPLE, lib, items=(result, Ty(Kind.ARRAY, "numpy")))
    return result


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
        return Ty(Kind.FRAME if typ.value == "frame" else Kind.SERIES, lib)
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
            return Ty(Kind.GROUPBY, lib, items=(receiver,))
        if method == "to_numpy":
            return Ty(Kind.ARRAY, _array_lib(lib))
    elif kind in ("series", "ndframe"):
        if method == "reset_index":  # a frame, unless a series drops its index
            drop = any(k.arg == "drop" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords)
            return receiver if drop else Ty(Kind.FRAME, lib)
        if method in SERIES_TO_SERIES:
            return receiver
        if method == "to_frame":
            return Ty(Kind.FRAME, lib)
        if method == "unique" and kind == "series":
            # pandas and Modin give an array; cuDF and Dask give a series of their own
            return Ty(Kind.ARRAY, "numpy") if lib in ("pandas", "modin") else receiver
        if method in ("tolist", "to_list") and kind == "series" and lib in ("pandas", "modin"):
            return LIST
        if method == "groupby" and kind == "series":
            return Ty(Kind.GROUPBY, lib, items=(receiver,))
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
        if receiver.kind == "frame" and is_column_attribute(attr, lib):
            return Ty(Kind.SERIES, lib)
    return None


#: Attributes and methods earlier pandas versions had and code written for them still uses
#: (`frame.ix[i, "a"]`, `frame.append(row)`): not columns either.
REMOVED_FRAME_ATTRIBUTES = frozenset(
    {
        "ix",
        "append",
        "iteritems",
        "as_matrix",
        "get_value",
        "set_value",
        "get_values",
        "get_dtype_counts",
        "ftypes",
        "lookup",
        "select",
        "sortlevel",
        "convert_objects",
        "to_panel",
        "to_sparse",
        "is_copy",
    }
)


def is_column_attribute(attr: str, lib: str) -> bool:
    """`frame.<attr>` reads a column: the name is no attribute or method of the frame, of
    this pandas or an earlier one."""
    return (
        not attr.startswith("_")
        and attr not in FRAME_ATTRIBUTES
        and attr not in REMOVED_FRAME_ATTRIBUTES
        and attr not in EXTRA_FRAME_ATTRIBUTES.get(lib, ())
    )


def subscript_type(receiver: Ty, key: ast.expr, env: Env) -> Ty | None:
    """`frame["col"]` is a series, `frame[[...]]`, `frame[mask]` and `frame[a:b]` are frames,
    `series[mask]` and `series[a:b]` are series, anything taken from a groupby is a groupby."""
    if receiver.kind in ("frame", "series") and isinstance(key, ast.Slice):
        return receiver  # rows a to b
    if receiver.kind == "frame":
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return Ty(Kind.SERIES, receiver.lib)
        if _is_list(key, env):
            return receiver
        key_ty = env.type_of(key)
        if key_ty is not None and key_ty.kind == "series":
            return receiver  # boolean mask selects rows
        return None
    if receiver.kind == "groupby":
        group = group_type(receiver)
        if group is None or group.kind != "frame":
            return Ty(Kind.GROUPBY, receiver.lib)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return Ty(Kind.GROUPBY, receiver.lib, items=(Ty(Kind.SERIES, receiver.lib),))  # `gb["col"]`
        if _is_list(key, env):
            return receiver  # `gb[["a", "b"]]`: groups of frames still
        return Ty(Kind.GROUPBY, receiver.lib)
    if receiver.kind == "series":
        key_ty = env.type_of(key)
        if key_ty is not None and key_ty.kind == "series":
            return receiver
    return None


def group_type(groupby: Ty) -> Ty | None:
    """What each group of a groupby is (a frame, or a series), where known."""
    return groupby.items[0] if groupby.kind == "groupby" and groupby.items else None


#: Methods of a groupby that call a function with each group as its first argument
#: (`gb.apply(f)`, `gb.filter(f)`).
GROUP_CALLERS = frozenset({"apply", "filter"})


def _is_list(node: ast.expr, env: Env) -> bool:
    """A list literal or comprehension, or a name (or call) known to give a list; also lists
    joined with `+` (`["date"] + cols + [target]`: a list when one side is)."""
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_list(node.left, env) or _is_list(node.right, env)
    ty = env.type_of(node)
    return ty is not None and ty.builtin == "list"


def _selects_many(key: ast.expr, env: Env) -> bool:
    """An indexer key that selects any number of rows (or columns): a slice, a list, a
    boolean mask or labels in a series or an array."""
    if isinstance(key, ast.Slice) or _is_list(key, env):
        return True
    ty = env.type_of(key)
    return ty is not None and ty.kind in ("series", "array")


def _selects_one(key: ast.expr, indexer: str) -> bool:
    """An indexer key that selects one column: a label for `.loc`, a position for `.iloc`."""
    if not isinstance(key, ast.Constant) or isinstance(key.value, bool):
        return False
    return isinstance(key.value, int) if indexer == "iloc" else isinstance(key.value, (str, int))


def indexed_type(owner: Ty, indexer: str, key: ast.expr, env: Env) -> Ty | None:
    """`owner.loc[key]` or `owner.iloc[key]` on a frame or a series: rows selected by a slice,
    a list or a mask keep the owner's kind; `frame.loc[rows, cols]` is a frame for many
    columns and a series for one."""
    if indexer not in ("loc", "iloc") or owner.kind not in ("frame", "series"):
        return None
    rows, columns = key, None
    if isinstance(key, ast.Tuple):
        if owner.kind != "frame" or len(key.elts) != 2:
            return None
        rows, columns = key.elts
    if not _selects_many(rows, env):
        return None
    if columns is None:
        return Ty(owner.kind, owner.lib)
    if _selects_many(columns, env):
        return Ty(Kind.FRAME, owner.lib)
    return Ty(Kind.SERIES, owner.lib) if _selects_one(columns, indexer) else None


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


def converted_type(method: str, call: ast.Call) -> Ty | None:
    """`x.to_pandas()` on a value of unknown type: a pandas DataFrame, by what the method
    means in every library that has it (a Hugging Face dataset, an Arrow table, a polars or
    cuDF frame). `batched=` (a Hugging Face dataset's chunks) makes an iterator instead."""
    if method == "to_pandas" and not call.args and not any(k.arg in ("batched", None) for k in call.keywords):
        return Ty(Kind.FRAME, "pandas")
    return None


#: `str` methods with a vectorized `.str.<method>` of the same name in pandas, cuDF and Dask.
STR_METHODS = frozenset(
    [
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "title",
        "capitalize",
        "swapcase",
        "casefold",
        "isdigit",
        "isalpha",
        "isalnum",
        "isnumeric",
        "isdecimal",
        "isspace",
        "islower",
        "isupper",
        "istitle",
        "startswith",
        "endswith",
    ]
)

#: Of those, the ones that may take arguments (string constants only).
STR_METHODS_WITH_ARGUMENTS = frozenset({"strip", "lstrip", "rstrip", "startswith", "endswith"})

#: Attributes of a timestamp, or of a duration (`days`, `seconds`), with a vectorized
#: `.dt.<attribute>` of the same name.
DT_ATTRIBUTES = frozenset(
    {
        "year", "month", "day", "hour", "minute", "second", "microsecond", "nanosecond",
        "dayofweek", "day_of_week", "dayofyear", "day_of_year", "quarter", "days_in_month",
        "is_month_start", "is_month_end", "is_quarter_start", "is_quarter_end",
        "is_year_start", "is_year_end", "is_leap_year",
        "days", "seconds", "microseconds", "nanoseconds",
    }
)  # fmt: skip

#: Timestamp and duration methods with a `.dt` form (`weekday()` and `date()` are
#: properties there; a duration's `total_seconds()` stays a method).
DT_METHODS = frozenset({"weekday", "date", "time", "normalize", "strftime", "day_name", "month_name", "total_seconds"})

#: Methods of a group (frame or series) that groupby objects compute as built-in
#: aggregations, with the same meaning and defaults.
GROUPBY_AGGREGATIONS = frozenset(
    [
        "sum",
        "mean",
        "median",
        "min",
        "max",
        "std",
        "var",
        "sem",
        "prod",
        "count",
        "nunique",
        "any",
        "all",
        "idxmax",
        "idxmin",
        "skew",
    ]
)

#: Readers that load a whole file (or a set of files) into one frame when not chunked.
FILE_READERS = frozenset(
    [
        "read_csv",
        "read_table",
        "read_fwf",
        "read_json",
        "read_excel",
        "read_parquet",
        "read_feather",
        "read_orc",
        "read_pickle",
        "read_stata",
        "read_sas",
        "read_spss",
        "read_xml",
        "read_hdf",
    ]
)

#: Row selections that keep every column and its dtype (empty results included, measured with
#: pandas 3.1): method -> (positional arguments allowed, keywords allowed). Whatever would
#: select columns (`axis`), renumber (`ignore_index`) or work in place is left out.
ROW_TAKING_METHODS: dict[str, tuple[int, frozenset[str]]] = {
    "head": (1, frozenset({"n"})),
    "tail": (1, frozenset({"n"})),
    "sample": (1, frozenset({"n", "frac", "replace", "weights", "random_state"})),
    "nlargest": (3, frozenset({"n", "columns", "keep"})),
    "nsmallest": (3, frozenset({"n", "columns", "keep"})),
    "drop_duplicates": (1, frozenset({"subset", "keep"})),
    "dropna": (0, frozenset({"how", "thresh", "subset"})),
    "copy": (1, frozenset({"deep"})),
}

#: Reductions of a column to one number that a row mask may compare with (`x > x.mean()`).
COLUMN_REDUCTIONS = frozenset({"mean", "median", "min", "max", "sum", "std", "var"})

#: Methods that change their receiver in place (on a frame, a column, an index or `attrs`).
IN_PLACE_METHODS = frozenset(
    [
        "insert",
        "pop",
        "update",
        "clear",
        "setdefault",
        "popitem",
        "append",
        "extend",
        "remove",
        "discard",
        "add",
        "sort",
        "fill",
        "put",
        "resize",
        "itemset",
        "setfield",
        "set_names",
        "isetitem",
    ]
)

#: pandas methods that hand the frame (or its columns) to a function they are given.
CALLBACK_METHODS = frozenset(
    ["pipe", "apply", "applymap", "map", "agg", "aggregate", "transform", "assign", "where", "mask"]
)
