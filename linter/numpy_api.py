"""What gpulint knows about NumPy, CuPy and SciPy: which calls return arrays.

Arrays are `Ty("array", lib)` with lib "numpy" or "cupy"; CuPy arrays always live on the
device, and `cupy.asnumpy`/`.get()` copy them to the host. Functions that return several
arrays (`np.linalg.eigh`, `np.histogram`) give a `Ty("tuple")` whose items are known. A
ufunc (NumPy's or `scipy.special`'s) applied to a frame or a series gives a frame or a
series: pandas handles ufuncs itself. SciPy's functions (and CuPy's `cupyx.scipy`) are
looked up by their name below `scipy.` (`signal.convolve`). Nothing here imports NumPy.
"""

from __future__ import annotations

import ast

from .values import Env, Kind, Ty, argument, dominant, has_unpacking, library_of, sequence_of

ARRAY_LIBRARIES = {"numpy": "numpy", "cupy": "cupy"}
#: Where SciPy's API lives, mapped to the array library its functions return.
SCIPY_LIBRARIES = {"scipy": "numpy", "cupyx.scipy": "cupy"}

#: CuPy's methods that copy an array to the host (or hand back Python values).
CUPY_HOST_COPY_METHODS = frozenset({"get", "item", "tolist"})
#: Where a factory's shape (or size) is: its position and keyword, and its default (`()`:
#: a scalar when not given); `"*"` where the dimensions are separate arguments
#: (`np.random.rand(4, 3)`).
Shape = tuple[int | str, str | None, tuple[()] | None]
SHAPES: dict[str, Shape] = {
    "zeros": (0, "shape", None),
    "ones": (0, "shape", None),
    "empty": (0, "shape", None),
    "full": (0, "shape", None),
    "eye": (0, "N", None),
    "identity": (0, "n", None),
    "random.rand": ("*", None, ()),
    "random.randn": ("*", None, ()),
    "random.random": (0, "size", ()),
    "random.random_sample": (0, "size", ()),
    "random.sample": (0, "size", ()),
    "random.ranf": (0, "size", ()),
    "random.standard_normal": (0, "size", ()),
    "random.normal": (2, "size", ()),
    "random.uniform": (2, "size", ()),
    "random.randint": (2, "size", ()),
    "random.poisson": (1, "size", ()),
    "random.exponential": (1, "size", ()),
    "random.binomial": (2, "size", ()),
    "random.choice": (1, "size", ()),
    "random.permutation": (0, None, None),
}
#: The same for a NumPy random `Generator`'s methods (`rng.random(100)`).
GENERATOR_SHAPES: dict[str, Shape] = {
    "random": (0, "size", ()),
    "standard_normal": (0, "size", ()),
    "normal": (2, "size", ()),
    "uniform": (2, "size", ()),
    "integers": (2, "size", ()),
    "poisson": (1, "size", ()),
    "exponential": (1, "size", ()),
    "choice": (1, "size", ()),
    "permutation": (0, None, None),
}

