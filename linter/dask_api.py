"""What gpulint knows about Dask's lazy collections, kept as data.

Dask DataFrames are frames of library "dask" (see `pandas_api.FRAME_LIBRARIES`). Dask arrays,
bags and delayed values are recorded as `Ty("collection", "dask")`: lazy values whose
methods build more graph until `.compute()` runs it. Nothing here imports Dask.
"""

from __future__ import annotations

import ast

from .values import Env, Ty

#: Modules whose functions (nearly all) return a lazy collection.
COLLECTION_MODULES = ("dask.array", "dask.bag")
#: Functions of those modules that write or compute instead of returning a collection.
EAGER_FUNCTIONS = frozenset(
    {"store", "to_zarr", "to_hdf5", "to_npy_stack", "to_tiledb", "to_textfiles", "to_avro", "compute", "persist"}
)
#: `dask.delayed` however it is imported: wraps a function (or a value) lazily.
DELAYED = frozenset({"dask.delayed", "dask.delayed.delayed"})
#: `dask.compute` runs several graphs at once, sharing their common parts.
COMPUTE = frozenset({"dask.compute", "dask.base.compute"})
#: Methods of a lazy collection that do not return another lazy collection.
EAGER_METHODS = frozenset(
    {
        "compute",
        "to_csv",
        "to_parquet",
        "to_hdf",
        "to_sql",
        "to_json",
        "to_zarr",
        "to_hdf5",
        "to_textfiles",
        "store",
        "visualize",
        "head",
        "tail",
        "__len__",
        "__array__",
        "tolist",
    }
)


def is_delayed(qualname: str | None) -> bool:
    return qualname in DELAYED


def is_compute(qualname: str | None) -> bool:
    return qualname in COMPUTE


def makes_collection(qualname: str) -> bool:
    """`dask.array.from_array`, `dask.array.random.random`, `dask.bag.from_sequence`,
    `dask.delayed(...)`, and the classes themselves (as annotations)."""
    if qualname in DELAYED or qualname == "dask.delayed.Delayed":
        return True
    for module in COLLECTION_MODULES:
        if qualname.startswith(module + "."):
            return qualname.rsplit(".", 1)[1] not in EAGER_FUNCTIONS
    return False


#: Kinds whose Dask-backed values are lazy.
_LAZY_KINDS = frozenset({"frame", "series", "ndframe", "groupby", "indexer", "accessor", "collection"})


def _lazy_type(ty: Ty | None) -> bool:
    return ty is not None and ty.lib == "dask" and ty.kind in _LAZY_KINDS


def is_delayed_call(node: ast.AST, env: Env) -> bool:
    """`dask.delayed(f)(...)`: a call of a function wrapped by `delayed` on the spot."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Call)
        and isinstance(node.func.func, (ast.Name, ast.Attribute))
        and is_delayed(env.qualname(node.func.func))
    )


def is_lazy(node: ast.expr, env: Env) -> bool:
    """`node` is a Dask collection, or built from one by methods, indexing and operators
    (`frame[frame["m"] == 3]["amount"].sum()`), short of anything that computes it."""
    while True:
        if _lazy_type(env.type_of(node)) or is_delayed_call(node, env):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if not isinstance(func, ast.Attribute) or func.attr in EAGER_METHODS:
                return False
            node = func.value
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.BinOp):
            return is_lazy(node.left, env) or is_lazy(node.right, env)
        else:
            return False


def is_compute_call(node: ast.AST, env: Env) -> bool:
    """`x.compute()` on a Dask collection, or `dask.compute(...)`."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "compute" and is_lazy(func.value, env):
        return True
    return isinstance(func, (ast.Name, ast.Attribute)) and is_compute(env.qualname(func))
