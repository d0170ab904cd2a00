"""What the type evidence can say about a value: its kind, library and place.

This module knows no library: the library modules (`pandas_api`, `numpy_api`, `torch_api`,
`dask_api`, `networkx_api`, `estimators`) build on it, and `evidence` (the environment that binds names)
builds on them.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable
from typing import Protocol
from .slots_record import SlotsRecord


class Kind(str, enum.Enum):
    """What sort of value a `Ty` describes. Members are strings, so `ty.kind == "frame"`
    and `ty.kind in ("frame", "series")` work as well as `ty.kind is Kind.FRAME`; each
    member's `__doc__` says what it means."""

    def __new__(cls, value: str, doc: str) -> Kind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.__doc__ = doc
        return member

    MODULE = "module", "An imported module; `lib` is its qualified name."
    SYMBOL = "symbol", "A name imported from a module; `lib` is its qualified name (`pandas.read_csv`)."
    FRAME = "frame", 'A DataFrame; `lib` is its library family ("pandas", "cudf", "modin", "dask").'
    SERIES = "series", "A Series (or a Dask Series)."
    NDFRAME = "ndframe", "Either a frame or a series (`concat` of unknown pieces, `groupby(...).agg(...)`)."
    GROUPBY = "groupby", "What `frame.groupby(...)` returns."
    INDEXER = "indexer", "`.loc`, `.iloc`, `.at` or `.iat` of a frame or a series."
    ACCESSOR = "accessor", "`.str`, `.dt` or `.cat` of a series: its methods return series."
    READER = "reader", "A chunked reader (`read_csv(..., chunksize=n)`): iterating it yields frames."
    ARRAY = "array", 'An n-dimensional array; `lib` is "numpy" or "cupy" (Dask arrays are collections).'
    GENERATOR = "generator", "A NumPy random `Generator` (`np.random.default_rng()`)."
    CLASS = (
        "class",
        'A class defined in the file; `lib` is "torch" for a subclass of `nn.Module`, "sklearn" for'
        " an estimator of one's own (a subclass of scikit-learn's `BaseEstimator` or its mixins).",
    )
    ESTIMATOR = (
        "estimator",
        ("A scikit-learn or cuML estimator; `lib` is its class's qualified name (see `estimators.role`)."),
    )
    COLLECTION = "collection", 'A lazy Dask array, bag or delayed value (`lib` "dask").'
    GRAPH = "graph", 'A graph object; `lib` is its library ("networkx" or "cugraph"; see `networkx_api`).'
    TENSOR = "tensor", "A torch tensor; `place` says where it lives."
    MODEL = "model", "A torch `nn.Module`; `place` is where its parameters live."
    OUTPUT = "output", "What a torch module returns: a tensor or a container of them, on `place`."
    PLACED = (
        "placed",
        (
            "Something moved with `.to(...)`/`.cuda()` whose type is not known otherwise: a tensor, a module "
            "or a batch of them."
        ),
    )
    DEVICE = "device", 'A device specification (`"cuda"`, `torch.device(...)`); `place` is where it points.'
    PLACER = (
        "placer",
        (
            "An object that places what it is given on a device: accelerate's `Accelerator`, a transformers "
            '`pipeline` (`lib` says which; see `accelerate_api`). `place` is where it puts values, "" when it '
            "may not place them."
        ),
    )
    SEQUENCE = (
        "sequence",
        (
            "A list or other iterable whose elements are all of one known type, `items[0]`: the devices "
            "`d2l.try_all_gpus()` lists, the (name, tensor) pairs of `m.named_parameters()`. Iterating it or "
            "taking one element by index gives that type."
        ),
    )
    TUPLE = (
        "tuple",
        (
            "A tuple whose items are known (`items`): what `np.linalg.eig` or `np.histogram` return. "
            "Unpacking it binds each name to its item."
        ),
    )
    LOGGER = (
        "logger",
        'A TensorBoard `SummaryWriter` (`lib` "tensorboard"): `add_scalar` reads a tensor it is given to the host.',
    )
    OTHER = "other", "Known, and of no interest to the rules (a list, a literal, a Python scalar)."
    NONE = (
        "none",
        (
            "The constant `None`, where an analysis needs to tell it apart (an attribute set to None first "
            "and to a value later)."
        ),
    )

    __hash__ = str.__hash__
    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]  # format as the string it is