ARRAY_FACTORIES = frozenset(
    [
        "array",
        "asarray",
        "ascontiguousarray",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "logspace",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "concatenate",
        "stack",
        "vstack",
        "hstack",
        "column_stack",
        "where",
        "sqrt",
        "exp",
        "log",
        "abs",
        "sin",
        "cos",
        "random.rand",
        "random.randn",
        "random.random",
        "random.normal",
        "random.uniform",
        "random.randint",
        "random.permutation",
    ]
)
#: More NumPy/CuPy functions that return an array when given one (array family rules).
ARRAY_FACTORIES = ARRAY_FACTORIES | frozenset(
    [
        "diff",
        "cumsum",
        "cumprod",
        "sort",
        "flip",
        "tile",
        "repeat",
        "fromiter",
        "loadtxt",
        "genfromtxt",
        "atleast_1d",
        "atleast_2d",
        "unique",
        "convolve",
    ]
)
#: Functions of NumPy's (and CuPy's) submodules that return one array.
ARRAY_FUNCTIONS = frozenset(
    [
        "linalg.inv",
        "linalg.pinv",
        "linalg.solve",
        "linalg.cholesky",
        "linalg.eigvals",
        "linalg.eigvalsh",
        "linalg.matrix_power",
        "fft.fft",
        "fft.ifft",
        "fft.rfft",
        "fft.irfft",
        "fft.fft2",
        "fft.ifft2",
        "fft.fftn",
        "fft.ifftn",
        "fft.rfftn",
        "fft.irfftn",
        "fft.fftfreq",
        "fft.rfftfreq",
        "fft.fftshift",
        "fft.ifftshift",
        "histogram_bin_edges",
        "unique_values",
        "argwhere",
        "flatnonzero",
    ]
)
#: Reductions that return an array when given an axis (`np.mean(a, axis=0)`, `a.max(0)`)
#: and a scalar without one.
AXIS_REDUCTIONS = frozenset(
    [
        "sum",
        "mean",
        "max",
        "min",
        "std",
        "var",
        "median",
        "prod",
        "average",
        "argmax",
        "argmin",
        "any",
        "all",
        "ptp",
        "nansum",
        "nanmean",
        "nanmax",
        "nanmin",
        "nanstd",
        "nanvar",
        "nanmedian",
        "amax",
        "amin",
        "count_nonzero",
    ]
)
#: Functions that return a fixed number of arrays (further cases in `_tuple_size`).
TUPLE_FUNCTIONS = {
    "linalg.eig": 2,
    "linalg.eigh": 2,
    "histogram": 2,
    "histogram2d": 3,
    "unique_counts": 2,
    "unique_inverse": 2,
    "unique_all": 4,
}
#: NumPy ufuncs with two outputs: `np.modf(x)` is (fractional part, integral part).
TWO_OUTPUT_UFUNCS = frozenset({"divmod", "frexp", "modf"})
#: Array methods and attributes that return an array.
ARRAY_TO_ARRAY = frozenset(
    ["copy", "astype", "reshape", "ravel", "flatten", "transpose", "squeeze", "clip", "round", "cumsum", "cumprod", "T"]
)
#: Methods of a NumPy `Generator` (`np.random.default_rng()`) that return an array when
#: given `size=` (without it they return one scalar).
GENERATOR_SAMPLERS = frozenset(
    [
        "random",
        "integers",
        "normal",
        "uniform",
        "standard_normal",
        "exponential",
        "poisson",
        "binomial",
        "choice",
        "lognormal",
        "gamma",
        "beta",
    ]
)
#: CuPy functions (beyond the array factories) and array methods that return a CuPy array
#: (0-d for a reduction, still on the device).
CUPY_ARRAY_FUNCTIONS = frozenset(
    [
        "sum",
        "mean",
        "max",
        "min",
        "any",
        "all",
        "argmax",
        "argmin",
        "dot",
        "matmul",
        "count_nonzero",
        "isnan",
        "isinf",
        "isfinite",
        "allclose",
        "std",
        "var",
        "prod",
        "linalg.norm",
        "maximum",
        "minimum",
        "clip",
        "round",
    ]
)
CUPY_ARRAY_METHODS = frozenset(
    [
        "sum",
        "mean",
        "max",
        "min",
        "any",
        "all",
        "argmax",
        "argmin",
        "std",
        "var",
        "prod",
        "dot",
        "clip",
        "round",
        "copy",
        "astype",
        "reshape",
        "ravel",
        "flatten",
        "transpose",
        "squeeze",
        "cumsum",
        "cumprod",
        "conj",
        "nonzero",
    ]
) - {"nonzero"}

