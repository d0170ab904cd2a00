"""`gpulint readiness` verdicts on the calls a hand check against cuDF and cuML 26.10 found
misjudged. Each expected verdict and source line is read from the sources the tables name
(cuDF 6a22d1d2f908, cuML 342457bcb82b): the line of the raise, the default, the constant."""

from __future__ import annotations

import json
import os
from textwrap import dedent

import pytest
from gpulint.output import readiness_report
from gpulint.readiness import (
    BREAKS,
    BY_DESIGN,
    CPU_IN_CUDF,
    FALLBACK,
    GPU,
    REMOVED_IN_PANDAS3,
    UNDECIDED,
    Operation,
    analyse_source,
    overall_share,
    tallies,
)

HEADER = """
import pandas as pd
from sklearn.linear_model import LogisticRegression

typed = pd.read_csv("people.csv", dtype={"name": str, "age": "int64"}, parse_dates=["joined"])
plain = pd.read_csv("people.csv")
numbers = pd.DataFrame({"a": [1, 2], "b": [3.5, 4.5]})
"""


def ops(code: str) -> dict[str, Operation]:
    """The counted operations of HEADER followed by `code`, by their code as written."""
    return {op.code: op for op in analyse_source(HEADER + dedent(code), "t.py").operations}


def sources(op: Operation) -> list[str | None]:
    return [r.source for r in op.reasons]


# cuDF: python/cudf/cudf/core/groupby/groupby.py, `_Grouping._handle_grouper` calls
# `_handle_frequency_grouper(by)` when `by.freq`; that method is `raise NotImplementedError()` (4622).
FREQUENCY_GROUPER = "python/cudf/cudf/core/groupby/groupby.py:4622"


def test_frequency_grouper_falls_back_where_cudf_raises():
    found = ops("""
        a = typed.groupby(pd.Grouper(key="joined", freq="ME")).sum()
        b = typed.groupby([pd.Grouper(key="joined", freq="W"), "name"]).sum()
        weekly = pd.Grouper(key="joined", freq="7D")
        c = typed.groupby(weekly).sum()
        d = typed.groupby(pd.Grouper(key="name")).sum()
        keys = list(typed.columns[:1])
        e = typed.groupby(keys).sum()
    """)
    assert found["typed.groupby(keys)"].verdict == GPU  # no Grouper the file shows
    for code in (
        'typed.groupby(pd.Grouper(key="joined", freq="ME"))',
        'typed.groupby([pd.Grouper(key="joined", freq="W"), "name"])',
        "typed.groupby(weekly)",
    ):
        assert found[code].verdict == FALLBACK, code
        assert sources(found[code]) == [FREQUENCY_GROUPER]
    # a Grouper with no freq is a column key: `_handle_label(by.key)`, on the GPU
    assert found['typed.groupby(pd.Grouper(key="name"))'].verdict == GPU


def test_grouper_with_an_alias_pandas_3_removed_breaks():
    # pandas 3 (`to_offset("M")`) raises ValueError: "'M' is no longer supported for offsets"
    found = ops("""
        a = typed.groupby(pd.Grouper(key="joined", freq="M")).sum()
    """)
    op = found['typed.groupby(pd.Grouper(key="joined", freq="M"))']
    assert op.verdict == BREAKS and '"ME"' in op.reasons[0].text


# cuDF: python/cudf/cudf/core/series.py:3203-3213, `Series.unique` returns `res.values` in
# pandas-compatible mode; python/cudf/cudf/core/column/string.py:460, `StringColumn.values`
# raises TypeError.
STRING_VALUES = "python/cudf/cudf/core/column/string.py:460"


def test_unique_on_a_text_column_falls_back_numeric_runs_unknown_is_undecided():
    found = ops("""
        a = typed["name"].unique()
        b = typed["age"].unique()
        c = numbers["a"].unique()
        d = plain["name"].unique()
        e = plain["name"].astype(str).unique()
        names = pd.Series(["x", "y"])
        f = names.unique()
    """)
    text = found['typed["name"].unique()']
    assert text.verdict == FALLBACK and sources(text) == [STRING_VALUES]
    assert "text" in text.reasons[0].text
    assert found['typed["age"].unique()'].verdict == GPU
    assert found['numbers["a"].unique()'].verdict == GPU
    unknown = found['plain["name"].unique()']
    assert unknown.verdict == UNDECIDED and all("does not show the dtype" in r.text for r in unknown.reasons)
    assert found["(...).unique()"].verdict == FALLBACK  # plain["name"].astype(str).unique()
    assert found["names.unique()"].verdict == FALLBACK


