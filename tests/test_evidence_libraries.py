"""pandas, NumPy, SciPy and Dask knowledge in the evidence layer.

Each source of evidence has a case that a rule (or `TypeEnv`, through the probe rule of
`test_evidence`) now sees, and a near-miss that must stay as it was: the same shape where the
code does not say what the value is, whatever its names suggest.
"""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source
from gpulint.values import LIST, OTHER, Kind, Ty

from .test_evidence import probe, probe_one

ARRAY = Ty("array", "numpy")
FRAME = Ty("frame", "pandas")
SERIES = Ty("series", "pandas")
PANDAS = "import numpy as np\nimport pandas as pd\ndf = pd.read_csv('a.csv')\ns = df['a']\n"


def _codes(source: str) -> list[tuple[int, str]]:
    return [(d.start.line, d.code) for d in lint_source(textwrap.dedent(source), fixes=False)]


def _probe(expression: str, prelude: str = PANDAS) -> Ty | None:
    return probe_one(f"{prelude}probe({expression})\n")


# -- values -------------------------------------------------------------------------------


def test_kinds_are_an_enum_that_compares_as_strings():
    ty = Ty("frame", "pandas")
    assert ty.kind is Kind.FRAME and ty.kind == "frame" and ty.kind in {"frame"}
    assert Ty(Kind.FRAME, "pandas") == ty and hash(Ty(Kind.FRAME, "pandas")) == hash(ty)
    assert f"{ty.kind}" == "frame"
    with pytest.raises(ValueError):
        Ty("no-such-kind")
    docs = [member.__doc__ for member in Kind]
    assert all(docs) and len(set(docs)) == len(docs) and Kind.__doc__ not in docs, "every kind says what it means"


def test_a_list_is_still_other():
    assert LIST == OTHER and LIST.builtin == "list" and OTHER.builtin == ""


# -- tuples of arrays ---------------------------------------------------------------------

TUPLES = [
    ("w, v = np.linalg.eigh(a)", ["w", "v"]),
    ("w, v = np.linalg.eig(a)", ["w", "v"]),
    ("u, sv, vh = np.linalg.svd(a)", ["u", "sv", "vh"]),
    ("q, r = np.linalg.qr(a)", ["q", "r"]),
    ("hist, edges = np.histogram(a, bins=10)", ["hist", "edges"]),
    ("xx, yy = np.meshgrid(a, a)", ["xx", "yy"]),
    ("values, counts = np.unique(a, return_counts=True)", ["values", "counts"]),
    ("values, index, counts = np.unique(a, return_index=True, return_counts=True)", ["values", "index", "counts"]),
    ("w, v = scipy.linalg.eigh(a)", ["w", "v"]),
]


@pytest.mark.parametrize(("statement", "names"), TUPLES, ids=[t[0] for t in TUPLES])
def test_unpacking_a_tuple_of_arrays_binds_arrays(statement, names):
    prelude = "import numpy as np\nimport scipy.linalg\na = np.zeros((3, 3))\n" + statement + "\n"
    assert probe(prelude + "".join(f"probe({name})\n" for name in names)) == [ARRAY] * len(names)


def test_items_of_a_tuple_of_arrays():
    prelude = "import numpy as np\nresult = np.linalg.eigh(np.eye(3))\n"
    assert probe(prelude + "probe(result[0])\nprobe(result[-1])\nprobe(result[2])\n") == [ARRAY, ARRAY, None]
    assert _probe("np.linalg.eigh(np.eye(3))", "import numpy as np\n") == Ty("tuple", "numpy", items=(ARRAY, ARRAY))


NOT_TUPLES = [
    ("w, v, extra = np.linalg.eigh(a)", "w"),  # the count does not match
    ("w, *v = np.linalg.eigh(a)", "w"),  # starred: v is a list
    ("values, counts = np.unique(a, return_counts=flag)", "values"),  # decided at run time
    ("values, counts = np.unique(a)", "values"),  # one array: its rows are not known
    ("u, sv = np.linalg.svd(a, compute_uv=False)", "u"),
    ("w, v = eigh(a)", "w"),  # not NumPy's
]