_KINDS: dict[str, Kind] = {kind.value: kind for kind in Kind}

#: Where a value lives: an accelerator (any device that is not a literal "cpu") or the host.
#: A value whose place is not known has place "".
DEVICE = "device"
HOST = "host"


class Ty(SlotsRecord):
    """A value's kind, the library it comes from and, for torch values, where it lives.

    kind: a `Kind` (a plain string is converted). lib: for data kinds, the library family
    ("pandas", "cudf", "modin", "dask", "numpy", "cupy", "torch"); for modules and symbols,
    their qualified name; for an `OTHER` value whose attributes a library's table types, the
    class it is (`sklearn.utils.Bunch`, a frozen `scipy.stats` distribution). place: DEVICE, HOST or "" (unknown); CuPy and cuDF values are on
    the device whatever `place` says (see `is_device_resident`). items: for a `Kind.TUPLE`,
    the type of each item (None where unknown); for a `Kind.SEQUENCE`, its elements' type.
    builtin: for an `OTHER` value, the builtin container it is when that matters ("list":
    `frame[cols]` selects columns), and for a sequence filled in place, "list" or "dict"; it
    takes no part in comparisons, so a list is still `== OTHER` for rules that leave such
    values alone.

    A slots record (start-up) rather than a NamedTuple: `builtin` takes no part in comparisons.
    Never changed once made.
    """

    __slots__ = ("kind", "lib", "place", "items", "builtin")
    COMPARED = ("kind", "lib", "place", "items")

    def __init__(
        self, kind: Kind, lib: str = "", place: str = "", items: tuple[Ty | None, ...] = (), builtin: str = ""
    ) -> None:
        if kind.__class__ is not Kind:
            kind = _KINDS.get(kind) or Kind(kind)  # type: ignore[call-arg]  # Kind() raises for a wrong one
        self.kind = kind
        self.lib = lib
        self.place = place
        self.items = items
        self.builtin = builtin

    def __repr__(self) -> str:
        fields = [
            repr(self.kind.value),
            *(
                f"{name}={value!r}"
                for name, value in (
                    ("lib", self.lib),
                    ("place", self.place),
                    ("items", self.items),
                    ("builtin", self.builtin),
                )
                if value
            ),
        ]
        return f"Ty({', '.join(fields)})"

    @property
    def is_frame(self) -> bool:
        return self.kind == "frame"

    @property
    def is_pandas_like(self) -> bool:
        return self.kind in ("frame", "series", "ndframe")


OTHER = Ty(Kind.OTHER)


def sequence_of(element: Ty, builtin: str = "") -> Ty:
    """A list (or iterable; `builtin`: "list" or "dict" for one filled in place) whose
    elements (a dict's values) are all `element`."""
    return Ty(Kind.SEQUENCE, items=(element,), builtin=builtin)


#: A list (a literal, a comprehension, `list(...)`, `sorted(...)`).
LIST = Ty(Kind.OTHER, builtin="list")
#: The `builtin` of a tensor that a number was turned into by adding it (`total += loss`).
SUMMED = "sum"
#: Kinds that hold many values (as opposed to scalars).
COLLECTIONS = frozenset({"frame", "series", "ndframe", "array", "groupby", "indexer", "accessor", "tensor"})
#: Kinds of torch values that live somewhere (not devices, not classes).
TORCH_VALUES = frozenset({"tensor", "placed", "output"})


class Env(Protocol):
    """What a library module may ask of the environment (`evidence.TypeEnv`)."""

    def type_of(self, node: ast.expr) -> Ty | None:
        """The type of an expression at the current position, None if unknown."""

    def qualname(self, node: ast.expr) -> str | None:
        """`pd.read_csv` -> "pandas.read_csv" when `pd` is bound to the pandas module."""

    def is_builtin(self, name: str) -> bool:
        """`name` is bound in no scope of the file, so it means the builtin."""