def test_unique_after_a_column_write_is_not_judged_from_the_reader():
    found = ops("""
        typed["age"] = typed["age"].astype(str)
        a = typed["age"].unique()
    """)
    assert found['typed["age"].unique()'].verdict == UNDECIDED


# cuDF: python/cudf/cudf/core/dataframe.py, `DataFrame.transpose` (and `T = property(transpose)`)
# raises ValueError("Columns must all have the same dtype") when a column's dtype differs (4830).
MIXED_TRANSPOSE = "python/cudf/cudf/core/dataframe.py:4830"
# cuDF: python/cudf/cudf/core/column/column.py, `as_column` raises MixedTypeError for an object
# column `infer_dtype` calls "mixed-integer" (3509): a transposed row of text and numbers.
MIXED_COLUMN = "python/cudf/cudf/core/column/column.py:3509"


def test_transposing_a_frame_of_text_and_numbers_falls_back_and_so_does_its_result():
    found = ops("""
        people = pd.DataFrame({"name": ["x", "y"], "age": [1, 2]})
        a = people.T.to_dict()
        b = people.transpose()
        c = typed.T
        d = numbers.astype(float).T
        e = plain.describe().T
        f = plain.T
        words = pd.DataFrame({"a": ["x"], "b": ["y"]})
        g = words.T.to_dict()
    """)
    for code in ("people.T", "people.transpose()", "typed.T"):
        assert found[code].verdict == FALLBACK and sources(found[code]) == [MIXED_TRANSPOSE], code
    result = found["people.T.to_dict()"]
    assert result.verdict == FALLBACK and sources(result) == [MIXED_COLUMN]
    assert found["numbers.astype(float).T"].verdict == GPU  # one dtype in every column
    assert found["plain.describe().T"].verdict == GPU
    assert found["plain.T"].verdict == UNDECIDED
    assert found["words.T"].verdict == GPU and found["words.T.to_dict()"].verdict == GPU


def test_a_literal_frame_is_read_through_the_dict_name_unless_it_changes():
    found = ops("""
        data = {"name": ["x", "y"], "age": [1, 2]}
        people = pd.DataFrame(data)
        a = people.T
        grown = {"name": ["x", "y"]}
        grown.update(plain_columns)
        others = pd.DataFrame(grown)
        b = others.T
    """)
    assert found["people.T"].verdict == FALLBACK
    assert found["others.T"].verdict == UNDECIDED


# cuDF: python/cudf/cudf/core/tools/datetimes.py:1045, `date_range` raises ValueError for an offset
# that is not a Tick, Day or Week ("cuDF does not yet support month, quarter, year-anchored
# frequency"); the resampler bins with it (`_ResampleGrouping._handle_frequency_grouper`).
DATE_RANGE = "python/cudf/cudf/core/tools/datetimes.py:1045"


def test_resample_anchored_rules_fall_back_removed_aliases_break():
    found = ops("""
        by_date = typed.set_index("joined")
        a = by_date.resample("ME").sum()
        b = by_date.resample("YE").sum()
        c = by_date.resample("QS").sum()
        d = by_date.resample("M").sum()
        e = by_date.resample("A").sum()
        f = by_date.resample("D").sum()
        g = by_date.resample("15min").sum()
        h = by_date.resample("W-MON").sum()
    """)
    for rule in ("ME", "YE", "QS"):
        op = found[f'by_date.resample("{rule}")']
        assert op.verdict == FALLBACK and sources(op) == [DATE_RANGE], rule
    # pandas 3.x: `to_offset("M")` and `to_offset("A")` raise ValueError in pandas itself
    assert found['by_date.resample("M")'].verdict == BREAKS
    assert found['by_date.resample("A")'].verdict == BREAKS
    for rule in ("D", "15min", "W-MON"):
        assert found[f'by_date.resample("{rule}")'].verdict == GPU, rule


