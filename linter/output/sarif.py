"""SARIF 2.1.0 for GitHub code scanning: rule metadata, repository-relative paths,
1-based columns counted in Unicode code points.

Each result's message carries the rule's suggestion (`help: ...`, also as `markdown`), and
a fix that `--fix` applies to a file (safe ones; unsafe ones too where unsafe fixes are on)
is in `fixes` as replacements of regions of the file: applied together, those of a file
give what `--fix` writes when its fixes do not overlap (it applies overlapping ones over
several passes, re-linting in between, which replacements of the original cannot say).
A notebook's fixes change its cells, not regions of its JSON text, so it has none."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from collections.abc import Sequence
from urllib.parse import quote

from .. import __version__
from ..docs import plain_summary
from ..files import repository_root
from ..registry import DOCS_HOME, all_rules
from ..diagnostic import Diagnostic, Edit
from ..runner import FileResult
from .text import location

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _repository_root() -> Path:
    """The repository holding the current folder (where code scanning runs), else the folder."""
    cwd = Path.cwd()
    return repository_root(cwd) or cwd


def _location(display: str, root: Path) -> dict[str, str]:
    """A percent-encoded URI relative to the repository root (`uriBaseId` %SRCROOT%), or an
    absolute `file:` URI for a file outside it; standard input keeps its display name."""
    if display == "-":
        return {"uri": "stdin"}
    absolute = Path(os.path.abspath(display))  # normalised, but symlinks stay as named
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}


def _rules() -> list[dict[str, Any]]:
    descriptors = []
    for rule in all_rules():
        descriptors.append(
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.message},
                "fullDescription": {"text": plain_summary(rule)},
                "helpUri": rule.url(),
                "help": {"text": f"{rule.message} See {rule.url()}"},
                "defaultConfiguration": {"level": rule.level},
                "properties": {"fix": rule.fix_label(), "tags": ["performance", rule.family() or "file"]},
            }
        )
    return descriptors


def _region(result: FileResult, d: Diagnostic) -> dict[str, int]:
    """In a notebook, the lines of the file that hold the cell's lines; columns in the JSON
    text would mislead, so there are none (the cell position is in the properties)."""
    if d.cell is not None and result.notebook is not None:
        return {
            "startLine": result.notebook.file_line(d.cell, d.start.line),
            "endLine": result.notebook.file_line(d.cell, d.end.line),
        }
    return {
        "startLine": d.start.line,
        "startColumn": d.start.col + 1,
        "endLine": d.end.line,
        "endColumn": d.end.col + 1,
    }


def _message(result: FileResult, d: Diagnostic) -> dict[str, str]:
    where = f" ({location(d)})" if d.cell is not None else ""
    text, markdown = f"{d.message}{where}", f"{d.message}{where}"
    if d.suggestion is not None:
        text += f"\nhelp: {d.suggestion}"
        markdown += f"\n\n**help:** {d.suggestion}"
    return {"text": text, "markdown": markdown}


def _replacement(edit: Edit) -> dict[str, Any]:
    return {
        "deletedRegion": {
            "startLine": edit.start.line,
            "startColumn": edit.start.col + 1,
            "endLine": edit.end.line,
            "endColumn": edit.end.col + 1,
        },
        "insertedContent": {"text": edit.content},
    }


def _fixes(result: FileResult, d: Diagnostic, root: Path) -> list[dict[str, Any]]:
    """The fix `--fix` would apply for `d`, as SARIF replacements; none for a notebook."""
    if d.fix is None or not d.fixable(result.unsafe_fixes) or d.cell is not None or result.notebook is not None:
        return []
    return [
        {
            "description": {"text": d.fix.message},
            "artifactChanges": [
                {
                    "artifactLocation": _location(result.display, root),
                    "replacements": [_replacement(edit) for edit in d.fix.edits],
                }
            ],
        }
    ]


def render(results: Sequence[FileResult]) -> str:
    rules = _rules()
    root = _repository_root()
    index = {descriptor["id"]: position for position, descriptor in enumerate(rules)}
    levels = {descriptor["id"]: descriptor["defaultConfiguration"]["level"] for descriptor in rules}
    sarif_results = []
    for result in results:
        for d in result.diagnostics:
            entry: dict[str, Any] = {
                "ruleId": d.code,
                "level": levels.get(d.code, "warning"),
                "message": _message(result, d),
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": _location(result.display, root),
                            "region": _region(result, d),
                        }
                    }
                ],
            }
            fixes = _fixes(result, d, root)
            if fixes:
                entry["fixes"] = fixes
            if d.cell is not None:
                entry["properties"] = {"cell": d.cell, "cellLine": d.start.line, "cellColumn": d.start.col + 1}
            if d.code in index:
                entry["ruleIndex"] = index[d.code]
            sarif_results.append(entry)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gpulint",
                        "version": __version__,
                        "informationUri": DOCS_HOME,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
                "invocations": [
                    {
                        "executionSuccessful": not any(r.error is not None for r in results),
                        "toolExecutionNotifications": [
                            {
                                "level": "error",
                                "message": {"text": f"{r.display}: {r.error}"},
                                "locations": [{"physicalLocation": {"artifactLocation": _location(r.display, root)}}],
                            }
                            for r in results
                            if r.error is not None
                        ],
                    }
                ],
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