#: NumPy's ufuncs (`isinstance(getattr(numpy, name), numpy.ufunc)`, NumPy 2.4): pandas
#: hands these whole columns instead of calling them per row or per element.
NUMPY_UFUNCS = frozenset(
    [
        "abs",
        "absolute",
        "acos",
        "acosh",
        "add",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "bitwise_and",
        "bitwise_count",
        "bitwise_invert",
        "bitwise_left_shift",
        "bitwise_not",
        "bitwise_or",
        "bitwise_right_shift",
        "bitwise_xor",
        "cbrt",
        "ceil",
        "conj",
        "conjugate",
        "copysign",
        "cos",
        "cosh",
        "deg2rad",
        "degrees",
        "divide",
        "divmod",
        "equal",
        "exp",
        "exp2",
        "expm1",
        "fabs",
        "float_power",
        "floor",
        "floor_divide",
        "fmax",
        "fmin",
        "fmod",
        "frexp",
        "gcd",
        "greater",
        "greater_equal",
        "heaviside",
        "hypot",
        "invert",
        "isfinite",
        "isinf",
        "isnan",
        "isnat",
        "lcm",
        "ldexp",
        "left_shift",
        "less",
        "less_equal",
        "log",
        "log10",
        "log1p",
        "log2",
        "logaddexp",
        "logaddexp2",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "matmul",
        "matvec",
        "maximum",
        "minimum",
        "mod",
        "modf",
        "multiply",
        "negative",
        "nextafter",
        "not_equal",
        "positive",
        "pow",
        "power",
        "rad2deg",
        "radians",
        "reciprocal",
        "remainder",
        "right_shift",
        "rint",
        "sign",
        "signbit",
        "sin",
        "sinh",
        "spacing",
        "sqrt",
        "square",
        "subtract",
        "tan",
        "tanh",
        "true_divide",
        "trunc",
        "vecdot",
        "vecmat",
    ]
)