@pytest.mark.parametrize(("statement", "name"), NOT_TUPLES, ids=[t[0] for t in NOT_TUPLES])
def test_near_misses_of_tuples_stay_unknown(statement, name):
    prelude = "import numpy as np\nfrom mylib import eigh, flag\na = np.zeros((3, 3))\n"
    assert probe(f"{prelude}{statement}\nprobe({name})\n") == [None]


def test_arrays_unpacked_from_a_tuple_are_seen_by_the_array_rules():
    found = _codes("""\
        import numpy as np
        from mylib import decompose
        a = np.random.rand(4, 4)
        w, v = np.linalg.eigh(a)
        total = sum(w)
        p, q = decompose(a)
        other = sum(p)
        """)
    assert found == [(5, "GPU204")]


def test_loops_over_a_tuple_of_one_kind_bind_its_items():
    source = "import numpy as np\na = np.zeros(3)\nfor grid in np.meshgrid(a, a):\n    probe(grid)\n"
    assert probe(source) == [ARRAY]
    mixed = "import pandas as pd\ns = pd.Series([1])\nfor part in pd.cut(s, 3, retbins=True):\n    probe(part)\n"
    assert probe(mixed) == [None]  # a series and an array


# -- pandas -------------------------------------------------------------------------------

PANDAS_EXPRESSIONS = [
    ("s.unique()", ARRAY),
    ("df.price", SERIES),  # a column read by attribute
    ("df.price.values", ARRAY),
    ("df.price.to_numpy()", ARRAY),
    ("df[cols]", FRAME),
    ("df[[c for c in df.columns if c != 'y']]", FRAME),
    ("df[sorted(cols)]", FRAME),
    ("df[s.tolist()]", FRAME),
    ("df.loc[:, cols]", FRAME),
    ("df.loc[:, 'a']", SERIES),
    ("df.loc[s > 0]", FRAME),
    ("df.loc[s > 0, 'a']", SERIES),
    ("df.iloc[:, 1:3]", FRAME),
    ("df.iloc[:, 0]", SERIES),
    ("df.iloc[2:5]", FRAME),
    ("s.loc[s > 0]", SERIES),
    ("df * 2 + 1", FRAME),
    ("df / s", FRAME),
    ("1 - s", SERIES),
    ("s * np.zeros(3)", SERIES),
    ("np.abs(df)", FRAME),
    ("np.log(s)", SERIES),
    ("np.add(df, s)", FRAME),
    ("np.modf(s)", Ty("tuple", "pandas", items=(SERIES, SERIES))),
    ("pd.to_numeric(s)", SERIES),
    ("pd.to_numeric(s, errors='coerce')", SERIES),
    ("pd.to_datetime(df['d'])", SERIES),
    ("pd.to_datetime(df)", SERIES),  # assembled from the year/month/day columns
    ("pd.isna(df)", FRAME),
    ("pd.cut(s, 3)", SERIES),
    ("pd.cut(s, 3, retbins=True)", Ty("tuple", "pandas", items=(SERIES, ARRAY))),
]

PANDAS_NEAR_MISSES = [
    "df.count",  # a method, not a column
    "df.shape",
    "df._private",
    "obj.price",  # nothing says obj is a frame
    "df[name]",  # a string: a series, not a frame (and not known to be one)
    "df[picked]",  # a list in one branch, a string in the other
    "df.loc[0]",  # one row
    "df.loc[:, name]",
    "df.iloc[:, position]",
    "pd.to_numeric(value)",  # a scalar or a list
    "pd.to_numeric(df)",  # raises for a frame
    "pd.to_datetime('2024-01-01')",
    "pd.cut(s, 3, retbins=flag)",
    "obj.unique()",
]

PANDAS_PRELUDE = PANDAS + textwrap.dedent("""\
    from mylib import obj, value, position, flag
    cols = ["a", "b"]
    name = "a"
    picked = ["a", "b"]
    if flag:
        picked = "a"
    """)


@pytest.mark.parametrize(("expression", "expected"), PANDAS_EXPRESSIONS, ids=[e for e, _ in PANDAS_EXPRESSIONS])
def test_pandas_expressions(expression, expected):
    assert _probe(expression, PANDAS_PRELUDE) == expected


@pytest.mark.parametrize("expression", PANDAS_NEAR_MISSES)
def test_pandas_near_misses(expression):
    ty = _probe(expression, PANDAS_PRELUDE)
    assert ty is None or ty.kind not in ("frame", "series", "ndframe", "array", "tuple"), ty