def join(a: Ty | None, b: Ty | None) -> Ty | None:
    """What a name holds where two branches that bound it to `a` and `b` meet."""
    if a is b:
        return a
    if a == b:
        assert a is not None and b is not None  # equal, and not the same object: two values
        return a if a.builtin == b.builtin else Ty(a.kind, a.lib, a.place, a.items)
    for filled, other in ((a, b), (b, a)):
        if (
            filled is not None
            and filled.kind == "sequence"
            and filled.builtin
            and other is not None
            and other.kind == "other"
        ):
            # a list or dict filled in place (bound once, to an empty one) where a path that
            # did not fill it meets one that did: it holds what was put in it
            return filled
    for summed, other in ((a, b), (b, a)):
        if summed is not None and summed.builtin == SUMMED and other == OTHER and not other.builtin:
            # a number a tensor was added to (`total += loss`) where a path that added nothing
            # meets one that did: the sum, as a list filled in place holds what was put in it
            return summed
    if a is not None and b is not None and a.lib == b.lib == "torch":
        if a.kind == b.kind:
            return join_torch(a, b)
        if a.kind in _ON_A_PLACE and b.kind in _ON_A_PLACE:
            # a tensor in one branch, a placed value in the other: a placed value (a tensor,
            # a module or a batch), on the device where either branch put it there
            return Ty(Kind.PLACED, "torch", joined_place(a.place, b.place))
    if a is not None and b is not None:
        for library_join in LIBRARY_JOINS:
            joined = library_join(a, b)
            if joined is not None:
                return joined
    return None


#: What a library module knows of two values this module cannot join (`torch_api`: the
#: legacy tensor classes `torch.FloatTensor` and `torch.cuda.FloatTensor`); each returns
#: the joined value or None. Registered by the library modules when they are imported.
LIBRARY_JOINS: list[Callable[[Ty, Ty], Ty | None]] = []


def joined_place(a: str, b: str) -> str:
    """Where a value is after two branches put it at `a` and `b`: on the device when either
    did. The other branch is the same program's CPU fallback (`if cuda: x = x.cuda()`):
    what the program does with the value on a GPU is what the device rules are about."""
    if DEVICE in (a, b):
        return DEVICE
    return a if a == b else ""


#: torch values that live somewhere: a tensor, something moved with `.to()`, a model's output.
_ON_A_PLACE = frozenset({Kind.TENSOR, Kind.PLACED, Kind.OUTPUT})


def join_torch(a: Ty, b: Ty) -> Ty:
    """Two branches bound torch values of one kind: a device specification is not a literal
    "cpu" unless both are; any other value keeps a place both agree on."""
    if a.kind == "device":
        return Ty(Kind.DEVICE, "torch", HOST if a.place == b.place == HOST else DEVICE)
    return Ty(a.kind, "torch", joined_place(a.place, b.place))


def same(a: Ty | None, b: Ty | None) -> bool:
    """`a` and `b` say the same, `builtin` included."""
    return a == b and (a is None or a.builtin == b.builtin)  # type: ignore[union-attr]


#: Kinds an operator's result takes from its operands, strongest first: a frame combined with
#: a series is a frame, a series combined with an array or a scalar is a series.
_DOMINANCE = ("frame", "ndframe", "series", "array")


def dominant(types: list[Ty | None]) -> Ty | None:
    """The operand whose kind an elementwise operation (an operator, a NumPy ufunc) gives its
    result: frame beats series beats array; None if there is no data operand."""
    known = [ty for ty in types if ty is not None and ty.kind in _DOMINANCE]
    for kind in _DOMINANCE:
        for ty in known:
            if ty.kind == kind:
                return ty
    return None


def is_device_resident(ty: Ty | None) -> bool:
    """A value on the device: a torch value placed on one, any CuPy array, any cuDF object."""
    if ty is None:
        return False
    if ty.lib == "torch":
        return ty.place == DEVICE and ty.kind in ("tensor", "placed", "output", "model")
    if ty.lib == "cupy":
        return ty.kind == "array"
    return ty.lib == "cudf" and ty.kind in ("frame", "series", "ndframe")


def library_of(qualname: str, table: dict[str, str]) -> tuple[str, str] | None:
    """Split `pandas.read_csv` into ("pandas", "read_csv") using the longest known module.

    Looks up each dotted prefix of the name, longest first: no sorting, no scan of the table."""
    end = qualname.rfind(".")
    while end > 0:
        module = qualname[:end]
        if module in table:
            return table[module], qualname[end + 1 :]
        end = qualname.rfind(".", 0, end)
    return None


def argument(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """The argument passed as `name=` (or at `position`), if any."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if (
        position is not None
        and len(call.args) > position
        and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
    ):
        return call.args[position]
    return None


def has_unpacking(call: ast.Call) -> bool:
    """`f(*args)` or `f(**options)`: the arguments are not all visible."""
    return any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args)
