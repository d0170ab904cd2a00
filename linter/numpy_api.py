"""What gpulint knows about NumPy, CuPy and SciPy: which calls return arrays.

Arrays are `Ty("array", lib)` with lib "numpy" or "cupy"; CuPy arrays always live on the
device, and `cupy.asnumpy`/`.get()` copy them to the host. Nothing here imports NumPy.
"""

from __future__ import annotations

import ast

from .values import Env, Kind, Ty, library_of

ARRAY_LIBRARIES = {"numpy": "numpy", "cupy": "cupy"}

ARRAY_FACTORIES = frozenset(
    """array asarray ascontiguousarray zeros ones empty full arange linspace logspace zeros_like ones_like
    empty_like full_like concatenate stack vstack hstack column_stack where sqrt exp log abs sin cos
    random.rand random.randn random.random random.normal random.uniform random.randint""".split()
)
#: More NumPy/CuPy functions that return an array when given one (array family rules).
ARRAY_FACTORIES = ARRAY_FACTORIES | frozenset(
    "diff cumsum cumprod sort flip tile repeat fromiter loadtxt genfromtxt atleast_1d atleast_2d unique convolve".split()
)
#: Array methods and attributes that return an array.
ARRAY_TO_ARRAY = frozenset(
    "copy astype reshape ravel flatten transpose squeeze clip round cumsum cumprod T".split()
)
#: Methods of a NumPy `Generator` (`np.random.default_rng()`) that return an array when
#: given `size=` (without it they return one scalar).
GENERATOR_SAMPLERS = frozenset(
    "random integers normal uniform standard_normal exponential poisson binomial choice lognormal gamma beta".split()
)
#: CuPy functions (beyond the array factories) and array methods that return a CuPy array
#: (0-d for a reduction, still on the device).
CUPY_ARRAY_FUNCTIONS = frozenset(
    """sum mean max min any all argmax argmin dot matmul count_nonzero isnan isinf isfinite allclose std var
    prod linalg.norm maximum minimum clip round""".split()
)
CUPY_ARRAY_METHODS = frozenset(
    """sum mean max min any all argmax argmin std var prod dot clip round copy astype reshape ravel flatten
    transpose squeeze cumsum cumprod conj nonzero""".split()
) - {"nonzero"}

#: NumPy's ufuncs (`isinstance(getattr(numpy, name), numpy.ufunc)`, NumPy 2.4): pandas
#: hands these whole columns instead of calling them per row or per element.
NUMPY_UFUNCS = frozenset(
    """abs absolute acos acosh add arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan atan2
    atanh bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor cbrt ceil conj conjugate copysign cos cosh deg2rad degrees divide divmod
    equal exp exp2 expm1 fabs float_power floor floor_divide fmax fmin fmod frexp gcd greater greater_equal
    heaviside hypot invert isfinite isinf isnan isnat lcm ldexp left_shift less less_equal log log10 log1p
    log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor matmul matvec maximum minimum
    mod modf multiply negative nextafter not_equal positive pow power rad2deg radians reciprocal remainder
    right_shift rint sign signbit sin sinh spacing sqrt square subtract tan tanh true_divide trunc vecdot
    vecmat""".split()
)


def is_numpy_ufunc(qualname: str | None) -> bool:
    """`numpy.sqrt` (however imported) is a ufunc; `numpy.sum` is a plain function."""
    return qualname is not None and qualname.startswith("numpy.") and qualname[6:] in NUMPY_UFUNCS


def constructed_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """What a NumPy or CuPy function (or class, as an annotation) returns."""
    array = library_of(qualname, ARRAY_LIBRARIES)
    if array is None:
        return None
    lib, attr = array
    if attr == "where" and call is not None and len(call.args) != 3:
        return None  # `np.where(condition)` returns a tuple of index arrays
    if attr == "unique" and call is not None and any(k.arg is None or k.arg.startswith("return_")
                                                     for k in call.keywords):
        return None  # `return_counts=True` and the like return a tuple
    if attr in ("random.default_rng", "random.Generator") and lib == "numpy" and call is not None:
        return Ty(Kind.GENERATOR, lib)
    if lib == "cupy" and attr == "asnumpy":
        return Ty(Kind.ARRAY, "numpy")  # the copy to the host
    if attr in ARRAY_FACTORIES or attr == "ndarray" or lib == "cupy" and attr in CUPY_ARRAY_FUNCTIONS:
        return Ty(Kind.ARRAY, lib)
    return None


def method_type(receiver: Ty, method: str, call: ast.Call) -> Ty | None:
    """`receiver.<method>(...)` on an array or a random generator."""
    kind, lib = receiver.kind, receiver.lib
    if kind == "array":
        if lib == "cupy" and method in CUPY_ARRAY_METHODS:
            return receiver
        if lib == "cupy" and method == "get":
            return Ty(Kind.ARRAY, "numpy")  # the copy to the host
        return receiver if method in ARRAY_TO_ARRAY else None
    if kind == "generator":
        sized = any(k.arg == "size" for k in call.keywords) or (method == "random" and bool(call.args))
        return Ty(Kind.ARRAY, lib) if method in GENERATOR_SAMPLERS and sized else None
    return None


def attribute_type(receiver: Ty, attr: str) -> Ty | None:
    """`array.T` is an array."""
    return receiver if receiver.kind == "array" and attr == "T" else None


def subscript_type(receiver: Ty, key: ast.expr, env: Env) -> Ty | None:
    """A slice (`a[1:]`; `a[:, 0]` is not one) or a boolean mask of an array is an array;
    anything taken from a CuPy array, even one element, is a (0-d) array on the device."""
    if receiver.lib == "cupy":
        return receiver
    key_ty = None if isinstance(key, ast.Slice) else env.type_of(key)
    return receiver if isinstance(key, ast.Slice) or key_ty is not None and key_ty.kind == "array" else None


def element_type(ty: Ty) -> Ty | None:
    """Iterating a CuPy array yields rows on the device."""
    return ty if ty.lib == "cupy" else None