def test_columns_by_attribute_of_other_frame_libraries():
    prelude = "import dask.dataframe as dd\nimport cudf\nddf = dd.read_csv('a.csv')\ngdf = cudf.DataFrame()\n"
    assert probe(prelude + "probe(ddf.price)\nprobe(ddf.npartitions)\nprobe(gdf.price)\nprobe(gdf.values_host)\n") == [
        Ty("series", "dask"),
        None,
        Ty("series", "cudf"),
        ARRAY,
    ]
    assert _probe("gdf.price.unique()", prelude) == Ty("series", "cudf")  # cuDF keeps a series


def test_column_selections_are_frames_for_the_row_rules():
    found = _codes("""\
        import pandas as pd
        from mylib import score, flag
        df = pd.read_csv("a.csv")
        features = ["a", "b"]
        name = "a"
        picked = ["a"]
        if flag:
            picked = "a"
        x = df[features].apply(score, axis=1)
        y = df.loc[:, features].apply(score, axis=1)
        z = df.iloc[:, 1:3].apply(score, axis=1)
        u = df[name].apply(score)
        v = df[picked].apply(score, axis=1)
        """)
    assert [(line, code) for line, code in found if code == "GPU104"] == [(9, "GPU104"), (10, "GPU104"), (11, "GPU104")]


def test_columns_by_attribute_are_series_for_the_elementwise_rule():
    found = _codes("""\
        import pandas as pd
        from mylib import obj
        df = pd.read_csv("a.csv")
        a = df.price.apply(lambda x: x * 2)
        b = obj.price.apply(lambda x: x * 2)
        c = df.count.apply(lambda x: x * 2)
        """)
    assert [line for line, code in found if code == "GPU105"] == [4]


def test_rows_of_enumerated_iterrows_are_series():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        for i, (index, row) in enumerate(df.iterrows()):
            probe(row); probe(index); probe(i)
        for (index, row), label in zip(df.iterrows(), labels):
            probe(row); probe(label)
        for i, (index, row) in enumerate(rows):
            probe(row)
        """
    )
    assert seen == [SERIES, None, None, SERIES, None, None]


def test_enumerate_and_zip_are_followed_only_when_they_are_the_builtins():
    seen = probe(
        """
        import pandas as pd
        from mylib import enumerate
        df = pd.read_csv("a.csv")
        for i, (index, row) in enumerate(df.iterrows()):
            probe(row)
        for i, (index, row) in zip(df.iterrows()):
            probe(row)
        """
    )
    assert seen == [None, None]  # a module's enumerate; a zip of one iterable yields 1-tuples


# -- SciPy ----------------------------------------------------------------------------------

SCIPY_CASES = [
    ("special.expit(a)", ARRAY),
    ("special.expit(s)", SERIES),  # a ufunc: pandas keeps the series
    ("special.softmax(s)", ARRAY),  # converts with asarray
    ("signal.convolve(a, a)", ARRAY),
    ("signal.lfilter([1.0], [1.0], a)", ARRAY),
    ("ndimage.gaussian_filter(a, 2)", ARRAY),
    ("scipy.fft.rfft(a)", ARRAY),
    ("distance.cdist(a, a)", ARRAY),
    ("cupyx.scipy.special.expit(g)", Ty("array", "cupy")),
]
SCIPY_NEAR_MISSES = [
    "signal.lfilter([1.0], [1.0], a, zi=state)",  # (output, state)
    "special.airy(a)",  # four outputs
    "special.comb(5, 2)",  # not a ufunc: a scalar
    "scipy.stats.describe(a)",
    "expit(a)",  # not SciPy's
]
SCIPY_PRELUDE = textwrap.dedent("""\
    import numpy as np
    import pandas as pd
    import scipy.fft
    import scipy.stats
    import cupyx.scipy.special
    from scipy import ndimage, signal, special
    from scipy.spatial import distance
    from mylib import expit, state, g
    a = np.zeros(8)
    s = pd.Series([1.0])
    """)


@pytest.mark.parametrize(("expression", "expected"), SCIPY_CASES, ids=[e for e, _ in SCIPY_CASES])
def test_scipy_functions_that_return_arrays(expression, expected):
    assert _probe(expression, SCIPY_PRELUDE) == expected


@pytest.mark.parametrize("expression", SCIPY_NEAR_MISSES)
def test_scipy_near_misses(expression):
    assert _probe(expression, SCIPY_PRELUDE) is None


def test_scipy_arrays_are_seen_by_the_array_rules():
    found = _codes("""\
        import numpy as np
        from scipy import signal
        from mylib import smooth
        x = np.random.rand(100)
        y = signal.convolve(x, np.ones(5))
        peak = max(y)
        z = smooth(x)
        other = max(z)
        """)
    assert found == [(6, "GPU204")]


# -- Dask -----------------------------------------------------------------------------------


def test_dask_datasets_and_array_factories():
    prelude = "import dask\nimport dask.datasets\nimport dask.array as da\nfrom mylib import timeseries\n"
    assert probe(prelude + "probe(dask.datasets.timeseries())\nprobe(da.ones(3))\nprobe(timeseries())\n") == [
        Ty("frame", "dask"),
        Ty("collection", "dask"),
        None,
    ]


def test_a_dask_dataset_is_lazy_for_the_compute_rule():
    found = _codes("""\
        import dask.datasets
        from mylib import timeseries
        frame = dask.datasets.timeseries()
        local = timeseries()
        for name in ["Alice", "Bob"]:
            a = frame[frame.name == name].x.sum().compute()
            b = local[local.name == name].x.sum().compute()
        """)
    assert [line for line, code in found if code == "GPU501"] == [6]


# -- containers filled with known values ----------------------------------------------------

FILLED = """
import numpy as np
import torch
device = torch.device("cuda")
def f(batches, keys):
    outs = []
    for b in batches:
        outs.append(b.to(device))
    probe(outs[0])
    for o in outs:
        probe(o)
    arrays = {}
    for k in keys:
        arrays[k] = np.zeros(3)
    probe(arrays["a"])
    for v in arrays.values():
        probe(v)
    for k, v in arrays.items():
        probe(v)