def test_pandas_3_rejects_the_aliases_the_report_calls_broken():
    pd = pytest.importorskip("pandas")
    if int(pd.__version__.split(".")[0]) < 3:
        pytest.skip("pandas 3 removed these aliases")
    from pandas.tseries.frequencies import to_offset

    for alias in ("M", "A", "Y", "Q", "H", "T"):
        with pytest.raises(ValueError):
            to_offset(alias)


# cuDF: python/cudf/cudf/core/reshape.py, `crosstab` ends `pivot_table(..., margins=margins)`;
# `pivot_table` raises NotImplementedError when `margins is not False` (1700).
def test_crosstab_margins_falls_back_through_pivot_table():
    found = ops("""
        a = pd.crosstab(typed["name"], typed["age"], margins=True)
        b = pd.crosstab(typed["name"], typed["age"])
    """)
    margins = found['pd.crosstab(typed["name"], typed["age"], margins=True)']
    assert margins.verdict == FALLBACK
    assert sources(margins) == ["python/cudf/cudf/core/reshape.py:1700"]
    assert "`margins=True`" in margins.reasons[0].text
    assert found['pd.crosstab(typed["name"], typed["age"])'].verdict == GPU


# cuDF: python/cudf/cudf/core/dataframe.py:4489, `DataFrame.agg` raises NotImplementedError when
# `any(is_dtype_obj_string(dt) for dt in dtypes)`.
def test_agg_over_a_frame_with_text_columns_falls_back():
    found = ops("""
        a = typed.agg("max")
        b = numbers.agg("max")
        c = plain.agg("max")
        d = typed.astype(str).agg("max")
    """)
    text = found['typed.agg("max")']
    assert text.verdict == FALLBACK and sources(text) == ["python/cudf/cudf/core/dataframe.py:4489"]
    assert found['numbers.agg("max")'].verdict == GPU
    assert found['plain.agg("max")'].verdict == UNDECIDED
    assert found['(...).agg("max")'].verdict == FALLBACK  # typed.astype(str).agg("max")


# cuDF: python/cudf/cudf/io/json.py, `engine = "cudf" if lines else "pandas"` when `engine ==
# "auto"`; otherwise `pd.read_json(...)` (256).
def test_read_json_is_cpu_inside_cudf_unless_json_lines():
    found = ops("""
        a = pd.read_json("a.json")
        b = pd.read_json("a.json", lines=True)
        c = pd.read_json("a.json", engine="pandas", lines=True)
    """)
    cpu = found['pd.read_json("a.json")']
    assert cpu.verdict == CPU_IN_CUDF and sources(cpu) == ["python/cudf/cudf/io/json.py:256"]
    assert found['pd.read_json("a.json", lines=True)'].verdict == GPU
    assert found['pd.read_json("a.json", engine="pandas", lines=True)'].verdict == CPU_IN_CUDF


def test_options_plotting_styling_excel_are_cpu_by_design_and_not_counted():
    found = ops("""
        pd.set_option("display.max_rows", 10)
        width = pd.get_option("display.width")
        numbers.plot.bar()
        numbers.plot(kind="line")
        numbers.style.highlight_max().format("{:.1f}")
        numbers.to_excel("out.xlsx")
        book = pd.read_excel("in.xlsx")
    """)
    designed = [
        'pd.set_option("display.max_rows", 10)',
        'pd.get_option("display.width")',
        "numbers.plot.bar()",
        'numbers.plot(kind="line")',
        "numbers.style.highlight_max()",
        '(...).format("{:.1f}")',
        'numbers.to_excel("out.xlsx")',
        'pd.read_excel("in.xlsx")',
    ]
    for code in designed:
        assert found[code].verdict == BY_DESIGN, code
    operations = list(found.values())
    pandas = tallies(operations)["pandas"]
    assert pandas.cpu_by_design == len(designed)
    assert pandas.total == len(operations) - len(designed)
    assert overall_share(operations) == 100.0  # the readers and the literal frame run on the GPU


