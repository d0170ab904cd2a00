"""The pylint plugin, run through the real `pylint --load-plugins=gpulint.pylint_plugin`: it
reports what `gpulint check` reports (same codes, lines and columns), every rule of the
registry is a pylint message whose symbol is the rule name (so `# pylint: disable=` takes
it) and whose id lies in pylint's range for external checkers, and `--help-msg` shows the
rule's documentation."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from gpulint import rule_by_key
from gpulint.hosted import HOST_REPORTED, hosted_rules
from gpulint.docs import doc_sections

from .conftest import ITERROWS, write
from .host_tools import FRONT_END_ON, PREVIEW_ON, Finding, copy_fixtures, gpulint_findings, gpulint_json, run, tool


@pytest.fixture(autouse=True)
def _front_end_rules(tmp_path: Path) -> None:
    """The tests' own sources are linted with the front-end rules on (a test that needs other
    settings writes its own `pyproject.toml` over this one)."""
    write(tmp_path / "pyproject.toml", FRONT_END_ON)


PYLINT = tool("pylint")
PLUGIN = "--load-plugins=gpulint.pylint_plugin"
TEMPLATE = "{path}|{line}|{column}|{msg_id}|{symbol}|{msg}"
LINE = re.compile(r"^(?P<path>[^|]+)\|(?P<line>\d+)\|(?P<col>\d+)\|(?P<id>\w+)\|(?P<symbol>[\w-]+)\|(?P<msg>.*)$")


def pylint(cwd: Path, *args: str) -> tuple[int, list[dict[str, str]]]:
    """Run pylint with only gpulint's messages enabled; its exit code and its messages."""
    process = run(
        [
            PYLINT,
            PLUGIN,
            "--disable=all",
            "--enable=gpulint",
            "--score=n",
            "--persistent=n",
            f"--msg-template={TEMPLATE}",
            *args,
        ],
        cwd=cwd,
        env={"PYLINTHOME": str(cwd / ".pylint.d")},
    )
    assert process.stderr == "", process.stderr
    found = []
    for line in process.stdout.splitlines():
        if line.startswith("*" * 13) or not line.strip():
            continue  # "************* Module name" headers
        match = LINE.match(line)
        assert match, f"unexpected pylint output: {line!r}"
        found.append(match.groupdict())
    return process.returncode, found


def expected_id(code: str) -> str:
    """The documented mapping: GPU + three digits -> W9 + the same three digits."""
    return "W9" + code[3:]


@pytest.fixture
def fixtures(tmp_path: Path) -> list[str]:
    return [path.name for path in copy_fixtures(tmp_path)]


@pytest.mark.slow
def test_pylint_reports_what_gpulint_check_reports_on_every_fixture(tmp_path, fixtures):
    write(tmp_path / "pyproject.toml", PREVIEW_ON)
    expected = [f for f in gpulint_findings(fixtures, tmp_path) if f.code not in HOST_REPORTED]
    assert {f.path for f in expected} == set(fixtures), "every fixture has findings to compare"
    names = {rule.code: rule.name for rule in hosted_rules()}
    code, found = pylint(tmp_path, *fixtures)
    # pylint prints 0-based columns; gpulint 1-based.
    reported = sorted(Finding(f["path"], int(f["line"]), int(f["col"]) + 1, "GPU" + f["id"][2:]) for f in found)
    assert reported == expected
    for finding in found:
        code_ = "GPU" + finding["id"][2:]
        assert finding["id"] == expected_id(code_) and finding["symbol"] == names[code_]
    assert code != 0


def test_messages_are_gpulint_messages(tmp_path):
    write(tmp_path / "sales.py", ITERROWS)
    _, [finding] = pylint(tmp_path, "sales.py")
    [item] = gpulint_json(["sales.py"], tmp_path)
    assert finding["msg"] == item["message"]
    assert (finding["symbol"], finding["id"]) == (item["name"], expected_id(item["code"]))


@pytest.mark.slow
def test_disable_comment_by_rule_name(tmp_path):
    source = (
        ITERROWS + "\n\ndef g(frame: pd.DataFrame) -> None:\n    for _, row in frame.iterrows():\n        print(row)\n"
    )
    write(tmp_path / "both.py", source)
    _, found = pylint(tmp_path, "both.py")
    assert [f["line"] for f in found] == ["5", "11"]
    disabled = "in sales.iterrows():  # pylint: disable=iterrows-loop"
    write(tmp_path / "both.py", source.replace("in sales.iterrows():", disabled))
    _, found = pylint(tmp_path, "both.py")
    assert [(f["line"], f["symbol"]) for f in found] == [("11", "iterrows-loop")]


