"""Suggestions outside the terminal: SARIF results carry the rule's suggestion in their
message (text and markdown) and the fixes `--fix` applies as replacements (validated
against the SARIF 2.1.0 schema); GitHub annotations carry the suggestion too."""

from __future__ import annotations

import json
import shutil

from .conftest import ITERROWS, ITERROWS_DISPLAY_ONLY, ITERROWS_FIXED, write
from .test_output_full import PREVIEW_ON, SAFE_TWO
from .test_outputs import _validated_sarif


def _apply_replacements(text: str, changes: list[dict]) -> str:
    """Apply SARIF replacements as a SARIF consumer does: 1-based lines and columns
    (Unicode code points, the log's `columnKind`), the end exclusive."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return (starts[line - 1] if line <= len(lines) else len(text)) + column - 1

    spans = []
    for change in changes:
        for replacement in change["replacements"]:
            region = replacement["deletedRegion"]
            spans.append(
                (
                    offset(region["startLine"], region["startColumn"]),
                    offset(region["endLine"], region["endColumn"]),
                    replacement["insertedContent"]["text"],
                )
            )
    for begin, end, content in sorted(spans, key=lambda span: span[:2], reverse=True):
        text = text[:begin] + content + text[end:]
    return text


def _sarif_results(cli, *args: str) -> list[dict]:
    log = _validated_sarif(cli("check", "--output-format", "sarif", *args).stdout)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    return log["runs"][0]["results"]


def _fixed_by_the_cli(cli, project, tmp_path, name: str, *args: str) -> str:
    copy = tmp_path / "copy"
    copy.mkdir(exist_ok=True)
    shutil.copy(project / name, copy / name)
    cli("check", "--fix", *args, str(copy / name))
    return (copy / name).read_text(encoding="utf-8")


def test_sarif_fixes_applied_give_what_fix_writes(project, cli, tmp_path):
    write(project / "model.py", SAFE_TWO)
    write(project / "pyproject.toml", PREVIEW_ON)
    write(tmp_path / "copy" / "pyproject.toml", PREVIEW_ON)
    results = _sarif_results(cli, "model.py")
    assert sorted(r["ruleId"] for r in results) == ["GPU304", "GPU403"]
    assert all(len(r["fixes"]) == 1 for r in results)
    changes = [change for r in results for change in r["fixes"][0]["artifactChanges"]]
    assert {change["artifactLocation"]["uri"] for change in changes} == {"model.py"}
    assert all(r["fixes"][0]["description"]["text"] for r in results)
    fixed = _fixed_by_the_cli(cli, project, tmp_path, "model.py")
    assert fixed != SAFE_TWO
    assert _apply_replacements(SAFE_TWO, changes) == fixed


def test_sarif_carries_unsafe_fixes_only_where_fix_applies_them(project, cli, tmp_path):
    write(project / "sales.py", ITERROWS)
    [result] = _sarif_results(cli, "sales.py")
    assert "fixes" not in result  # `--fix` alone does not apply it
    [result] = _sarif_results(cli, "--unsafe-fixes", "sales.py")
    changes = result["fixes"][0]["artifactChanges"]
    assert _apply_replacements(ITERROWS, changes) == ITERROWS_FIXED
    assert _fixed_by_the_cli(cli, project, tmp_path, "sales.py", "--unsafe-fixes") == ITERROWS_FIXED


def test_sarif_message_carries_the_suggestion(project, cli):
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    [result] = _sarif_results(cli, "notify.py")
    message = result["message"]
    assert message["text"].startswith("`iterrows()` builds a Series per row")
    assert "\nhelp: " in message["text"] and "itertuples()" in message["text"]
    assert "\n\n**help:** " in message["markdown"]
    assert "fixes" not in result  # a suggestion, not a rewrite


def test_sarif_finding_without_suggestion_has_the_message_alone(project, cli):
    write(project / "broken.py", "import pandas as pd\nvalue = (1,\n")
    [result] = _sarif_results(cli, "broken.py")
    assert "help:" not in result["message"]["text"] and "fixes" not in result


def test_sarif_notebook_results_carry_the_suggestion_and_no_fixes(project, cli):
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": SAFE_TWO}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write(project / "model.ipynb", json.dumps(notebook))
    write(project / "pyproject.toml", PREVIEW_ON)
    results = _sarif_results(cli, "model.ipynb")
    assert results and all("fixes" not in r for r in results)
    assert all("(cell 1:" in r["message"]["text"] and "\nhelp: " in r["message"]["text"] for r in results)


def test_github_annotation_carries_the_suggestion(project, cli):
    write(project / "notify.py", ITERROWS_DISPLAY_ONLY)
    [line] = cli("check", "--output-format", "github", "notify.py").lines
    message = line.split("::", 2)[2]
    assert message.startswith("GPU102 `iterrows()` builds a Series per row")
    assert "%0Ahelp: " in message and "itertuples()" in message
