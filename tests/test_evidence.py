"""The type-evidence layer (`gpulint.evidence.TypeEnv`), driven through the engine.

A throwaway probe rule records `ctx.type_of(x)` for every call `probe(x)`, so each case
checks what a rule would see at that exact point of the walk. The probe is passed to
`analyze` directly and never stays in the global registry.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

import gpulint
from gpulint import registry
from gpulint.engine import analyze
from gpulint.evidence import OTHER, Ty
from gpulint.registry import Rule
from gpulint.source import Source

PROBE_CODE = "GPU999"


def _make_probe_rule() -> type[Rule]:
    assert PROBE_CODE not in registry._REGISTRY, "probe code clashes with a real rule"

    class Probe(Rule):
        """Records the evidence for the argument of every `probe(...)` call."""

        code = PROBE_CODE
        name = "evidence-probe"
        message = "probe"
        nodes = (ast.Call,)
        triggers = (b"probe",)
        seen: list = []

        def check(self, node: ast.AST, ctx) -> None:
            assert isinstance(node, ast.Call)
            if isinstance(node.func, ast.Name) and node.func.id == "probe":
                Probe.seen.append(ctx.type_of(node.args[0]))

    # Defining the class registered it; take it straight back out so that it can never
    # reach `all_rules()` (which is cached) or any other test.
    registry._REGISTRY.pop(PROBE_CODE, None)
    return Probe


PROBE = _make_probe_rule()


def probe(source: str) -> list[Ty | None]:
    """The evidence seen at each `probe(...)` call, in walk order."""
    PROBE.seen = []
    analyze(Source.from_text(textwrap.dedent(source)), rules=[PROBE])
    return list(PROBE.seen)


def probe_one(source: str) -> Ty | None:
    seen = probe(source)
    assert len(seen) == 1, seen
    return seen[0]


def frame(lib: str = "pandas") -> Ty:
    return Ty("frame", lib)


def series(lib: str = "pandas") -> Ty:
    return Ty("series", lib)


def test_probe_rule_is_not_registered():
    assert PROBE_CODE not in registry._REGISTRY
    assert PROBE_CODE not in {rule.code for rule in gpulint.all_rules()}
    assert probe("probe(1)") == [OTHER]  # and it works


# -- imports and aliases --------------------------------------------------------------

FACTORIES = [
    ("import pandas as pd", "pd.read_csv('a.csv')", frame()),
    ("import pandas as pd", "pd.DataFrame({'a': [1]})", frame()),
    ("import pandas as pd", "pd.read_parquet('a.parquet')", frame()),
    ("import pandas as pd", "pd.DataFrame.from_records(rows)", frame()),
    ("import pandas as pd", "pd.merge(left, right)", frame()),
    ("import pandas as pd", "pd.Series([1, 2])", series()),
    ("import pandas", "pandas.DataFrame({})", frame()),
    ("import pandas", "pandas.read_json('a.json')", frame()),
    ("import pandas.io.parsers", "pandas.read_csv('a.csv')", frame()),
    ("from pandas import DataFrame as DF, read_csv", "DF({})", frame()),
    ("from pandas import DataFrame as DF, read_csv", "read_csv('a.csv')", frame()),
    ("from pandas import DataFrame as DF, read_csv", "DF.from_dict({})", frame()),
    ("import modin.pandas as mpd", "mpd.read_csv('a.csv')", frame("modin")),
    ("import modin.pandas", "modin.pandas.DataFrame({})", frame("modin")),
    ("import dask.dataframe as dd", "dd.read_parquet('a/*.parquet')", frame("dask")),
    ("import dask.dataframe as dd", "dd.from_pandas(pdf, npartitions=2)", frame("dask")),
    ("import cudf", "cudf.read_csv('a.csv')", frame("cudf")),
    ("import cudf", "cudf.Series([1])", series("cudf")),
    ("from cudf import DataFrame", "DataFrame({'a': [1]})", frame("cudf")),
    ("import numpy as np", "np.zeros(3)", Ty("array", "numpy")),
    ("import cupy as cp", "cp.asarray(x)", Ty("array", "cupy")),
]


@pytest.mark.parametrize(("imports", "expression", "expected"), FACTORIES, ids=lambda v: str(v))
def test_constructors_and_readers(imports, expression, expected):
    assert probe_one(f"{imports}\nx = {expression}\nprobe(x)\n") == expected
    assert probe_one(f"{imports}\nprobe({expression})\n") == expected


NOT_A_FRAME = [
    # the name that was imported is the alias, not the original
    ("from pandas import DataFrame as DF", "DataFrame({})"),
    ("import pandas as pd", "pandas.read_csv('a.csv')"),
    ("import modin.pandas as mpd", "pd.read_csv('a.csv')"),
    # not imported at all: names alone are no evidence
    ("", "pd.read_csv('a.csv')"),
    ("", "read_csv('a.csv')"),
    ("", "DataFrame({})"),
    # a module of the project itself, or a star import, is unknown
    ("from .pandas import DataFrame", "DataFrame({})"),
    ("from pandas import *", "DataFrame({})"),
    # a pandas function that is not a frame factory
    ("import pandas as pd", "pd.to_datetime(x)"),
    ("import pandas as pd", "pd.DataFrame"),
]


@pytest.mark.parametrize(("imports", "expression"), NOT_A_FRAME, ids=lambda v: str(v))
def test_without_evidence_nothing_is_a_frame(imports, expression):
    ty = probe_one(f"{imports}\nprobe({expression})\n")
    assert ty is None or not ty.is_pandas_like, ty


def test_names_alone_never_make_a_frame():
    seen = probe(
        """
        import pandas as pd
        df = load_data()
        probe(df)
        probe(df.copy())
        probe(df["a"])
        probe(dataframe)
        def f(df, frame, data_df):
            probe(df); probe(frame); probe(data_df)
        """
    )
    assert seen == [None] * 7


def test_rebinding_the_module_alias_drops_the_evidence():
    assert probe_one("import pandas as pd\npd = make()\nprobe(pd.read_csv('a'))\n") is None
    assert probe_one("import pandas as pd\nimport numpy as pd\nprobe(pd.DataFrame())\n") is None


def test_imports_inside_a_function_stay_there():
    seen = probe(
        """
        def load():
            import pandas as pd
            probe(pd.read_csv("a.csv"))
        probe(pd.read_csv("a.csv"))
        """
    )
    # function bodies are walked at the end of their scope, after the module's statements
    assert seen == [None, frame()]


# -- methods, indexing, operators ---------------------------------------------------

EXPRESSIONS = [
    ("df.copy()", frame()),
    ("df.dropna().reset_index()", frame()),
    ("df.sort_values('a').head(3)", frame()),
    ('df["a"]', series()),
    ('df[["a"]]', frame()),
    ('df[["a", "b"]].copy()', frame()),
    ('df[df["a"] > 0]', frame()),
    ('df["a"] > 0', series()),
    ('df["a"] * 2 + 1', series()),
    ('df["a"].reset_index()', frame()),
    ('df["a"].reset_index(drop=True)', series()),
    ('df["a"].to_frame()', frame()),
    ("df.sum()", series()),
    ("df.T", frame()),
    ("-df", frame()),
    ("df.groupby('k')", Ty("groupby", "pandas", items=(Ty("frame", "pandas"),))),
    ("df['a'].groupby(df['k'])", Ty("groupby", "pandas", items=(Ty("series", "pandas"),))),
    ("df.groupby('k')['a']", Ty("groupby", "pandas", items=(Ty("series", "pandas"),))),
    ("df.groupby('k').sum()", Ty("ndframe", "pandas")),
    ("df.loc", Ty("indexer", "pandas")),
    ('df["s"].str', Ty("accessor", "pandas")),
    ('df["s"].str.lower()', series()),
    ("df.to_numpy()", Ty("array", "numpy")),
    ("df.values", Ty("array", "numpy")),
    ("pd.concat([df, other])", frame()),
    ('pd.concat([df["a"], df["b"]])', series()),
    ('pd.concat([df["a"], df["b"]], axis=1)', Ty("ndframe", "pandas")),
    ("pd.concat(frames)", Ty("ndframe", "pandas")),
    # a name that is no DataFrame attribute reads a column; a method is no column
    ("df.a", series()),
    ("df.count", None),
    ("df.to_dict()", None),
    ("not df", OTHER),
]


@pytest.mark.parametrize(("expression", "expected"), EXPRESSIONS, ids=lambda v: str(v))
def test_expressions_on_a_frame(expression, expected):
    source = f"import pandas as pd\ndf = pd.read_csv('a.csv')\nprobe({expression})\n"
    assert probe_one(source) == expected


def test_cudf_values_stay_on_the_device():
    assert probe_one("import cudf\ndf = cudf.DataFrame()\nprobe(df.values)\n") == Ty("array", "cupy")
    assert probe_one("import cudf\ndf = cudf.DataFrame()\nprobe(df.copy())\n") == frame("cudf")


def test_iterrows_rows_are_series():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        for i, row in df.iterrows():
            probe(row); probe(i)
        [probe(r) for _, r in df.iterrows()]
        items = [1, 2]
        for i, row in items.iterrows():
            probe(row)
        """
    )
    assert seen == [series(), None, series(), None]