#: Ufuncs of `scipy.special` with one output (SciPy 1.17): like NumPy's, they keep a frame a
#: frame and a series a series, and return an array for an array.
SCIPY_SPECIAL_UFUNCS = frozenset(
    [
        "agm",
        "bdtr",
        "bdtrc",
        "bdtri",
        "bdtrik",
        "bdtrin",
        "bei",
        "beip",
        "ber",
        "berp",
        "besselpoly",
        "beta",
        "betainc",
        "betaincc",
        "betainccinv",
        "betaincinv",
        "betaln",
        "binom",
        "boxcox",
        "boxcox1p",
        "btdtria",
        "btdtrib",
        "cbrt",
        "chdtr",
        "chdtrc",
        "chdtri",
        "chdtriv",
        "chndtr",
        "chndtridf",
        "chndtrinc",
        "chndtrix",
        "cosdg",
        "cosm1",
        "cotdg",
        "dawsn",
        "digamma",
        "ellipe",
        "ellipeinc",
        "ellipk",
        "ellipkinc",
        "ellipkm1",
        "elliprc",
        "elliprd",
        "elliprf",
        "elliprg",
        "elliprj",
        "entr",
        "erf",
        "erfc",
        "erfcinv",
        "erfcx",
        "erfi",
        "erfinv",
        "eval_chebyc",
        "eval_chebys",
        "eval_chebyt",
        "eval_chebyu",
        "eval_gegenbauer",
        "eval_genlaguerre",
        "eval_hermite",
        "eval_hermitenorm",
        "eval_jacobi",
        "eval_laguerre",
        "eval_legendre",
        "eval_sh_chebyt",
        "eval_sh_chebyu",
        "eval_sh_jacobi",
        "eval_sh_legendre",
        "exp1",
        "exp10",
        "exp2",
        "expi",
        "expit",
        "expm1",
        "expn",
        "exprel",
        "fdtr",
        "fdtrc",
        "fdtri",
        "fdtridfd",
        "gamma",
        "gammainc",
        "gammaincc",
        "gammainccinv",
        "gammaincinv",
        "gammaln",
        "gammasgn",
        "gdtr",
        "gdtrc",
        "gdtria",
        "gdtrib",
        "gdtrix",
        "hankel1",
        "hankel1e",
        "hankel2",
        "hankel2e",
        "huber",
        "hyp0f1",
        "hyp1f1",
        "hyp2f1",
        "hyperu",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "inv_boxcox",
        "inv_boxcox1p",
        "it2struve0",
        "itmodstruve0",
        "itstruve0",
        "iv",
        "ive",
        "j0",
        "j1",
        "jn",
        "jv",
        "jve",
        "k0",
        "k0e",
        "k1",
        "k1e",
        "kei",
        "keip",
        "ker",
        "kerp",
        "kl_div",
        "kn",
        "kolmogi",
        "kolmogorov",
        "kv",
        "kve",
        "log1p",
        "log_expit",
        "log_ndtr",
        "log_wright_bessel",
        "loggamma",
        "logit",
        "lpmv",
        "mathieu_a",
        "mathieu_b",
        "modstruve",
        "nbdtr",
        "nbdtrc",
        "nbdtri",
        "nbdtrik",
        "nbdtrin",
        "ncfdtr",
        "ncfdtri",
        "ncfdtridfd",
        "ncfdtridfn",
        "ncfdtrinc",
        "nctdtr",
        "nctdtridf",
        "nctdtrinc",
        "nctdtrit",
        "ndtr",
        "ndtri",
        "ndtri_exp",
        "nrdtrimn",
        "nrdtrisd",
        "obl_cv",
        "owens_t",
        "pdtr",
        "pdtrc",
        "pdtri",
        "pdtrik",
        "poch",
        "powm1",
        "pro_cv",
        "pseudo_huber",
        "psi",
        "radian",
        "rel_entr",
        "rgamma",
        "round",
        "sindg",
        "smirnov",
        "smirnovi",
        "spence",
        "stdtr",
        "stdtridf",
        "stdtrit",
        "struve",
        "tandg",
        "tklmbda",
        "voigt_profile",
        "wofz",
        "wright_bessel",
        "wrightomega",
        "xlog1py",
        "xlogy",
        "y0",
        "y1",
        "yn",
        "yv",
        "yve",
        "zetac",
    ]
)
#: SciPy functions (by their name below `scipy.`) that convert their input with `asarray` and
#: return one array, whatever they were given.
SCIPY_ARRAY_FUNCTIONS = frozenset(
    [
        "special.softmax",
        "special.log_softmax",
        "signal.convolve",
        "signal.correlate",
        "signal.fftconvolve",
        "signal.oaconvolve",
        "signal.convolve2d",
        "signal.correlate2d",
        "signal.filtfilt",
        "signal.sosfiltfilt",
        "signal.medfilt",
        "signal.medfilt2d",
        "signal.savgol_filter",
        "signal.detrend",
        "signal.resample_poly",
        "signal.decimate",
        "signal.hilbert",
        "signal.wiener",
        "signal.get_window",
        "signal.sosfilt",
        "signal.lfilter",
        "ndimage.gaussian_filter",
        "ndimage.gaussian_filter1d",
        "ndimage.uniform_filter",
        "ndimage.uniform_filter1d",
        "ndimage.median_filter",
        "ndimage.maximum_filter",
        "ndimage.minimum_filter",
        "ndimage.convolve",
        "ndimage.correlate",
        "ndimage.zoom",
        "ndimage.rotate",
        "ndimage.shift",
        "fft.fft",
        "fft.ifft",
        "fft.rfft",
        "fft.irfft",
        "fft.fft2",
        "fft.ifft2",
        "fft.fftn",
        "fft.ifftn",
        "fft.rfftn",
        "fft.irfftn",
        "fft.fftfreq",
        "fft.rfftfreq",
        "fft.fftshift",
        "fft.ifftshift",
        "fft.dct",
        "fft.idct",
        "spatial.distance.cdist",
        "spatial.distance.pdist",
        "spatial.distance.squareform",
        "linalg.inv",
        "linalg.pinv",
        "linalg.expm",
        "linalg.sqrtm",
        "linalg.logm",
        "linalg.solve",
        "linalg.solve_triangular",
        "linalg.cholesky",
        "linalg.eigvals",
        "linalg.eigvalsh",
        "linalg.block_diag",
        "linalg.toeplitz",
        "linalg.circulant",
        "linalg.hankel",
    ]
)
#: `scipy.stats` distributions (SciPy 1.17) by the position of `size` among the arguments of
#: their `rvs` (after the shape parameters, `loc` and, for the continuous ones, `scale`):
#: `norm.rvs(0, 1, 1000)` draws 1000 values. Called (`norm(170, 7)`), one gives a frozen
#: distribution, whose `rvs(size)` takes the size first.
_RVS_SIZE_POSITIONS = {
    1: "dirichlet ",
    2: (
        "anglit arcsine bernoulli cauchy cosine dlaplace expon geom gibrat gumbel_l gumbel_r halfcauchy "
        "halflogistic halfnorm hypsecant kstwobign landau laplace levy levy_l logistic logser maxwell moyal "
        "norm planck poisson poisson_binom rayleigh semicircular uniform wald yulesimon zipf "
        "multivariate_normal multinomial "
    ),
    3: (
        "alpha argus binom boltzmann bradford chi chi2 dgamma dweibull erlang exponnorm exponpow fatiguelife "
        "fisk foldcauchy foldnorm gamma genextreme genhalflogistic genlogistic gennorm genpareto gompertz "
        "halfgennorm invgamma invgauss invweibull irwinhall kappa3 ksone kstwo laplace_asymmetric loggamma "
        "loglaplace lognorm lomax nakagami nbinom pareto pearson3 powerlaw powernorm randint rdist "
        "recipinvgauss rel_breitwigner rice skellam skewcauchy skewnorm t triang truncexpon tukeylambda "
        "vonmises vonmises_line weibull_max weibull_min wrapcauchy zipfian multivariate_t "
    ),
    4: (
        "beta betabinom betanbinom betaprime burr burr12 crystalball exponweib f gengamma geninvgauss "
        "hypergeom jf_skew_t johnsonsb johnsonsu kappa4 levy_stable loguniform mielke nct ncx2 nhypergeom "
        "norminvgauss powerlognorm reciprocal studentized_range trapezoid truncnorm truncpareto "
    ),
    5: "genexpon genhyperbolic ncf nchypergeom_fisher nchypergeom_wallenius truncweibull_min ",
    6: "dpareto_lognorm gausshyper ",
}
RVS_SIZE_POSITION = {name: position for position, names in _RVS_SIZE_POSITIONS.items() for name in names.split()}
#: A frozen `scipy.stats` distribution (`scipy.stats.norm(170, 7)`): no data itself, but
#: its `rvs(n)` draws an array of `n` values.
FROZEN_DISTRIBUTION = Ty(Kind.OTHER, "scipy.stats")