# cuDF 26.10 requires pandas 3 (python/cudf/pyproject.toml:33: "pandas>=3.0.0,<3.0.4a0").
def test_methods_pandas_3_removed_break_instead_of_falling_back():
    found = ops("""
        a = numbers.append(numbers)
        for key, column in numbers.iteritems():
            pass
        b = numbers["a"].append(numbers["b"])
        c = numbers.applymap(str)
    """)
    for code in ("numbers.append(numbers)", "numbers.iteritems()", 'numbers["a"].append(numbers["b"])'):
        op = found[code]
        assert op.verdict == BREAKS, code
        assert sources(op) == ["python/cudf/pyproject.toml:33"]
    assert "`map()`" in found["numbers.applymap(str)"].reasons[0].text


def test_methods_and_keywords_pandas_3_lacks_break_and_registered_methods_do_not():
    found = ops("""
        from tqdm import tqdm
        a = numbers.sort("a")
        b = numbers.fillna(method="ffill")
        c = numbers.fillna(0)
        d = numbers["a"].progress_apply(len)
    """)
    assert found['numbers.sort("a")'].verdict == BREAKS
    gone = found['numbers.fillna(method="ffill")']
    assert gone.verdict == BREAKS and "`method=`" in gone.reasons[0].text
    assert found["numbers.fillna(0)"].verdict == GPU
    assert found['numbers["a"].progress_apply(len)'].verdict != BREAKS  # tqdm adds it to pandas' classes


def test_concat_with_keys_falls_back_through_its_helper():
    # cuDF: python/cudf/cudf/core/reshape.py, `concat` calls `_concat_impl`, which raises
    # NotImplementedError when `keys is not None` (357); a list of frames is not a dict (375).
    found = ops("""
        a = pd.concat([numbers, numbers], keys=["x", "y"])
        b = pd.concat([numbers, numbers])
    """)
    keyed = found['pd.concat([numbers, numbers], keys=["x", "y"])']
    assert keyed.verdict == FALLBACK and sources(keyed) == ["python/cudf/cudf/core/reshape.py:357"]
    assert found["pd.concat([numbers, numbers])"].verdict == GPU


def test_pandas_3_has_none_of_the_methods_called_removed():
    pd = pytest.importorskip("pandas")
    if int(pd.__version__.split(".")[0]) < 3:
        pytest.skip("pandas 3 removed these methods")
    for name in REMOVED_IN_PANDAS3:
        assert not hasattr(pd.DataFrame, name) and not hasattr(pd.Series, name), name


# cuDF: python/cudf/cudf/core/groupby/groupby.py:2572, `GroupBy.apply(func, *args, engine="auto")`
# runs the function on the GPU per group (JIT or its per-group engine); NotImplementedError only
# for **kwargs (2689).
def test_groupby_apply_runs_on_the_gpu_with_a_per_group_note():
    found = ops("""
        a = typed.groupby("name").apply(lambda t: t["age"].sum())
        b = typed.groupby("name").apply(lambda t, k: t["age"].sum(), k=1)
    """)
    op = found['(...).apply(lambda t: t["age"].sum())']
    assert op.verdict == GPU and not op.reasons
    assert [n.source for n in op.notes] == ["python/cudf/cudf/core/groupby/groupby.py:2572"]
    assert "once per group" in op.notes[0].text
    assert found['(...).apply(lambda t, k: t["age"].sum(), k=1)'].verdict == FALLBACK


def test_silent_differences_are_noted_on_their_lines():
    pytest.importorskip("sklearn")
    found = ops("""
        a = numbers.apply(lambda column: column.max())
        b = numbers.apply(lambda row: row["a"], axis=1)
        c = numbers.sample(1, random_state=0)
        d = numbers.sample(1)
        e = LogisticRegression(solver="liblinear")
        f = LogisticRegression()
    """)
    # cuDF: python/cudf/cudf/core/dataframe.py:5485, `def apply(self, func, axis=1, ...)`; pandas: axis=0
    apply = found["numbers.apply(lambda column: column.max())"]
    assert [n.source for n in apply.notes] == ["python/cudf/cudf/core/dataframe.py:5485"]
    assert "`axis=1`" in apply.notes[0].text and "`axis=0`" in apply.notes[0].text
    assert not found['numbers.apply(lambda row: row["a"], axis=1)'].notes
    # cuDF: python/cudf/cudf/core/indexed_frame.py:4895, `sample(..., random_state=None, ...)`
    sample = found["numbers.sample(1, random_state=0)"]
    assert sample.verdict == GPU
    assert [n.source for n in sample.notes] == ["python/cudf/cudf/core/indexed_frame.py:4895"]
    assert not found["numbers.sample(1)"].notes
    # cuML: python/cuml/cuml/linear_model/logistic_regression.py:180, `"solver": "qn"` in
    # `_params_from_cpu`, whatever the CPU estimator's solver
    solver = found['LogisticRegression(solver="liblinear")']
    assert solver.verdict == GPU
    assert [n.source for n in solver.notes] == ["python/cuml/cuml/linear_model/logistic_regression.py:180"]
    assert not found["LogisticRegression()"].notes