# -- parameters and annotations ---------------------------------------------------------

ANNOTATIONS = [
    ("import pandas as pd", "pd.DataFrame"),
    ("import pandas as pd", '"pd.DataFrame"'),
    ("import pandas as pd\nfrom typing import Optional", "Optional[pd.DataFrame]"),
    ("import pandas as pd\nimport typing", "typing.Optional[pd.DataFrame]"),
    ("import pandas as pd", "pd.DataFrame | None"),
    ("import pandas as pd", "None | pd.DataFrame"),
    ("import pandas as pd", '"pd.DataFrame | None"'),
    ("from pandas import DataFrame", "DataFrame"),
    ("import pandas", "pandas.DataFrame"),
]


@pytest.mark.parametrize(("imports", "annotation"), ANNOTATIONS, ids=lambda v: str(v))
def test_annotated_parameters_are_frames(imports, annotation):
    source = f"""
{imports}
def f(df: {annotation}, other, *, kw: {annotation} = None):
    probe(df); probe(other); probe(kw)
"""
    assert probe(source) == [frame(), None, frame()]


@pytest.mark.parametrize(
    "annotation",
    ['"pd.DataFrame ("', '"\\x00"', "pd.DataFrame | pd.Series", "list", "Frame", "'Frame'", "dict[str, pd.DataFrame]"],
)
def test_other_annotations_give_no_frame(annotation):
    ty = probe_one(f"import pandas as pd\ndef f(df: {annotation}):\n    probe(df)\n")
    assert ty is None or not ty.is_frame