"""


def test_containers_filled_with_known_values():
    placed = Ty("placed", "torch", "device")
    assert probe(FILLED) == [placed, placed, ARRAY, ARRAY, ARRAY]


@pytest.mark.parametrize(
    "source",
    [
        # a value of another type, or an unknown one, put in it
        "xs = []\nxs.append(np.zeros(3))\nxs.append(1)\nprobe(xs[0])\n",
        "xs = []\nxs.append(load())\nxs.append(np.zeros(3))\nprobe(xs[0])\n",
        # bound more than once, or to a list that was not empty
        "xs = []\nxs.append(np.zeros(3))\nxs = other()\nxs.append(np.zeros(3))\nprobe(xs[0])\n",
        "xs = [load()]\nxs.append(np.zeros(3))\nprobe(xs[0])\n",
        # a nested function may put anything in it
        "xs = []\nxs.append(np.zeros(3))\ndef add(v):\n    xs.append(v)\nprobe(xs[0])\n",
        # iterating a dict yields its keys
        "d = {}\nd['a'] = np.zeros(3)\nfor k in d:\n    probe(k)\n",
        # `list` is not the builtin here
        "from helpers import list\nxs = list()\nxs.append(np.zeros(3))\nprobe(xs[0])\n",
    ],
)
def test_near_misses_of_filled_containers(source):
    assert probe_one("import numpy as np\n" + source) is None


def test_a_stack_of_a_filled_list_is_on_its_elements_device():
    assert _codes("""
        import torch

        device = torch.device("cuda")


        def total(batches):
            sums = []
            for b in batches:
                sums.append(b.to(device).sum())
            for s in sums:
                print(s.item())
            return torch.stack(sums).cpu()
    """) == [(12, "GPU307")]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("np.mean(grid, axis=0)", ARRAY),
        ("np.nanmax(grid, 1)", ARRAY),
        ("grid.max(0) - grid.min(0)", ARRAY),
        ("grid.sum(axis=1)", ARRAY),
        ("np.random.permutation(grid)", ARRAY),
        # without an axis (or with axis=None) a reduction gives a scalar
        ("np.mean(grid)", None),
        ("grid.max()", None),
        ("grid.sum(axis=None)", None),
        ("np.sum(grid, None)", None),
    ],
)
def test_reductions_along_an_axis_give_arrays(expression, expected):
    assert _probe(expression, "import numpy as np\ngrid = np.zeros((3, 4))\n") == expected
