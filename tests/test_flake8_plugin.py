"""The flake8 plugin, run through the real `flake8`: it reports what `gpulint check` reports
(same codes, lines and columns), under the file's `[tool.gpulint]` configuration, with
flake8's own selection and `# noqa` on top, the same with `--jobs 2`, and a syntax error or
a broken configuration or a failing rule is reported, never a crash."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gpulint import rule_by_key
from gpulint.flake8_plugin import GpulintChecker
from gpulint.hosted import HOST_REPORTED

from .conftest import ITERROWS, ITERROWS_POSITION, write
from .host_tools import FRONT_END_ON, PREVIEW_ON, Finding, copy_fixtures, gpulint_findings, gpulint_json, run, tool


@pytest.fixture(autouse=True)
def _front_end_rules(tmp_path: Path) -> None:
    """The tests' own sources are linted with the front-end rules on (a test that needs other
    settings writes its own `pyproject.toml` over this one)."""
    write(tmp_path / "pyproject.toml", FRONT_END_ON)


FLAKE8 = tool("flake8")
FORMAT = "%(path)s|%(row)d|%(col)d|%(code)s|%(text)s"
LINE = re.compile(r"^(?P<path>[^|]+)\|(?P<line>\d+)\|(?P<col>\d+)\|(?P<code>\w+)\|(?P<text>.*)$")


def flake8(cwd: Path, *args: str) -> tuple[int, list[dict[str, str]]]:
    """Run flake8; its exit code and its findings (path, line, col, code, text)."""
    process = run([FLAKE8, "--isolated", f"--format={FORMAT}", *args], cwd=cwd)
    assert process.returncode in (0, 1), process.stdout + process.stderr
    assert process.stderr == "", process.stderr
    found = []
    for line in process.stdout.splitlines():
        match = LINE.match(line)
        assert match, f"unexpected flake8 output: {line!r}"
        found.append(match.groupdict())
    return process.returncode, found


def as_findings(found: list[dict[str, str]]) -> list[Finding]:
    """flake8's GPU findings in gpulint's terms (flake8 columns are 1-based too), sorted."""
    return sorted(
        Finding(f["path"], int(f["line"]), int(f["col"]), f["code"]) for f in found if f["code"].startswith("GPU")
    )


def hosted(findings: list[Finding]) -> list[Finding]:
    """What a plugin reports of gpulint's findings: syntax errors are the host's own."""
    return [f for f in findings if f.code not in HOST_REPORTED]


@pytest.fixture
def fixtures(tmp_path: Path) -> list[str]:
    return [path.name for path in copy_fixtures(tmp_path)]


@pytest.mark.slow
def test_flake8_reports_what_gpulint_check_reports_on_every_fixture(tmp_path, fixtures):
    write(tmp_path / "pyproject.toml", PREVIEW_ON)
    expected = hosted(gpulint_findings(fixtures, tmp_path))
    code, found = flake8(tmp_path, "--select", "GPU", *fixtures)
    assert {f.path for f in expected} == set(fixtures), "every fixture has findings to compare"
    assert as_findings(found) == expected
    assert code == 1


def test_flake8_messages_are_gpulint_messages(tmp_path):
    write(tmp_path / "sales.py", ITERROWS)
    _, found = flake8(tmp_path, "--select", "GPU", "sales.py")
    [finding] = found
    line, col = ITERROWS_POSITION
    assert (int(finding["line"]), int(finding["col"])) == (line, col)
    [item] = gpulint_json(["sales.py"], tmp_path)
    assert finding["text"] == item["message"]


@pytest.mark.slow
def test_jobs_2_gives_the_serial_result(tmp_path, fixtures):
    _, serial = flake8(tmp_path, "--select", "GPU", "--jobs", "1", *fixtures)
    _, parallel = flake8(tmp_path, "--select", "GPU", "--jobs", "2", *fixtures)
    assert serial and sorted(parallel, key=str) == sorted(serial, key=str)


@pytest.mark.slow
def test_flake8_noqa_applies_to_gpulint_findings(tmp_path):
    # flake8 reads the code `GPU1` in a noqa comment as a prefix; gpulint's own noqa takes
    # exact codes and keeps the finding: it disappears only through flake8's noqa.
    write(tmp_path / "sales.py", ITERROWS.replace(".iterrows():", ".iterrows():  # noqa: GPU1"))
    assert {f.code for f in gpulint_findings(["sales.py"], tmp_path)} == {"GPU102"}
    _, found = flake8(tmp_path, "--select", "GPU", "sales.py")
    assert found == []
    _, found = flake8(tmp_path, "--select", "GPU", "--disable-noqa", "sales.py")
    assert [f["code"] for f in found] == ["GPU102"]


@pytest.mark.slow
def test_gpulint_configuration_selects_and_flake8_filters_on_top(tmp_path, fixtures):
    everything = hosted(gpulint_findings(fixtures, tmp_path))
    write(
        tmp_path / "pyproject.toml",
        '[tool.gpulint]\nignore = ["GPU104"]\nper-file-ignores = { "GPU101.py" = ["GPU101"] }\n',
    )
    configured = hosted(gpulint_findings(fixtures, tmp_path))
    assert {"GPU101", "GPU104"} <= {f.code for f in everything}
    assert not {f.code for f in configured} & {"GPU104"}
    assert not {f.code for f in configured if f.path == "GPU101.py"} & {"GPU101"}
    assert set(configured) < set(everything)
    _, found = flake8(tmp_path, "--select", "GPU", *fixtures)
    assert as_findings(found) == configured
    # flake8's own ignore removes more, never adds back.
    _, found = flake8(tmp_path, "--select", "GPU", "--extend-ignore", "GPU102", *fixtures)
    assert as_findings(found) == [f for f in configured if f.code != "GPU102"]


@pytest.mark.slow
def test_excluded_files_get_no_gpulint_findings(tmp_path, fixtures):
    write(tmp_path / "pyproject.toml", PREVIEW_ON + 'exclude = ["GPU102.py"]\n')
    _, found = flake8(tmp_path, "--select", "GPU", *fixtures)
    paths = {f["path"] for f in found}
    assert "GPU102.py" not in paths
    assert paths == {name for name in fixtures if name != "GPU102.py"}


@pytest.mark.slow
def test_syntax_error_is_flake8s_e999_and_never_a_crash(tmp_path):
    write(tmp_path / "broken.py", "import pandas as pd\nfor row in pd.read_csv('a').iterrows()\n    pass\n")
    write(tmp_path / "sales.py", ITERROWS)
    assert {f.code for f in gpulint_findings(["broken.py"], tmp_path)} == HOST_REPORTED
    code, found = flake8(tmp_path, "--select", "GPU,E9", "broken.py", "sales.py")
    assert code == 1
    assert [(f["path"], f["code"]) for f in found] == [("broken.py", "E999"), ("sales.py", "GPU102")]


def test_broken_configuration_is_one_finding_per_file_not_a_crash(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.gpulint]\nselct = ['GPU1']\n")
    write(tmp_path / "sales.py", ITERROWS + "x=1\n")
    code, found = flake8(tmp_path, "--select", "GPU,E225", "sales.py")
    assert code == 1
    by_code = {f["code"]: f for f in found}
    assert set(by_code) == {"GPU000", "E225"}  # the other plugins still report
    assert (by_code["GPU000"]["line"], by_code["GPU000"]["col"]) == ("1", "1")
    assert "selct" in by_code["GPU000"]["text"] and "pyproject.toml" in by_code["GPU000"]["text"]


@pytest.mark.slow
def test_standard_input_uses_the_display_names_configuration(tmp_path):
    write(tmp_path / "pyproject.toml", FRONT_END_ON + 'per-file-ignores = { "skipped.py" = ["GPU102"] }\n')
    for name, expected in (("sales.py", ["GPU102"]), ("skipped.py", [])):
        process = run(
            [FLAKE8, "--isolated", "--select", "GPU", f"--format={FORMAT}", "--stdin-display-name", name, "-"],
            cwd=tmp_path,
            input=ITERROWS,
        )
        assert [LINE.match(line)["code"] for line in process.stdout.splitlines()] == expected


def test_a_failing_rule_is_reported_not_hidden(tmp_path, monkeypatch):
    def broken(self, node, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(rule_by_key("GPU102"), "check", broken)
    path = write(tmp_path / "sales.py", ITERROWS)
    checker = GpulintChecker(ast.parse(ITERROWS), str(path), ITERROWS.splitlines(keepends=True))
    [(line, col, text, _)] = list(checker.run())
    assert (line, col, text.split()[0]) == (1, 0, "GPU000")
    assert "internal error in rule GPU102" in text and "boom" in text