def test_star_parameters_are_containers_not_frames():
    seen = probe(
        """
        import pandas as pd
        def f(*frames: pd.DataFrame, **named: pd.DataFrame):
            probe(frames); probe(named)
        """
    )
    assert seen == [OTHER, OTHER]


def test_parameter_shadowing_a_module_frame_is_unknown():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        def f(df):
            probe(df)
        g = lambda df: probe(df)
        probe(df)
        """
    )
    # the lambda where it stands, the module, then the body of `f` (at the end of the module)
    assert seen == [None, frame(), None]


def test_parameter_named_pd_shadows_the_module():
    seen = probe(
        """
        import pandas as pd
        def f(pd):
            probe(pd.read_csv("a.csv"))
            probe(pd.DataFrame())
        probe(pd.DataFrame())
        """
    )
    assert seen == [frame(), None, None]  # the module first, then the body of `f`


def test_nested_functions_see_enclosing_bindings_and_keep_their_own():
    seen = probe(
        """
        import pandas as pd
        def outer(df: pd.DataFrame):
            def inner():
                probe(df)
                local = pd.read_csv("b.csv")
            def shadow(df):
                probe(df)
            probe(local)
        """
    )
    # `outer`'s own statements, then the bodies of `inner` and `shadow` at its end
    assert seen == [None, frame(), None]


def test_class_bodies_are_not_visible_from_methods():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        class Loader:
            df = [1, 2]
            probe(df)
            def load(self):
                probe(df)
                probe(self)
        """
    )
    assert seen == [OTHER, frame(), None]


# -- assignments and control flow ----------------------------------------------------