# -- the report ------------------------------------------------------------------------------------


CAUSES = """
import pandas as pd
people = pd.read_csv("p.csv", dtype={"name": str})
a = people["name"].unique()
b = people["name"].unique()
c = pd.crosstab(people["name"], people["name"], margins=True)
d = people.append(people)
e = people.groupby("name").sum()
"""


def test_report_groups_causes_with_counts_and_rewrites_relative_paths_and_shares(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "a.py").write_text(CAUSES)
    (folder / "b.py").write_text("import pandas as pd\nx = pd.read_csv('x.csv').groupby('k').sum()\n")
    monkeypatch.chdir(tmp_path)
    reports = [analyse_source(CAUSES, str(folder / "a.py")), analyse_source((folder / "b.py").read_text(), "b.py")]
    markdown = readiness_report.render("markdown", [*reports])
    assert str(tmp_path) not in markdown and "`project/a.py:4:5`" in markdown  # relative, columns from 1
    assert "2 x `Series.unique` (fallback)" in markdown and "`drop_duplicates()`" in markdown
    assert "1 x `DataFrame.append` (breaks_pandas3)" in markdown
    assert "GPU share per file" in markdown and "| `b.py` | 100% |" in markdown
    assert "python -m cudf.pandas --profile" in markdown and "%%cudf.pandas.profile" in markdown
    reports = [analyse_source(CAUSES, str(folder / "a.py"))]
    data = json.loads(readiness_report.render("json", reports))
    causes = {(c["what"], c["verdict"]): c for c in data["summary"]["causes"]}
    assert causes[("Series.unique", FALLBACK)]["count"] == 2
    assert causes[("Series.unique", FALLBACK)]["source"] == STRING_VALUES
    assert causes[("DataFrame.append", BREAKS)]["rewrite"] == "`pd.concat([...])`"
    assert data["files"][0]["path"] == os.path.join("project", "a.py")
    assert data["files"][0]["share"] == pytest.approx(100.0 * 3 / 7)
    text = readiness_report.render("text", [analyse_source(CAUSES, "a.py")])
    assert text.rstrip().splitlines()[-1].startswith("Confirm on a GPU:")
    assert "a.py  GPU share 43% (3 of 7 on the GPU)" in text


def test_operation_json_without_notes_still_reads():
    op = analyse_source(CAUSES, "a.py").operations[0]
    data = op.to_json()
    del data["notes"]
    assert Operation.from_json(data) == op


# cuDF: python/cudf/cudf/core/dataframe.py:5437, `DataFrame.query(expr, local_dict=None,
# global_dict=None, **kwargs)` starts `if kwargs: raise ValueError(...)`: any other keyword
# (`engine=`, `inplace=`) raises, and cudf.pandas runs pandas.
QUERY_KWARGS = "python/cudf/cudf/core/dataframe.py:5437"


def test_query_with_a_keyword_cudf_does_not_name_falls_back():
    found = ops("""
        a = numbers.query("a > 1", engine="python")
        b = numbers.query("a > 1", inplace=True)
        c = numbers.query("a > 1")
        d = numbers.query("a > @x", local_dict={"x": 1})
    """)
    for code in ('numbers.query("a > 1", engine="python")', 'numbers.query("a > 1", inplace=True)'):
        assert found[code].verdict == FALLBACK, code
        assert sources(found[code]) == [QUERY_KWARGS]
        assert "raises ValueError" in found[code].reasons[0].text
    assert found['numbers.query("a > 1")'].verdict == GPU
    assert found['numbers.query("a > @x", local_dict={"x": 1})'].verdict == GPU


