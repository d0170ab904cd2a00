"""`gpulint readiness`: what the type evidence places on the GPU under cudf.pandas and
cuml.accel, what falls back (with the table's condition and source line), what is undecided,
the blockers, every output format and the exit codes."""

from __future__ import annotations

import json
from textwrap import dedent

import jsonschema
import pytest
from gpulint import all_rules
from gpulint.output import readiness_report
from gpulint.output.readiness_report import MARKDOWN_ROWS, NAMED, SCHEMA
from gpulint.readiness import (
    BY_DESIGN,
    FALLBACK,
    GPU,
    PROBE_CODE,
    UNDECIDED,
    FileReport,
    analyse_source,
    overall_share,
)

from .conftest import write


def ops(code: str) -> dict[str, object]:
    """What the report says of each counted call, by its code as written."""
    return {op.code: op for op in analyse_source(dedent(code), "t.py").operations}


def verdicts(code: str) -> dict[str, str]:
    return {key: op.verdict for key, op in ops(code).items()}


# -- evidence paths: flagged and near misses -----------------------------------------------------


def test_frame_from_read_csv_falls_back_on_a_literal_condition_with_its_source_line():
    found = ops("""
        import pandas as pd
        sales = pd.read_csv("s.csv")
        a = sales.pivot_table(index="k", margins=True)
        b = sales.pivot_table(index="k")
    """)
    flagged = found['sales.pivot_table(index="k", margins=True)']
    assert flagged.verdict == FALLBACK and flagged.what == "DataFrame.pivot_table"
    assert [r.text for r in flagged.reasons] == ["`margins=True`: cuDF falls back where `margins is not False`"]
    assert flagged.reasons[0].source.startswith("python/cudf/cudf/core/reshape.py:")
    assert found['sales.pivot_table(index="k")'].verdict == GPU
    assert found['pd.read_csv("s.csv")'].verdict == GPU


def test_parameter_annotated_dataframe_is_evidence():
    found = verdicts("""
        import pandas as pd
        def rows(table: pd.DataFrame):
            return table.iterrows()
        def untyped(df):
            return df.iterrows()
    """)
    assert found == {"table.iterrows()": FALLBACK}  # `df` is only a name: nothing counted


def test_groupby_and_str_accessor():
    found = verdicts("""
        import pandas as pd
        frame = pd.read_parquet("p")
        frame.groupby("k").agg("sum", engine="numba")
        frame.groupby("k").agg("sum")
        frame["s"].str.contains("a", regex=True, case=False)
        frame["s"].str.contains("a")
    """)
    assert found['(...).agg("sum", engine="numba")'] == FALLBACK
    assert found['(...).agg("sum")'] == GPU
    assert found['frame["s"].str.contains("a", regex=True, case=False)'] == FALLBACK
    assert found['frame["s"].str.contains("a")'] == GPU


def test_method_cudf_does_not_define_and_keyword_its_signature_lacks():
    found = ops("""
        import pandas as pd
        frame = pd.read_csv("s.csv")
        frame.to_latex("out.tex")
        frame.to_excel("out.xlsx")
        pd.read_excel("book.xlsx")
    """)
    assert found['frame.to_latex("out.tex")'].verdict == FALLBACK
    assert "does not define" in found['frame.to_latex("out.tex")'].reasons[0].text
    # Excel files are pandas' work on the CPU by design, counted apart
    assert found['frame.to_excel("out.xlsx")'].verdict == BY_DESIGN
    assert found['pd.read_excel("book.xlsx")'].verdict == BY_DESIGN