#: Filters that return (output, final state) instead when given an initial state `zi=`
#: (the position it may be passed at).
_STATEFUL_FILTERS = {"signal.lfilter": 3, "signal.sosfilt": 2}


def is_numpy_ufunc(qualname: str | None) -> bool:
    """`numpy.sqrt` (however imported) is a ufunc; `numpy.sum` is a plain function."""
    return qualname is not None and qualname.startswith("numpy.") and qualname[6:] in NUMPY_UFUNCS


def constructed_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """What a NumPy, CuPy or SciPy function (or class, as an annotation) returns."""
    array = library_of(qualname, ARRAY_LIBRARIES)
    if array is None:
        scipy = library_of(qualname, SCIPY_LIBRARIES) if "scipy." in qualname else None
        return _scipy_type(scipy[0], qualname.partition("scipy.")[2], call, env) if scipy else None
    lib, attr = array
    if call is not None and env is not None:
        if lib == "numpy" and attr in NUMPY_UFUNCS:
            applied = _ufunc_type(call, env, 2 if attr in TWO_OUTPUT_UFUNCS else 1)
            if applied is not None:
                return applied
        size = _tuple_size(attr, call)
        if size:
            return array_tuple(lib, size)
        if attr in ARRAY_FUNCTIONS or attr in AXIS_REDUCTIONS and _axis_given(call, 1):
            return Ty(Kind.ARRAY, lib)
    if attr in ("where", "nonzero") and call is not None:
        if len(call.args) == 1 and not call.keywords and not has_unpacking(call):
            return index_arrays(lib)  # `np.where(condition)`: one index array per dimension
        if attr == "nonzero" or len(call.args) != 3:
            return None
    if attr == "unique" and call is not None and _unique_outputs(call) != 1:
        return None  # `return_counts=True` and the like return a tuple (see `_tuple_size`)
    if attr in ("random.default_rng", "random.Generator") and lib == "numpy" and call is not None:
        return Ty(Kind.GENERATOR, lib)
    if lib == "cupy" and attr == "asnumpy":
        return Ty(Kind.ARRAY, "numpy")  # the copy to the host
    if attr.startswith("random.") and call is not None and _size_given(attr, call):
        return Ty(Kind.ARRAY, lib)  # `np.random.exponential(200, n)`: `n` draws
    if attr in ARRAY_FACTORIES or attr == "ndarray" or lib == "cupy" and attr in CUPY_ARRAY_FUNCTIONS:
        if call is not None and _holds_objects(call, env):
            return Ty(Kind.OTHER)  # Python objects (sentences, dicts): no vectorised form to take
        return Ty(Kind.ARRAY, lib)
    return None


