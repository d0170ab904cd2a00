"""SARIF 2.1.0 for GitHub code scanning: rule metadata, repository-relative paths,
1-based columns counted in Unicode code points."""

from __future__ import annotations

import json
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from .. import __version__
from ..docs import plain_summary
from ..registry import all_rules
from ..runner import FileResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@lru_cache(maxsize=1)
def _repository_root() -> Path:
    try:
        output = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True)
        return Path(output.stdout.strip()).resolve()
    except (OSError, subprocess.CalledProcessError):
        return Path.cwd().resolve()


def _uri(display: str) -> str:
    path = Path(display)
    try:
        return path.resolve().relative_to(_repository_root()).as_posix()
    except (ValueError, OSError):
        return path.as_posix()


def _rules() -> list[dict[str, Any]]:
    descriptors = []
    for rule in all_rules():
        descriptors.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.message},
            "fullDescription": {"text": plain_summary(rule)},
            "helpUri": rule.url(),
            "help": {"text": f"{rule.message} See {rule.url()}"},
            "defaultConfiguration": {"level": "warning"},
            "properties": {"fix": rule.fix.value, "tags": ["performance", rule.family() or "file"]},
        })
    return descriptors


def render(results: Sequence[FileResult]) -> str:
    rules = _rules()
    index = {descriptor["id"]: position for position, descriptor in enumerate(rules)}
    sarif_results = []
    for result in results:
        for d in result.diagnostics:
            entry: dict[str, Any] = {
                "ruleId": d.code,
                "level": "error" if d.code == "GPU001" else "warning",
                "message": {"text": d.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(result.display), "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": d.start.line,
                            "startColumn": d.start.col + 1,
                            "endLine": d.end.line,
                            "endColumn": d.end.col + 1,
                        },
                    }
                }],
            }
            if d.code in index:
                entry["ruleIndex"] = index[d.code]
            sarif_results.append(entry)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "gpulint",
                "version": __version__,
                "informationUri": "https://gpulint.dev/",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"uri": _repository_root().as_uri() + "/"}},
            "results": sarif_results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