@pytest.mark.slow
def test_gpulint_configuration_applies(tmp_path, fixtures):
    write(tmp_path / "pyproject.toml", '[tool.gpulint]\nignore = ["GPU102"]\nexclude = ["GPU104.py"]\n')
    _, found = pylint(tmp_path, *fixtures)
    assert found
    assert not any(f["symbol"] == "iterrows-loop" or f["path"] == "GPU104.py" for f in found)
    # `exclude` applies as `--force-exclude` applies it to files named on the command line.
    expected = gpulint_findings(fixtures, tmp_path, "--force-exclude")
    assert sorted((f["path"], int(f["line"]), "GPU" + f["id"][2:]) for f in found) == [
        (f.path, f.line, f.code) for f in expected if f.code not in HOST_REPORTED
    ]


@pytest.mark.slow
def test_broken_configuration_is_one_message_not_a_crash(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.gpulint]\nselct = ['GPU1']\n")
    write(tmp_path / "sales.py", ITERROWS)
    code, found = pylint(tmp_path, "sales.py")
    [finding] = found
    assert (finding["symbol"], finding["id"], finding["line"]) == ("gpulint-not-checked", "E9000", "1")
    assert "selct" in finding["msg"]
    assert code & 2  # pylint's "error" bit


@pytest.mark.slow
def test_every_rule_is_a_message_with_its_docs(tmp_path):
    rules = hosted_rules()
    process = run([PYLINT, PLUGIN, "--help-msg=" + ",".join(rule.name for rule in rules)], cwd=tmp_path)
    assert process.returncode == 0, process.stdout + process.stderr
    headers = [line for line in process.stdout.splitlines() if line.startswith(":")]
    assert headers == [f":{rule.name} ({expected_id(rule.code)}):" for rule in rules]
    # pylint re-wraps the description (breaking lines at hyphens too): compare without spaces.
    text = "".join(process.stdout.split())
    for rule in rules:
        # as the docs show it: speed figures quoted from the committed results
        what_it_does = "".join(doc_sections(rule)["What it does"].split())
        assert what_it_does in text, rule.code
        assert rule.url() in text
    assert "No such message id" not in process.stdout


def test_message_ids_lie_in_the_external_range_and_are_unique():
    from gpulint.pylint_plugin import message_id

    ids = [message_id(rule) for rule in hosted_rules()]
    assert len(set(ids)) == len(ids)
    for rule, msgid in zip(hosted_rules(), ids, strict=False):
        assert re.fullmatch(r"[WE]\d{4}", msgid)
        assert 51 <= int(msgid[1:3]) <= 99, msgid
        assert msgid == expected_id(rule.code)


@pytest.mark.slow
def test_syntax_error_is_pylints_own(tmp_path):
    write(tmp_path / "broken.py", "import pandas as pd\nfor row in pd.read_csv('a').iterrows()\n    pass\n")
    process = run(
        [
            PYLINT,
            PLUGIN,
            "--disable=all",
            "--enable=syntax-error,gpulint",
            "--score=n",
            "--persistent=n",
            f"--msg-template={TEMPLATE}",
            "broken.py",
        ],
        cwd=tmp_path,
        env={"PYLINTHOME": str(tmp_path)},
    )
    messages = [LINE.match(line) for line in process.stdout.splitlines() if LINE.match(line)]
    assert [(m["id"], m["symbol"]) for m in messages] == [("E0001", "syntax-error")]


@pytest.mark.slow
def test_a_failing_rule_is_reported_not_hidden(tmp_path, monkeypatch):
    from pylint.lint import Run
    from pylint.reporters.text import TextReporter

    def broken(self, node, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(rule_by_key("GPU102"), "check", broken)
    monkeypatch.setenv("PYLINTHOME", str(tmp_path / ".pylint.d"))
    path = write(tmp_path / "sales.py", ITERROWS)
    output = io.StringIO()
    Run(
        [
            PLUGIN,
            "--disable=all",
            "--enable=gpulint",
            "--score=n",
            "--persistent=n",
            f"--msg-template={TEMPLATE}",
            str(path),
        ],
        reporter=TextReporter(output),
        exit=False,
    )
    [match] = [LINE.match(line) for line in output.getvalue().splitlines() if LINE.match(line)]
    assert (match["id"], match["symbol"], match["line"]) == ("E9000", "gpulint-not-checked", "1")
    assert "internal error in rule GPU102" in match["msg"] and "boom" in match["msg"]


@pytest.mark.slow
def test_disable_by_checker_name_silences_every_rule(tmp_path):
    write(
        tmp_path / "sales.py",
        ITERROWS + "\nframe = pd.read_csv('a.csv')\nrates = frame.apply(lambda row: row['a'] / row['b'], axis=1)\n",
    )
    args = [PYLINT, PLUGIN, "--score=n", "--persistent=n", f"--msg-template={TEMPLATE}", "sales.py"]
    env = {"PYLINTHOME": str(tmp_path / ".pylint.d")}
    shown = [line for line in run(args, cwd=tmp_path, env=env).stdout.splitlines() if "|W9" in line]
    hidden = [
        line for line in run([*args, "--disable=gpulint"], cwd=tmp_path, env=env).stdout.splitlines() if "|W9" in line
    ]
    assert len(shown) == 2 and hidden == []