# cuDF: `IndexedFrame.to_json` (indexed_frame.py:735) returns `cudf.io.json.to_json(self, ...,
# **kwargs)`, which sets `engine = "pandas"` when `engine == "auto"` (its default, json.py:377) and
# then writes with `pd_value.to_json(...)` (json.py:431); pandas' `to_json` takes no `engine=`.
TO_JSON_PANDAS = "python/cudf/cudf/io/json.py:431"


def test_to_json_runs_pandas_inside_cudf():
    found = ops("""
        numbers.to_json("a.json")
        numbers.to_json("b.json", orient="records")
        numbers["a"].to_json("c.json")
    """)
    for code in (
        'numbers.to_json("a.json")',
        'numbers.to_json("b.json", orient="records")',
        'numbers["a"].to_json("c.json")',
    ):
        assert found[code].verdict == CPU_IN_CUDF, code
        assert sources(found[code]) == [TO_JSON_PANDAS]


# cuDF: `DataFrame.to_csv` (dataframe.py:7879) imports `cudf.io.csv` and returns
# `csv.to_csv(self, ..., compression=compression)`, which raises NotImplementedError
# `if compression:` (io/csv.py:381).
def test_to_csv_with_compression_falls_back_in_the_helper_it_calls():
    found = ops("""
        numbers.to_csv("a.csv.gz", compression="gzip")
        numbers.to_csv("a.csv")
    """)
    op = found['numbers.to_csv("a.csv.gz", compression="gzip")']
    assert op.verdict == FALLBACK and sources(op) == ["python/cudf/cudf/io/csv.py:381"]
    assert found['numbers.to_csv("a.csv")'].verdict == GPU


def test_pandas_functions_cudf_does_not_export_fall_back_and_removed_ones_break():
    # `cudf/__init__.py` exports no `read_html` and no `isna`; pandas 3 has both, and no
    # `rolling_mean` (removed in 0.23), `Series.from_array` (1.0) or `.ix` (1.0)
    found = ops("""
        tables = pd.read_html("page.html")
        flags = pd.isna(typed)
        one = pd.isna("text")
        means = pd.rolling_mean(numbers["a"], 3)
        made = pd.Series.from_array([1, 2])
        built = pd.DataFrame.from_dict({"a": [1]})
        first = numbers["a"].ix[0]
        cell = numbers.ix[0, "a"]
        by_label = numbers["a"].loc[0]
    """)
    assert found['pd.read_html("page.html")'].verdict == FALLBACK
    assert found['pd.read_html("page.html")'].reasons[0].text == "cuDF does not export `read_html`"
    assert found["pd.isna(typed)"].verdict == FALLBACK
    assert 'pd.isna("text")' not in found  # on a scalar: nothing for the GPU to run
    for code, what in (
        ('pd.rolling_mean(numbers["a"], 3)', "pandas.rolling_mean"),
        ("pd.Series.from_array([1, 2])", "Series.from_array"),
        ('numbers["a"].ix', "Series.ix"),
        ("numbers.ix", "DataFrame.ix"),
    ):
        assert found[code].verdict == BREAKS and found[code].what == what, code
        assert "AttributeError" in found[code].reasons[0].text
    assert found['pd.DataFrame.from_dict({"a": [1]})'].verdict == GPU
    assert not any(code.endswith(".loc") for code in found)


# cuDF: `make_aggregation` (_internals/aggregation.py:298) answers a callable with
# `op(Aggregation)`: the function gets cuDF's `Aggregation` class, so only a call of one of its
# classmethods on the argument works; `GroupBy.transform` runs `gb.agg(func)` (groupby.py:2883).
CALLABLE_AGGREGATION = "python/cudf/cudf/core/_internals/aggregation.py:298"