def test_reassignment_replaces_the_evidence():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        probe(df)
        df = [1, 2]
        probe(df)
        df = pd.DataFrame({"a": df})
        probe(df)
        df = compute(df)
        probe(df)
        """
    )
    assert seen == [frame(), OTHER, frame(), None]


def test_assignment_forms():
    seen = probe(
        """
        import pandas as pd
        a = b = pd.read_csv("a.csv")
        probe(a); probe(b)
        c, d = pd.DataFrame(), 1
        probe(c)
        first, *rest = pd.DataFrame(), 1
        probe(rest)
        e = pd.DataFrame()
        e += 1
        probe(e)
        f: pd.DataFrame = load()
        probe(f)
        g = pd.DataFrame()
        g: int
        probe(g)
        """
    )
    # unpacking a tuple gives each name its part; a starred name gets a list of the rest
    assert seen == [frame(), frame(), frame(), None, frame(), frame(), frame()]


def test_if_else_branches_that_disagree_are_unknown():
    seen = probe(
        """
        import pandas as pd
        if cond:
            df = pd.read_csv("a.csv")
        else:
            df = [1]
        probe(df)
        """
    )
    assert seen == [None]


def test_if_else_branches_that_agree_are_known():
    seen = probe(
        """
        import pandas as pd
        if cond:
            df = pd.read_csv("a.csv")
        elif other:
            df = pd.read_parquet("a.parquet")
        else:
            df = pd.DataFrame()
        probe(df)
        """
    )
    assert seen == [frame()]


def test_if_without_else_joins_with_the_old_binding():
    seen = probe(
        """
        import pandas as pd
        df = [1]
        if cond:
            df = pd.DataFrame()
            probe(df)
        probe(df)
        if cond:
            fresh = pd.DataFrame()
        probe(fresh)
        """
    )
    # a branch that leaves `fresh` unbound cannot reach a use of it
    assert seen == [frame(), None, frame()]


@pytest.mark.parametrize(
    "loop",
    ["for item in items:", "while more():", "async for item in items:"],
)
def test_a_loop_may_not_run(loop):
    body = f"""
import pandas as pd
async def main():
    df = [1]
    {loop}
        df = pd.read_csv(item)
        probe(df)
    probe(df)
"""
    assert probe(body) == [frame(), None]


def test_for_else_and_while_else():
    seen = probe(
        """
        import pandas as pd
        df = pd.DataFrame()
        for df in items:
            pass
        else:
            probe(df)
        other = pd.DataFrame()
        while cond():
            pass
        else:
            probe(other)
        """
    )
    assert seen == [None, frame()]


def test_a_rebinding_later_in_a_loop_reaches_the_next_iteration():
    seen = probe(
        """
        import pandas as pd
        df = pd.DataFrame()
        for item in items:
            probe(df)
            df = [item]
        """
    )
    assert seen == [None]


def test_comprehension_variables_do_not_leak():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        [df for df in range(3)]
        {df: 1 for df in range(3)}
        list(df for df in range(3))
        probe(df)
        [probe(df) for df in chunks]
        [probe(x) for x in [df]]
        """
    )
    assert seen == [frame(), None, frame()]  # the last: the items of a list of known values


def test_class_instances_are_other():
    seen = probe(
        """
        class Table:
            pass
        t = Table()
        probe(t)
        probe(Table)
        probe([1, 2]); probe({"a": 1}); probe("text"); probe(len(x))
        """
    )
    assert seen == [OTHER, Ty("class"), OTHER, OTHER, OTHER, OTHER]


def test_function_and_class_definitions_rebind_the_name():
    seen = probe(
        """
        import pandas as pd
        df = pd.DataFrame()
        def df():
            pass
        probe(df)
        frame = pd.DataFrame()
        class frame:
            pass
        probe(frame)
        """
    )
    assert seen == [None, Ty("class")]


def test_walrus():
    seen = probe(
        """
        import pandas as pd
        if (df := pd.read_csv("a.csv")) is not None:
            probe(df)
        probe(df)
        [(y := pd.DataFrame(), probe(y)) for _ in range(2)]
        probe(y)
        z = pd.DataFrame()
        [z := [i] for i in items]
        probe(z)
        """
    )
    # a walrus in a comprehension binds in the enclosing scope, if the comprehension runs
    assert seen == [frame(), frame(), frame(), frame(), None]


@pytest.mark.parametrize(
    "pattern",
    ["[df]", "{'k': df}", "Point(x=df)", "df", "[*df]", "{**df}", "str() as df", "[1, 2] | [df, 2]"],
)
def test_match_captures_rebind(pattern):
    seen = probe(
        f"""
import pandas as pd
df = pd.read_csv("a.csv")
keep = pd.DataFrame()
match command:
    case {pattern}:
        probe(df)
probe(df)
probe(keep)
"""
    )
    assert seen == [None, None, frame()]


def test_match_cases_that_agree():
    seen = probe(
        """
        import pandas as pd
        match kind:
            case "csv":
                df = pd.read_csv(path)
            case _:
                df = pd.read_parquet(path)
        probe(df)
        """
    )
    assert seen == [frame()]


