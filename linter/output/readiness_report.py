"""How `gpulint readiness` writes its report: text (per file, then the project summary),
JSON (`SCHEMA`, documented in docs/readiness.md) and Markdown (for a pull-request comment)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ..config import Overrides
from ..diagnostic import Diagnostic
from ..readiness import (
    CUDF,
    CUML,
    FALLBACK,
    GPU,
    TALLIES,
    UNDECIDED,
    FileReport,
    Operation,
    Tally,
    overall_share,
    readiness_paths,
    tallies,
    tally_key,
)
from ..readiness_tables import provenance

FORMATS = ("text", "json", "markdown")
SCHEMA_ID = "https://gpulint.dev/schemas/readiness-1.json"
#: How many fallbacks a summary line names before it says "and N more".
NAMED = 5
#: How many rows each Markdown table lists: a pull-request comment holds 65,536 characters.
MARKDOWN_ROWS = 100

_REASON = {"type": "object", "required": ["text", "source"], "additionalProperties": False,
           "properties": {"text": {"type": "string"}, "source": {"type": ["string", "null"]}}}
_TALLY = {"type": "object", "required": ["total", "gpu", "fallback", "undecided", "share"],
          "additionalProperties": False,
          "properties": {"total": {"type": "integer"}, "gpu": {"type": "integer"}, "fallback": {"type": "integer"},
                         "undecided": {"type": "integer"}, "share": {"type": ["number", "null"]}}}
#: The JSON report's schema (JSON Schema draft 7).
SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": SCHEMA_ID,
    "type": "object",
    "required": ["schema", "tables", "files", "summary"],
    "additionalProperties": False,
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "tables": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["version", "commit"],
            "properties": {"version": {"type": ["string", "null"]}, "commit": {"type": ["string", "null"]}}}},
        "files": {"type": "array", "items": {
            "type": "object", "required": ["path", "error", "operations", "blockers"], "additionalProperties": False,
            "properties": {
                "path": {"type": "string"},
                "error": {"type": ["string", "null"]},
                "operations": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["library", "what", "code", "verdict", "line", "col", "cell", "estimator",
                                 "in_loop", "reasons", "caveats"],
                    "properties": {
                        "library": {"enum": [CUDF, CUML]},
                        "what": {"type": "string"}, "code": {"type": "string"},
                        "verdict": {"enum": [GPU, FALLBACK, UNDECIDED]},
                        "line": {"type": "integer"}, "col": {"type": "integer"},
                        "cell": {"type": ["integer", "null"]}, "estimator": {"type": "boolean"},
                        "in_loop": {"type": "boolean"},
                        "reasons": {"type": "array", "items": _REASON},
                        "caveats": {"type": "array", "items": _REASON}}}},
                "blockers": {"type": "array", "items": {
                    "type": "object", "required": ["code", "name", "message", "line", "col", "cell"],
                    "additionalProperties": False,
                    "properties": {"code": {"type": "string"}, "name": {"type": "string"},
                                   "message": {"type": "string"}, "line": {"type": "integer"},
                                   "col": {"type": "integer"}, "cell": {"type": ["integer", "null"]}}}}}}},
        "summary": {"type": "object", "required": [*TALLIES, "overall", "blockers"], "additionalProperties": False,
                    "properties": {**{key: _TALLY for key in TALLIES}, "overall": {"type": ["number", "null"]},
                                   "blockers": {"type": "integer"}}},
    },
}

_NOUNS = {"pandas": ("pandas operations", "run on the GPU under cudf.pandas"),
          "estimators": ("estimators", "accelerated by cuml.accel"),
          "estimator_methods": ("estimator method calls", "run on the GPU under cuml.accel")}


def where(display: str, line: int, col: int, cell: int | None) -> str:
    """`file.py:12:4`, or `notebook.ipynb:cell 3:12:4`."""
    return f"{display}:cell {cell}:{line}:{col}" if cell is not None else f"{display}:{line}:{col}"


def _reasons(operation: Operation) -> str:
    found = "; ".join(f"{r.text} ({r.source})" if r.source else r.text for r in operation.reasons)
    return f"in a loop: {found}" if operation.in_loop and operation.verdict != GPU else found


def _operations(reports: Sequence[FileReport]) -> list[Operation]:
    return [op for report in reports for op in report.operations]


def summary_lines(reports: Sequence[FileReport], markdown: bool = False) -> list[str]:
    """One line per tally with something counted, naming the first fallbacks; then the
    blockers and the overall share."""
    lines = []
    counted = tallies(_operations(reports))
    located = [(report.display, op) for report in reports for op in report.operations]
    for key in TALLIES:
        tally = counted[key]
        if not tally.total:
            continue
        noun, verb = _NOUNS[key]
        line = f"{tally.gpu} of {tally.total} {noun} {verb}"
        fallbacks = [(d, op) for d, op in located if op.verdict == FALLBACK and tally_key(op) == key]
        if fallbacks:
            named = ", ".join(f"`{op.code}` at {where(d, op.line, op.col, op.cell)} ({_reasons(op)})"
                              for d, op in fallbacks[:NAMED])
            more = f", and {len(fallbacks) - NAMED} more" if len(fallbacks) > NAMED else ""
            line += f"; {tally.fallback} {'falls' if tally.fallback == 1 else 'fall'} back: {named}{more}"
        if tally.undecided:
            line += f"; {tally.undecided} undecided"
        lines.append(line + ".")
    blockers = sum(len(report.blockers) for report in reports)
    share = overall_share(_operations(reports))
    lines.append(f"{blockers} lint finding{'s' if blockers != 1 else ''} stand in the GPU's way; "
                 + ("nothing counted." if share is None else f"{share:.1f}% of the counted operations run on the GPU."))
    if markdown:
        return [f"- {line}" for line in lines]
    return lines


def _blocker(diagnostic: Diagnostic) -> dict[str, Any]:
    return {"code": diagnostic.code, "name": diagnostic.name, "message": diagnostic.message,
            "line": diagnostic.start.line, "col": diagnostic.start.col, "cell": diagnostic.cell}


def render_text(reports: Sequence[FileReport]) -> str:
    out: list[str] = []
    for report in reports:
        if report.error is not None:
            out.append(f"{report.display}: error: {report.error}")
            continue
        if not report.operations and not report.blockers:
            continue
        out.append(report.display)
        for op in report.operations:
            spot = where("", op.line, op.col, op.cell)[1:]
            detail = f"  {_reasons(op)}" if op.reasons else ""
            out.append(f"  {spot:<14} {op.verdict:<9} {op.what:<40} `{op.code}`{detail}")
        for diagnostic in report.blockers:
            spot = where("", diagnostic.start.line, diagnostic.start.col, diagnostic.cell)[1:]
            out.append(f"  {spot:<14} blocker   {diagnostic.code} {diagnostic.name}: {diagnostic.message}")
        out.append("")
    out.extend(summary_lines(reports))
    return "\n".join(out) + "\n"


def render_json(reports: Sequence[FileReport]) -> str:
    operations = _operations(reports)
    counted = tallies(operations)
    tables = {name: {"version": item.version, "commit": item.commit} for name, item in provenance().items()}
    data = {
        "schema": SCHEMA_ID,
        "tables": tables,
        "files": [{"path": r.display, "error": r.error, "operations": [op.to_json() for op in r.operations],
                   "blockers": [_blocker(d) for d in r.blockers]} for r in reports],
        "summary": {**{key: _tally_json(counted[key]) for key in TALLIES}, "overall": overall_share(operations),
                    "blockers": sum(len(r.blockers) for r in reports)},
    }
    return json.dumps(data, indent=2) + "\n"


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {"total": tally.total, "gpu": tally.gpu, "fallback": tally.fallback, "undecided": tally.undecided,
            "share": tally.share}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(reports: Sequence[FileReport]) -> str:
    found = provenance()
    out = ["## GPU readiness", "", *summary_lines(reports, markdown=True), ""]
    rows = [(r.display, op) for r in reports for op in r.operations if op.verdict != GPU]
    if rows:
        out += ["<details><summary>Operations that fall back or are undecided</summary>", "",
                "| Where | Operation | Verdict | Why |", "|---|---|---|---|"]
        out += [f"| `{_cell(where(d, op.line, op.col, op.cell))}` | `{_cell(op.code)}` | {op.verdict} "
                f"| {_cell(_reasons(op))} |" for d, op in rows[:MARKDOWN_ROWS]]
        out += [*_more(len(rows)), "", "</details>", ""]
    blockers = [(r.display, d) for r in reports for d in r.blockers]
    if blockers:
        out += ["<details><summary>Lint findings in the GPU's way</summary>", "",
                "| Where | Rule | Message |", "|---|---|---|"]
        out += [f"| `{_cell(where(d, b.start.line, b.start.col, b.cell))}` | {b.code} {b.name} | {_cell(b.message)} |"
                for d, b in blockers[:MARKDOWN_ROWS]]
        out += [*_more(len(blockers)), "", "</details>", ""]
    errors = [r for r in reports if r.error is not None]
    if errors:
        out += ["Not checked:", "", *(f"- `{r.display}`: {r.error}" for r in errors), ""]
    out.append(f"Tables: cuDF {found['cudf'].version} (`{(found['cudf'].commit or '')[:12]}`), "
               f"cuML {found['cuml'].version} (`{(found['cuml'].commit or '')[:12]}`).")
    return "\n".join(out) + "\n"


def _more(rows: int) -> list[str]:
    if rows <= MARKDOWN_ROWS:
        return []
    return ["", f"{rows - MARKDOWN_ROWS} more rows: `--output-format json` or `text` lists every one."]


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown}


def write_report(paths: Sequence[str], overrides: Overrides, config_file: Path | None, force_exclude: bool,
                 jobs: int, output_format: str, libraries: Sequence[str], fail_under: float | None,
                 out: IO[str]) -> int:
    """Run the readiness analysis and write the report to `out`; the exit code (1 when the
    GPU share is under `fail_under`, 2 when a file could not be read: it is listed with its error)."""
    chosen = set(libraries or (CUDF, CUML))
    reports = []
    for report in readiness_paths(paths, overrides, config_file=config_file, force_exclude=force_exclude, jobs=jobs):
        report.operations = [op for op in report.operations if op.library in chosen]
        reports.append(report)
    out.write(RENDERERS[output_format](reports))
    out.flush()
    failed = [report for report in reports if report.error is not None]
    for report in failed:
        sys.stderr.write(f"{report.display}: error: {report.error}\n")
    if failed:
        return 2
    share = overall_share(_operations(reports))
    if fail_under is not None and share is not None and share < fail_under:
        sys.stderr.write(f"GPU share {share:.1f}% is under --fail-under {fail_under:g}%\n")
        return 1
    return 0