def _size_given(attr: str, call: ast.Call) -> bool:
    """A NumPy sampler (`SHAPES`: `np.random.poisson(lam, size)`) given the size of its
    draw, which makes it return an array rather than one number."""
    shape = SHAPES.get(attr)
    if shape is None or shape[0] == "*":
        return False
    position, keyword, _ = shape
    return any(k.arg == keyword for k in call.keywords) or len(call.args) > int(position)


def _holds_objects(call: ast.Call, env: Env | None) -> bool:
    """`np.array(rows, dtype=object)` (or `"O"`, `np.object_`): an array of Python objects."""
    dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
    if isinstance(dtype, ast.Name) and dtype.id == "object" and (env is None or env.is_builtin("object")):
        return True
    if isinstance(dtype, ast.Constant) and dtype.value in ("O", "object"):
        return True
    return dtype is not None and env is not None and (env.qualname(dtype) or "").endswith(".object_")


def _axis_given(call: ast.Call, position: int) -> bool:
    """A reduction given an axis that is not None (`axis=0`, or the `position`-th argument):
    it reduces along that axis only, so an array of more than one dimension gives an array."""
    axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
    if axis is None and len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args):
        axis = call.args[position]
    return axis is not None and not (isinstance(axis, ast.Constant) and axis.value is None)


def method_type(receiver: Ty, method: str, call: ast.Call) -> Ty | None:
    """`receiver.<method>(...)` on an array, a random generator or a frozen SciPy distribution."""
    kind, lib = receiver.kind, receiver.lib
    if receiver == FROZEN_DISTRIBUTION:
        size = argument(call, "size", 0)
        drawn = method == "rvs" and size is not None and not _is_none(size) and not has_unpacking(call)
        return Ty(Kind.ARRAY, "numpy") if drawn else None
    if kind == "array":
        if method == "nonzero" and not call.args and not call.keywords:
            return index_arrays(lib)
        if lib == "cupy" and method in CUPY_ARRAY_METHODS:
            return receiver
        if lib == "cupy" and method == "get":
            return Ty(Kind.ARRAY, "numpy")  # the copy to the host
        if method in AXIS_REDUCTIONS and _axis_given(call, 0):
            return Ty(Kind.ARRAY, lib)
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


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def index_arrays(lib: str) -> Ty:
    """What `np.where(condition)` and `np.nonzero(a)` return: a tuple of index arrays, one
    per dimension of the input (how many is not known here), each an array of `lib`."""
    return sequence_of(Ty(Kind.ARRAY, lib))


def element_type(ty: Ty) -> Ty | None:
    """Iterating a CuPy array yields rows on the device."""
    return ty if ty.lib == "cupy" else None


def array_tuple(lib: str, size: int) -> Ty:
    """A tuple of `size` arrays of `lib`."""
    return Ty(Kind.TUPLE, lib, items=(Ty(Kind.ARRAY, lib),) * size)


def _flag(call: ast.Call, name: str, position: int | None = None, default: bool = False) -> bool | None:
    """The value of a boolean argument when it is a constant (`default` when not passed),
    None when decided at run time."""
    value = argument(call, name, position)
    if value is None:
        return default
    return bool(value.value) if isinstance(value, ast.Constant) else None


def _unique_outputs(call: ast.Call) -> int | None:
    """How many arrays `np.unique` returns: one, plus one per `return_*=True`."""
    if any(k.arg is None for k in call.keywords):
        return None
    flags = [_flag(call, name) for name in ("return_index", "return_inverse", "return_counts")]
    return None if None in flags else 1 + sum(flags)  # type: ignore[arg-type]