def test_estimator_hyperparameters_literal_fallback_and_supported():
    pytest.importorskip("sklearn")  # scikit-learn's defaults decide the hyperparameters left out
    found = ops("""
        from sklearn.ensemble import RandomForestClassifier
        bad = RandomForestClassifier(criterion="log_loss")
        good = RandomForestClassifier(criterion="gini", n_estimators=50)
    """)
    bad = found['RandomForestClassifier(criterion="log_loss")']
    assert bad.verdict == FALLBACK and bad.estimator and bad.what == "sklearn.ensemble.RandomForestClassifier(...)"
    assert "criterion" in bad.reasons[0].text and bad.reasons[0].source.startswith("python/cuml/")
    assert found['RandomForestClassifier(criterion="gini", n_estimators=50)'].verdict == GPU


def test_estimator_non_literal_hyperparameter_is_undecided():
    found = ops("""
        from sklearn.ensemble import RandomForestClassifier
        def build(criterion):
            return RandomForestClassifier(criterion=criterion)
    """)
    assert found["RandomForestClassifier(criterion=criterion)"].verdict == UNDECIDED


def test_method_the_gpu_estimator_lacks_and_one_it_has():
    found = ops("""
        from sklearn.ensemble import RandomForestClassifier
        model = RandomForestClassifier()
        model.fit(X, y)
        model.apply(X)
    """)
    assert found["model.fit(X, y)"].verdict == GPU
    assert found["model.apply(X)"].verdict == FALLBACK
    assert "has no `apply`" in found["model.apply(X)"].reasons[0].text


def test_estimator_cuml_accel_does_not_accelerate():
    found = verdicts("""
        from sklearn.tree import DecisionTreeClassifier
        DecisionTreeClassifier(max_depth=3)
    """)
    assert found == {"DecisionTreeClassifier(max_depth=3)": FALLBACK}


def test_near_misses_cudf_frame_named_df_and_dict_like_apply():
    found = ops("""
        import cudf
        import pandas as pd
        gdf = cudf.read_csv("s.csv")
        gdf.pivot_table(index="k", margins=True)
        class Table:
            def apply(self, f, axis=0):
                return f
        df = Table()
        df.apply(len, axis=1)
        config = {"apply": 1}
        config.get("apply")
    """)
    assert found == {}


def test_only_supported_operations_report_100_percent():
    report = analyse_source(
        dedent("""
        import pandas as pd
        frame = pd.read_csv("s.csv")
        frame.groupby("k").agg("sum")
        frame.merge(frame, on="k")
        frame["s"].str.lower()
    """),
        "t.py",
    )
    assert len(report.operations) == 5
    assert overall_share(report.operations) == 100.0


def test_probe_is_no_rule():
    assert all(rule.code != PROBE_CODE for rule in all_rules())


@pytest.mark.parametrize("suppression", ["  # noqa", "  # noqa: GPU102", "\n# gpulint: noqa"])
def test_operations_are_records_no_suppression_hides(suppression):
    report = analyse_source(
        f"import pandas as pd\ndf = pd.read_csv('x.csv')\ntotals = df.groupby('a').sum(){suppression}\n"
    )
    assert [op.what for op in report.operations] == ["pandas.read_csv", "DataFrame.groupby", "DataFrameGroupBy.sum"]
    assert [op.line for op in report.operations] == [2, 3, 3]


# -- the command --------------------------------------------------------------------------------

SCRIPT = """\
import pandas as pd
sales = pd.read_csv("s.csv")
sales.pivot_table(index="k", margins=True)
for i, row in sales.iterrows():
    print(row)
sales.groupby("k").agg("sum")
"""
SUPPORTED = 'import pandas as pd\npd.read_csv("s.csv").groupby("k").agg("sum")\n'


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
                for c in cells
            ],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_text_report_per_file_then_summary_exit_0_with_fallbacks(project, cli):
    write(project / "sales.py", SCRIPT)
    run = cli("readiness", "sales.py")
    assert run.code == 0
    assert run.lines[0] == "sales.py  GPU share 60% (3 of 5 on the GPU)"
    assert any("fallback" in line and "margins is not False" in line for line in run.lines)
    assert any("blocker" in line and "GPU102" in line for line in run.lines)
    assert "3 of 5 pandas operations run on the GPU under cudf.pandas; 2 fall back." in run.lines
    assert run.lines[-1].startswith("Confirm on a GPU: `python -m cudf.pandas --profile script.py`")