def test_group_by_aggregation_lambdas_run_only_as_a_named_aggregation():
    found = ops("""
        grouped = typed.groupby("name")
        a = grouped["age"].agg(lambda x: len(x))
        b = grouped["age"].transform(lambda x: x.fillna(x.mean()))
        c = grouped["age"].agg(lambda x: x.quantile(0.9))
        q = 0.5
        d = grouped["age"].aggregate(lambda x: x.quantile(q))
        e = grouped["age"].agg(lambda x: x.nth(len(x)))
        f = grouped["age"].agg("sum")
    """)
    for code in (
        'grouped["age"].agg(lambda x: len(x))',
        'grouped["age"].transform(lambda x: x.fillna(x.mean()))',
        'grouped["age"].agg(lambda x: x.nth(len(x)))',
    ):
        assert found[code].verdict == FALLBACK, code
        assert sources(found[code]) == [CALLABLE_AGGREGATION]
    for code in (
        'grouped["age"].agg(lambda x: x.quantile(0.9))',
        'grouped["age"].aggregate(lambda x: x.quantile(q))',
        'grouped["age"].agg("sum")',
    ):
        assert found[code].verdict == GPU, code


# -- `**options` written in the file --------------------------------------------------------------


def test_options_spread_from_a_dict_the_file_writes_decide_the_verdict():
    # crosstab's margins go through pivot_table, which falls back where `margins is not
    # False` (cudf/core/reshape.py:1700)
    found = ops(
        """
        options = {"margins": True}
        table = pd.crosstab(plain["a"], plain["b"], **options)
        quiet = {"margins": False}
        other = pd.crosstab(plain["a"], plain["b"], **quiet)
        """
    )
    spread = found['pd.crosstab(plain["a"], plain["b"], **options)']
    assert spread.verdict == FALLBACK and "reshape.py:1700" in " ".join(r.source or "" for r in spread.reasons)
    assert found['pd.crosstab(plain["a"], plain["b"], **quiet)'].verdict == GPU


@pytest.mark.parametrize(
    "setup",
    [
        'options = {"margins": False}\noptions["margins"] = True\n',  # changed after it is written
        'options = {"margins": False}\noptions.update(margins=True)\n',  # changed by a method
        "options = load_options()\n",  # not written in the file
        'options = {"margins": False, **more}\n',  # part of it comes from elsewhere
    ],
    ids=["item-stored", "updated", "not-a-literal", "unpacked-inside"],
)
def test_options_the_file_does_not_show_whole_stay_undecided(setup):
    found = ops(setup + 'table = pd.crosstab(plain["a"], plain["b"], **options)\n')
    assert found['pd.crosstab(plain["a"], plain["b"], **options)'].verdict == UNDECIDED


# -- functions cuDF's JIT cannot compile ------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        'plain["joined"].apply(lambda t: t.strftime("%Y"))',
        'plain["a"].map(lambda v: f"{v}!")',
        'plain["a"].apply(lambda v: str(v))',
        'plain["a"].apply(lambda v: pd.isna(v))',
        'plain.apply(lambda r: "%d" % r["a"], axis=1)',
        'plain["a"].apply(lambda v: [v, v])',
        "plain.apply(lambda col: col.fillna(col.mean()))",
        'plain["a"].map(spelled)',
        'plain["a"].apply(translated)',
    ],
    ids=["strftime", "f-string", "str", "pandas-function", "percent-format", "list", "pandas-method", "def", "items"],
)
def test_a_function_numba_cannot_compile_falls_back_where_cudf_gives_up(call):
    # IndexedFrame._apply turns a compilation failure into ValueError (cudf/core/indexed_frame.py:3715),
    # and cudf.pandas runs pandas instead
    functions = """
        def spelled(v):
            return str(v).split(":")[0]


        def translated(v):
            for key, value in TABLE.items():
                v = v * value
            return v


    """
    found = ops(dedent(functions) + f"result = {call}\n")[call]
    assert found.verdict == FALLBACK
    assert [r.source for r in found.reasons] == ["python/cudf/cudf/core/indexed_frame.py:3715"]


@pytest.mark.parametrize(
    "call",
    [
        'plain["a"].apply(lambda v: v * 2 + 1)',
        'plain["a"].apply(lambda v: v.upper())',
        'plain["a"].apply(f)',
        'plain["a"].apply(unknown)',
        'plain["a"].apply(lambda v: other.fillna(v))',
    ],
    ids=["arithmetic", "string-method", "named-function", "not-in-the-file", "method-of-another-value"],
)
def test_a_function_nothing_shows_fails_stays_undecided(call):
    assert ops(f"def f(v):\n    return v * 2\n\n\nresult = {call}\n")[call].verdict == UNDECIDED