def _tuple_size(attr: str, call: ast.Call) -> int | None:
    """How many arrays a NumPy (or CuPy) function returns as a tuple; None if it returns one
    array, or if the count is not known."""
    if has_unpacking(call):
        return None
    if attr in TUPLE_FUNCTIONS:
        return TUPLE_FUNCTIONS[attr]
    if attr == "meshgrid":
        return len(call.args) or None
    if attr == "unique":
        size = _unique_outputs(call)
        return size if size and size > 1 else None
    if attr == "linalg.svd":
        return 3 if _flag(call, "compute_uv", 2, default=True) else None
    if attr == "linalg.qr":
        mode = argument(call, "mode", 1)
        if mode is None or isinstance(mode, ast.Constant) and mode.value in ("reduced", "complete", "raw"):
            return 2
    return None


def _ufunc_type(call: ast.Call, env: Env, outputs: int) -> Ty | None:
    """A ufunc applied to a frame, a series or an array gives one of the same kind (the
    strongest of its operands: a frame with a series gives a frame); None when no operand is
    one of those."""
    if has_unpacking(call):
        return None
    operand = dominant([env.type_of(a) for a in call.args])
    if operand is None:
        return None
    result = Ty(operand.kind, operand.lib)
    return Ty(Kind.TUPLE, operand.lib, items=(result,) * outputs) if outputs > 1 else result


def _scipy_type(lib: str, name: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """What `scipy.<name>(...)` (or `cupyx.scipy.<name>(...)`) returns; `lib` is the array
    library of its results."""
    if call is None or env is None or has_unpacking(call):
        return None
    if name.startswith("special.") and name[8:] in SCIPY_SPECIAL_UFUNCS:
        applied = _ufunc_type(call, env, 1)
        if applied is not None and applied.kind != "array":
            return applied
        return Ty(Kind.ARRAY, lib)
    drawn = _distribution_type(name[6:], call) if name.startswith("stats.") and lib == "numpy" else None
    if drawn is not None:
        return drawn
    if name in _STATEFUL_FILTERS and argument(call, "zi", _STATEFUL_FILTERS[name]) is not None:
        return None
    if name in SCIPY_ARRAY_FUNCTIONS:
        return Ty(Kind.ARRAY, lib)
    size = _scipy_tuple_size(name, call)
    return array_tuple(lib, size) if size else None


def _distribution_type(name: str, call: ast.Call) -> Ty | None:
    """`stats.norm(...)` is a frozen distribution; `stats.norm.rvs(..., size=n)` an array
    (without a size, one value)."""
    if name in RVS_SIZE_POSITION:
        return FROZEN_DISTRIBUTION
    distribution, _, method = name.partition(".")
    if method != "rvs" or distribution not in RVS_SIZE_POSITION:
        return None
    size = argument(call, "size", RVS_SIZE_POSITION[distribution])
    return Ty(Kind.ARRAY, "numpy") if size is not None and not _is_none(size) else None


def _scipy_tuple_size(name: str, call: ast.Call) -> int | None:
    """How many arrays a `scipy.linalg` decomposition returns in its default form."""
    if name == "linalg.eigh":
        return 2 if _flag(call, "eigvals_only") is False else None
    if name == "linalg.eig":
        return 2 if not call.keywords and len(call.args) <= 2 else None
    if name == "linalg.svd":
        return 3 if _flag(call, "compute_uv", 2, default=True) else None
    if name == "linalg.qr":
        mode = argument(call, "mode", 3)
        default = mode is None or isinstance(mode, ast.Constant) and mode.value in ("full", "economic")
        return 2 if default and _flag(call, "pivoting", 4) is False else None
    if name == "linalg.lu":
        return 3 if not call.keywords and len(call.args) == 1 else None
    return None


#: Functions that return a new array made of their inputs: assigned back to one of them
#: inside a loop, they copy everything gathered so far on every iteration.
ARRAY_GROWERS = frozenset(["append", "concatenate", "vstack", "hstack", "stack", "row_stack", "column_stack", "dstack"])