def test_global_makes_the_name_unknown_everywhere():
    seen = probe(
        """
        import pandas as pd
        df = None
        probe(df)
        def load():
            global df
            df = pd.read_csv("a.csv")
            probe(df)
        load()
        probe(df)
        df = pd.DataFrame()
        probe(df)
        kept = pd.DataFrame()
        probe(kept)
        """
    )
    # `load()` can rebind `df` whenever it is called: no evidence for it anywhere
    # (the body of `load` is walked last, at the end of the module)
    assert seen == [None, None, None, frame(), None]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_global_in_a_one_line_function(newline):
    lines = ["import pandas as pd", "df = pd.DataFrame()", "x = 1", "def load(): global df; df = [1]", "probe(df)", ""]
    assert probe(newline.join(lines)) == [None]


def test_the_word_global_in_prose_is_not_a_statement():
    seen = probe(
        """
        # global settings for the global state
        import pandas as pd
        df = pd.DataFrame()
        probe(df)
        """
    )
    assert seen == [frame()]


def test_nonlocal_makes_the_name_unknown():
    seen = probe(
        """
        import pandas as pd
        def outer():
            df = pd.DataFrame()
            def reset():
                nonlocal df
                df = [1]
            reset()
            probe(df)
        """
    )
    assert seen == [None]


def test_del_forgets():
    seen = probe(
        """
        import pandas as pd
        df = pd.read_csv("a.csv")
        del df
        probe(df)
        """
    )
    assert seen == [None]


def test_try_except():
    seen = probe(
        """
        import pandas as pd
        try:
            a = pd.read_csv("a.csv")
        except OSError:
            a = None
        probe(a)
        try:
            b = pd.read_csv("a.csv")
        except OSError:
            b = pd.DataFrame()
        probe(b)
        c = pd.DataFrame()
        try:
            pass
        except Exception as c:
            pass
        probe(c)
        d = [1]
        try:
            d = pd.read_csv("a.csv")
        except OSError:
            probe(d)
        finally:
            probe(d)
        """
    )
    assert seen == [None, frame(), None, None, None]


def test_with_targets_are_unknown():
    seen = probe(
        """
        import pandas as pd
        df = pd.DataFrame()
        with open(path) as df:
            probe(df)
        probe(df)
        """
    )
    assert seen == [None, None]


# -- readers that do not return a frame --------------------------------------------------


def reader(lib: str = "pandas") -> Ty:
    return Ty("reader", lib)


READERS = [
    # one sheet is a frame; `None` or a list of sheets is a dict of frames
    ("pd.read_excel('a.xlsx')", frame()),
    ("pd.read_excel('a.xlsx', sheet_name='totals')", frame()),
    ("pd.read_excel('a.xlsx', sheet_name=2)", frame()),
    ("pd.read_excel('a.xlsx', 'totals')", frame()),
    ("pd.read_excel('a.xlsx', sheet_name=None)", OTHER),
    ("pd.read_excel('a.xlsx', None)", OTHER),
    ("pd.read_excel('a.xlsx', sheet_name=['a', 'b'])", OTHER),
    ("pd.read_excel('a.xlsx', sheet_name=sheets)", None),
    ("pd.read_excel('a.xlsx', **options)", None),
    # chunked readers yield frames but are not frames
    ("pd.read_csv('a.csv', chunksize=1000)", reader()),
    ("pd.read_csv('a.csv', iterator=True)", reader()),
    ("pd.read_table('a.tsv', chunksize=10)", reader()),
    ("pd.read_fwf('a.txt', chunksize=10)", reader()),
    ("pd.read_json('a.jsonl', lines=True, chunksize=10)", reader()),
    ("pd.read_sql('select 1', con, chunksize=500)", reader()),
    ("pd.read_sql_query('select 1', con, chunksize=500)", reader()),
    ("pd.read_sql_table('t', con, chunksize=500)", reader()),
    ("pd.read_hdf('a.h5', 'k', iterator=True)", reader()),
    ("pd.read_stata('a.dta', chunksize=10)", reader()),
    ("pd.read_sas('a.sas7bdat', chunksize=10)", reader()),
    ("mpd.read_csv('a.csv', chunksize=1000)", reader("modin")),
    # asking for no chunks is a frame; deciding at run time is unknown
    ("pd.read_csv('a.csv', chunksize=None)", frame()),
    ("pd.read_csv('a.csv', iterator=False)", frame()),
    ("pd.read_csv('a.csv', chunksize=size)", None),
    ("pd.read_csv('a.csv', **options)", None),
    ("pd.read_sql('select 1', con)", frame()),
    # `typ` decides what `read_json` returns
    ("pd.read_json('a.json', typ='series')", series()),
    ("pd.read_json('a.json', typ=kind)", None),
    ("pd.read_json('a.jsonl', lines=True, typ='series', chunksize=10)", None),
    # whatever was stored: a frame or a series, or (pickle) any object
    ("pd.read_hdf('a.h5', 'k')", Ty("ndframe", "pandas")),
    ("pd.read_pickle('a.pkl')", None),
    ("pd.read_html('a.html')", None),
]