def test_blockers_follow_the_rule_selection(project, cli):
    write(project / "sales.py", SCRIPT)
    run = cli("readiness", "sales.py", "--ignore", "GPU102")
    assert not any("GPU102" in line for line in run.lines)


def test_json_report_matches_its_schema(project, cli):
    write(project / "sales.py", SCRIPT)
    run = cli("readiness", "sales.py", "--output-format", "json")
    data = json.loads(run.stdout)
    jsonschema.Draft7Validator(SCHEMA).validate(data)
    assert data["summary"]["pandas"]["fallback"] == 2
    assert [b["code"] for b in data["files"][0]["blockers"]] == ["GPU102"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(SCHEMA).validate({**data, "summary": {}})


def test_columns_count_from_1_as_in_check(project, cli):
    write(project / "sales.py", SCRIPT)
    [finding] = json.loads(cli("check", "sales.py", "--select", "GPU102", "--output-format", "json").stdout)
    where = f"{finding['location']['row']}:{finding['location']['column']}"
    text = cli("readiness", "sales.py").lines
    assert any(line.split()[:2] == [where, "blocker"] for line in text), text
    [blocker] = json.loads(cli("readiness", "sales.py", "--output-format", "json").stdout)["files"][0]["blockers"]
    assert (blocker["line"], blocker["col"]) == (finding["location"]["row"], finding["location"]["column"])


def test_markdown_report(project, cli):
    write(project / "sales.py", SCRIPT)
    run = cli("readiness", "sales.py", "--output-format", "markdown")
    assert run.lines[0] == "## GPU readiness"
    assert any(line.startswith("| `sales.py:3:1` |") and "fallback" in line for line in run.lines)


def test_notebook_operations_carry_their_cell(project, cli):
    write(
        project / "book.ipynb",
        notebook("import pandas as pd", 'frame = pd.read_csv("s")\nframe.pivot_table(index="k", margins=True)'),
    )
    data = json.loads(cli("readiness", "book.ipynb", "--output-format", "json").stdout)
    flagged = [op for op in data["files"][0]["operations"] if op["verdict"] == FALLBACK]
    assert [(op["cell"], op["line"]) for op in flagged] == [(2, 2)]


def test_jobs_2_reports_as_jobs_1(project, cli):
    for n in range(20):  # more files than a run keeps in one process
        write(project / f"m{n:02}.py", SCRIPT if n % 2 else SUPPORTED)
    one = cli("readiness", ".", "--jobs", "1", "--output-format", "json")
    two = cli("readiness", ".", "--jobs", "2", "--output-format", "json")
    assert one.code == two.code == 0
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert len(json.loads(one.stdout)["files"]) == 20


def test_fail_under(project, cli):
    write(project / "sales.py", SCRIPT)
    assert cli("readiness", "sales.py", "--fail-under", "90").code == 1
    assert cli("readiness", "sales.py", "--fail-under", "50").code == 0
    write(project / "ok.py", SUPPORTED)
    assert cli("readiness", "ok.py", "--fail-under", "100").code == 0


def test_library_filter(project, cli):
    write(project / "m.py", SCRIPT + "from sklearn.svm import SVC\nSVC()\n")
    data = json.loads(cli("readiness", "m.py", "--library", "cuml", "--output-format", "json").stdout)
    assert {op["library"] for op in data["files"][0]["operations"]} == {"cuml"}


def test_bad_path_and_undecodable_file_exit_2_with_a_message(project, cli):
    run = cli("readiness", "missing.py")
    assert run.code == 2 and "missing.py: error:" in run.stderr
    (project / "bad.py").write_bytes(b"\xff\xfe\x00bad")
    run = cli("readiness", "bad.py")
    assert run.code == 2 and "bad.py: error:" in run.stderr


def test_bad_option_is_a_usage_error(project, cli):
    assert cli("readiness", "--output-format", "xml").code == 2
    assert cli("readiness", "--fail-under", "120").code == 2


def test_defaults_of_installed_scikit_learn_and_meta_estimators_not_counted():
    pytest.importorskip("sklearn")
    found = verdicts("""
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.model_selection import GridSearchCV
        LogisticRegression()
        make_pipeline(LogisticRegression(warm_start=True))
        GridSearchCV(LogisticRegression(C=2.0), {})
    """)
    assert found == {
        "LogisticRegression()": GPU,
        "LogisticRegression(warm_start=True)": FALLBACK,
        "LogisticRegression(C=2.0)": GPU,
    }


def test_array_api_estimators_run_their_common_methods_on_the_gpu():
    found = verdicts("""
        from sklearn.preprocessing import StandardScaler
        scaler = StandardScaler()
        scaler.fit_transform(X)
        scaler.get_feature_names_out()
    """)
    assert found["scaler.fit_transform(X)"] == GPU
    assert found["scaler.get_feature_names_out()"] == FALLBACK


def test_operations_in_a_loop_are_marked(project, cli):
    found = ops("""
        import pandas as pd
        frame = pd.read_csv("s.csv")
        for day in range(3):
            frame.to_html(f"{day}.html")
        frame.to_html("all.html")
    """)
    assert found['frame.to_html(f"{day}.html")'].in_loop
    assert not found['frame.to_html("all.html")'].in_loop
    write(project / "m.py", 'import pandas as pd\nf = pd.read_csv("s")\nfor d in range(3):\n    f.to_html("x")\n')
    assert any("in a loop: cuDF does not define" in line for line in cli("readiness", "m.py").lines)


def test_a_call_in_a_chain_is_placed_at_its_method():
    found = ops("""
        import pandas as pd
        pd.read_csv("s.csv").to_html("s.html")
    """)
    assert (found['pd.read_csv("s.csv")'].line, found['pd.read_csv("s.csv")'].col) == (3, 0)
    chained = found['(...).to_html("s.html")']
    assert (chained.line, chained.col, chained.verdict) == (3, 20, FALLBACK)


def test_module_function_merge_falls_back_as_the_method_it_calls():
    found = ops("""
        import pandas as pd
        a = pd.read_csv("a.csv")
        b = pd.read_csv("b.csv")
        x = pd.merge(a, b, indicator=True)
        y = pd.merge(a, b, on="k")
        z = a.merge(b, indicator=True)
    """)
    flagged = found["pd.merge(a, b, indicator=True)"]
    assert flagged.verdict == FALLBACK and [r.text for r in flagged.reasons] == [
        "`indicator=True`: cuDF falls back where `indicator`"
    ]
    assert flagged.reasons[0].source.startswith("python/cudf/cudf/core/dataframe.py:")
    assert found['pd.merge(a, b, on="k")'].verdict == GPU
    assert found["a.merge(b, indicator=True)"].verdict == FALLBACK


def test_series_map_of_a_mapping_is_decided_and_of_a_function_undecided():
    found = verdicts("""
        import pandas as pd
        df = pd.read_csv("s.csv")
        codes = {"a": 1}
        built = dict(a=1)
        lookup = df["k"]
        def f(x):
            return x
        g = lambda x: x
        a = df["c"].map(codes)
        b = df["c"].map(built)
        c = df["c"].map(lookup)
        d = df["c"].map({"a": 1})
        e = df["c"].map(f)
        h = df["c"].map(g)
        i = df["c"].map(str)
        j = df["c"].map(codes.get)
        k = df["c"].map(unknown)
    """)
    for mapping in ("codes", "built", "lookup", '{"a": 1}'):
        assert found[f'df["c"].map({mapping})'] == GPU, mapping
    for function in ("f", "g", "str", "codes.get", "unknown"):
        assert found[f'df["c"].map({function})'] == UNDECIDED, function


# -- the report is written as the files arrive -------------------------------------------------


def test_json_report_is_the_document_json_dumps_writes(project, cli):
    write(project / "a.py", SCRIPT)
    write(project / "b.py", "")
    write(project / "c.ipynb", notebook("import pandas as pd", 'pd.read_csv("s").pivot_table(margins=True)'))
    (project / "d.py").write_bytes(b"\xff\xfe\x00bad")
    for args in ((".",), ("b.py",)):
        run = cli("readiness", *args, "--output-format", "json")
        assert run.stdout == json.dumps(json.loads(run.stdout), indent=2) + "\n"
    (project / "empty").mkdir()
    run = cli("readiness", "empty", "--output-format", "json")
    assert json.loads(run.stdout)["files"] == []
    assert run.stdout == json.dumps(json.loads(run.stdout), indent=2) + "\n"


def _reports(count: int, seen: list[str], out) -> object:
    """`count` file reports, each made only once what came before is written to `out`."""
    for n in range(count):
        if n:
            seen.append(out.getvalue())
        yield analyse_source(SCRIPT, f"m{n:03}.py")


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_text_and_json_write_each_file_before_the_next_arrives(output_format):
    import io

    out, seen = io.StringIO(), []
    readiness_report.WRITERS[output_format](_reports(3, seen, out), out)
    assert len(seen) == 2
    assert "m000.py" in seen[0] and "m001.py" not in seen[0]
    assert "m001.py" in seen[1] and "m002.py" not in seen[1]


def test_summary_and_markdown_keep_only_what_they_print():
    reports = [analyse_source(SCRIPT, f"m{n:03}.py") for n in range(60)]  # 2 fallbacks, 1 blocker each
    summary = readiness_report.summarise(reports)
    assert summary.tallies["pandas"].fallback == 120 and summary.blockers == 60
    assert len(summary.rows) == MARKDOWN_ROWS and len(summary.files) == summary.file_count == 60
    assert summary.row_count == 120 and len(summary.blocker_rows) == 60
    lines = summary.lines()
    assert lines[0] == "180 of 300 pandas operations run on the GPU under cudf.pandas; 120 fall back."
    assert lines[1] == "What keeps operations off the GPU, by cause:"
    assert sum(1 for line in lines if line.startswith("  60 x")) == 2 and len(summary.causes) == 2 <= NAMED
    assert "first at m000.py:" in lines[2]
    markdown = readiness_report.render("markdown", reports)
    assert markdown.count("| fallback |") == MARKDOWN_ROWS and "20 more rows:" in markdown
    assert summary.share == overall_share([op for r in reports for op in r.operations])
    assert readiness_report.summarise([FileReport("x.py", error="boom")]).errors == [("x.py", "boom")]


def test_reports_are_kept_in_the_cache_and_served_while_file_code_and_tables_stay(tmp_path, monkeypatch):
    from gpulint import __version__, readiness_tables
    from gpulint.cache import Cache
    from gpulint.readiness import _Task, readiness_paths

    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "t.py"
    source.write_text("import pandas as pd\ndf = pd.read_csv('x.csv')\nprint(df.groupby('a').sum())\n")
    first = list(readiness_paths([source], cache=Cache(__version__)))
    assert [op.what for op in first[0].operations] == ["pandas.read_csv", "DataFrame.groupby", "DataFrameGroupBy.sum"]

    def analysed(*args, **kwargs):
        raise AssertionError("analysed again")

    monkeypatch.setattr(_Task, "_analyse", staticmethod(analysed))
    served = list(readiness_paths([source], cache=Cache(__version__)))
    assert served[0].operations == first[0].operations
    monkeypatch.setattr(readiness_tables, "fingerprint", lambda: "other tables")
    with pytest.raises(AssertionError, match="analysed again"):
        list(readiness_paths([source], cache=Cache(__version__)))