@pytest.mark.parametrize(("expression", "expected"), READERS, ids=lambda v: str(v))
def test_what_readers_return(expression, expected):
    source = f"import pandas as pd\nimport modin.pandas as mpd\nprobe({expression})\n"
    assert probe_one(source) == expected


def test_iterating_a_chunked_reader_yields_frames():
    seen = probe(
        """
        import pandas as pd
        reader = pd.read_csv("a.csv", chunksize=1000)
        probe(reader)
        for chunk in reader:
            probe(chunk)
        for number, chunk in enumerate(pd.read_sql("select 1", con, chunksize=10)):
            probe(chunk); probe(number)
        [probe(part) for part in pd.read_csv("a.csv", iterator=True)]
        probe(reader.get_chunk(10))
        for a, b in reader:
            probe(b)
        for chunk in pd.read_csv("a.csv"):
            probe(chunk)
        """
    )
    assert seen == [reader(), frame(), frame(), None, frame(), frame(), None, None]


def test_a_rebound_enumerate_is_not_followed():
    source = """
    import pandas as pd
    enumerate = zip
    for i, chunk in enumerate(pd.read_csv("a.csv", chunksize=5)):
        probe(chunk)
    """
    assert probe_one(source) is None


def test_cudf_and_dask_readers_take_no_chunksize():
    assert probe_one("import cudf\nprobe(cudf.read_csv('a.csv', chunksize=5))\n") is None
    assert probe_one("import dask.dataframe as dd\nprobe(dd.read_csv('a.csv', chunksize=5))\n") is None


# -- leaving a library: into pandas -----------------------------------------------------

INTO_PANDAS = [
    ("import cudf\nx = cudf.read_csv('a.csv')", "x.to_pandas()", frame()),
    ("import cudf\nx = cudf.read_csv('a.csv')", "x['a'].to_pandas()", series()),
    ("import cudf\nx = cudf.read_csv('a.csv')", "x.copy()", frame("cudf")),
    ("import dask.dataframe as dd\nx = dd.read_csv('a.csv')", "x.compute()", frame()),
    ("import dask.dataframe as dd\nx = dd.read_csv('a.csv')", "x['a'].compute()", series()),
    ("import dask.dataframe as dd\nx = dd.read_csv('a.csv')", "x.persist()", frame("dask")),
    ("import dask.dataframe as dd\nx = dd.read_csv('a.csv')", "x.values", None),
    ("import modin.pandas as mpd\nx = mpd.read_csv('a.csv')", "x.compute()", None),
    ("import pandas as pd\nx = pd.read_csv('a.csv')", "x['a'].unique_series()", None),
]


@pytest.mark.parametrize(("setup", "expression", "expected"), INTO_PANDAS, ids=lambda v: str(v))
def test_to_pandas_and_compute_give_pandas_objects(setup, expression, expected):
    assert probe_one(f"{setup}\nprobe({expression})\n") == expected


def test_library_of_prefers_the_longest_module():
    from gpulint.evidence import FRAME_LIBRARIES, library_of

    table = dict(FRAME_LIBRARIES, modin="modin-top")
    assert library_of("modin.pandas.read_csv", table) == ("modin", "read_csv")
    assert library_of("modin.read_csv", table) == ("modin-top", "read_csv")
    assert library_of("dask.dataframe.io.read_csv", FRAME_LIBRARIES) == ("dask", "io.read_csv")
    assert library_of("pandasx.read_csv", FRAME_LIBRARIES) is None
    assert library_of("pandas", FRAME_LIBRARIES) is None


def test_numpy_ufuncs_are_exactly_numpys():
    import numpy as np

    from gpulint.evidence import NUMPY_UFUNCS, is_numpy_ufunc

    present = {name for name in dir(np) if isinstance(getattr(np, name), np.ufunc)}
    assert present <= NUMPY_UFUNCS
    assert all(isinstance(getattr(np, name), np.ufunc) for name in NUMPY_UFUNCS if hasattr(np, name))
    assert is_numpy_ufunc("numpy.sqrt") and not is_numpy_ufunc("numpy.sum")
    assert not is_numpy_ufunc("cupy.sqrt") and not is_numpy_ufunc(None) and not is_numpy_ufunc("numpy.maximum.reduce")
