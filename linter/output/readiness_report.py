"""How `gpulint readiness` writes its report: text (per file, then the project summary),
JSON (`SCHEMA`, documented in docs/readiness.md) and Markdown (for a pull-request comment)."""

from __future__ import annotations

import io
import json
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ..config import Overrides
from ..diagnostic import Diagnostic
from ..readiness import (
    CUDF,
    CUML,
    FALLBACK,
    GPU,
    LIBRARIES,
    NX,
    TALLIES,
    UNDECIDED,
    FileReport,
    Operation,
    Tally,
    readiness_paths,
    tally_key,
)
from ..readiness_tables import provenance

FORMATS = ("text", "json", "markdown")
SCHEMA_ID = "https://gpulint.dev/schemas/readiness-1.json"
#: How many fallbacks a summary line names before it says "and N more".
NAMED = 5
#: How many rows each Markdown table lists: a pull-request comment holds 65,536 characters.
MARKDOWN_ROWS = 100

_REASON = {
    "type": "object",
    "required": ["text", "source"],
    "additionalProperties": False,
    "properties": {"text": {"type": "string"}, "source": {"type": ["string", "null"]}},
}
_TALLY = {
    "type": "object",
    "required": ["total", "gpu", "fallback", "undecided", "share"],
    "additionalProperties": False,
    "properties": {
        "total": {"type": "integer"},
        "gpu": {"type": "integer"},
        "fallback": {"type": "integer"},
        "undecided": {"type": "integer"},
        "share": {"type": ["number", "null"]},
    },
}
#: The JSON report's schema (JSON Schema draft 7).
SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": SCHEMA_ID,
    "type": "object",
    "required": ["schema", "tables", "files", "summary"],
    "additionalProperties": False,
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "tables": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["version", "commit"],
                "properties": {"version": {"type": ["string", "null"]}, "commit": {"type": ["string", "null"]}},
            },
        },
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "error", "operations", "blockers"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string"},
                    "error": {"type": ["string", "null"]},
                    "operations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": [
                                "library",
                                "what",
                                "code",
                                "verdict",
                                "line",
                                "col",
                                "cell",
                                "estimator",
                                "in_loop",
                                "reasons",
                                "caveats",
                            ],
                            "properties": {
                                "library": {"enum": [CUDF, CUML, NX]},
                                "what": {"type": "string"},
                                "code": {"type": "string"},
                                "verdict": {"enum": [GPU, FALLBACK, UNDECIDED]},
                                "line": {"type": "integer"},
                                "col": {"type": "integer", "minimum": 1},
                                "cell": {"type": ["integer", "null"]},
                                "estimator": {"type": "boolean"},
                                "in_loop": {"type": "boolean"},
                                "reasons": {"type": "array", "items": _REASON},
                                "caveats": {"type": "array", "items": _REASON},
                            },
                        },
                    },
                    "blockers": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["code", "name", "message", "line", "col", "cell"],
                            "additionalProperties": False,
                            "properties": {
                                "code": {"type": "string"},
                                "name": {"type": "string"},
                                "message": {"type": "string"},
                                "line": {"type": "integer"},
                                "col": {"type": "integer", "minimum": 1},
                                "cell": {"type": ["integer", "null"]},
                            },
                        },
                    },
                },
            },
        },
        "summary": {
            "type": "object",
            "required": [*TALLIES, "overall", "blockers"],
            "additionalProperties": False,
            "properties": {
                **{key: _TALLY for key in TALLIES},
                "overall": {"type": ["number", "null"]},
                "blockers": {"type": "integer"},
            },
        },
    },
}

_NOUNS = {
    "pandas": ("pandas operations", "run on the GPU under cudf.pandas"),
    "estimators": ("estimators", "accelerated by cuml.accel"),
    "estimator_methods": ("estimator method calls", "run on the GPU under cuml.accel"),
    "networkx": ("NetworkX function calls", "run on the GPU under nx-cugraph"),
}


def where(display: str, line: int, col: int, cell: int | None) -> str:
    """`file.py:12:5`, or `notebook.ipynb:cell 3:12:5`, for 0-based column `col`: columns
    count from 1, as in `gpulint check`."""
    return f"{display}:cell {cell}:{line}:{col + 1}" if cell is not None else f"{display}:{line}:{col + 1}"


def _reasons(operation: Operation) -> str:
    found = "; ".join(f"{r.text} ({r.source})" if r.source else r.text for r in operation.reasons)
    return f"in a loop: {found}" if operation.in_loop and operation.verdict != GPU else found


class Summary:
    """What the report says of the whole project, gathered one file at a time so that a run
    holds no file's operations after that file is written: the tallies, the first fallbacks
    each summary line names, the first rows of the Markdown tables (and how many there are),
    the blockers' count and the files with an error."""

    def __init__(self) -> None:
        self.tallies = {key: Tally() for key in TALLIES}
        self.total = Tally()
        self.named: dict[str, list[str]] = {key: [] for key in TALLIES}
        self.blockers = 0
        self.rows: list[str] = []  # Markdown: operations that fall back or are undecided
        self.row_count = 0
        self.blocker_rows: list[str] = []
        self.errors: list[tuple[str, str]] = []

    def add(self, report: FileReport) -> None:
        if report.error is not None:
            self.errors.append((report.display, report.error))
        for op in report.operations:
            key = tally_key(op)
            self.tallies[key].add(op)
            self.total.add(op)
            if op.verdict == FALLBACK and len(self.named[key]) < NAMED:
                self.named[key].append(
                    f"`{op.code}` at {where(report.display, op.line, op.col, op.cell)} ({_reasons(op)})"
                )
            if op.verdict != GPU:
                self.row_count += 1
                if len(self.rows) < MARKDOWN_ROWS:
                    self.rows.append(
                        f"| `{_cell(where(report.display, op.line, op.col, op.cell))}` "
                        f"| `{_cell(op.code)}` | {op.verdict} | {_cell(_reasons(op))} |"
                    )
        for b in report.blockers:
            self.blockers += 1
            if len(self.blocker_rows) < MARKDOWN_ROWS:
                self.blocker_rows.append(
                    f"| `{_cell(where(report.display, b.start.line, b.start.col, b.cell))}` "
                    f"| {b.code} {b.name} | {_cell(b.message)} |"
                )

    @property
    def share(self) -> float | None:
        """The percentage of all counted operations that runs on the GPU (`--fail-under`)."""
        return self.total.share

    def lines(self, markdown: bool = False) -> list[str]:
        """One line per tally with something counted, naming the first fallbacks; then the
        blockers and the overall share."""
        lines = []
        for key in TALLIES:
            tally = self.tallies[key]
            if not tally.total:
                continue
            noun, verb = _NOUNS[key]
            line = f"{tally.gpu} of {tally.total} {noun} {verb}"
            if tally.fallback:
                more = f", and {tally.fallback - NAMED} more" if tally.fallback > NAMED else ""
                line += (
                    f"; {tally.fallback} {'falls' if tally.fallback == 1 else 'fall'} back: "
                    f"{', '.join(self.named[key])}{more}"
                )
            if tally.undecided:
                line += f"; {tally.undecided} undecided"
            lines.append(line + ".")
        share = self.share
        lines.append(
            f"{self.blockers} lint finding{'s' if self.blockers != 1 else ''} stand in the GPU's way; "
            + ("nothing counted." if share is None else f"{share:.1f}% of the counted operations run on the GPU.")
        )
        if markdown:
            return [f"- {line}" for line in lines]
        return lines


def summarise(reports: Iterable[FileReport]) -> Summary:
    summary = Summary()
    for report in reports:
        summary.add(report)
    return summary


def summary_lines(reports: Iterable[FileReport], markdown: bool = False) -> list[str]:
    return summarise(reports).lines(markdown)


def _blocker(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "line": diagnostic.start.line,
        "col": diagnostic.start.col + 1,
        "cell": diagnostic.cell,
    }


# Each writer writes the report of `reports` (an iterator: files arrive as they are analysed)
# to `out`, a file's part as soon as it has it, and returns the project's summary.


def write_text(reports: Iterable[FileReport], out: IO[str]) -> Summary:
    summary = Summary()
    for report in reports:
        summary.add(report)
        if report.error is not None:
            out.write(f"{report.display}: error: {report.error}\n")
            continue
        if not report.operations and not report.blockers:
            continue
        lines = [report.display]
        for op in report.operations:
            spot = where("", op.line, op.col, op.cell)[1:]
            detail = f"  {_reasons(op)}" if op.reasons else ""
            lines.append(f"  {spot:<14} {op.verdict:<9} {op.what:<40} `{op.code}`{detail}")
        for diagnostic in report.blockers:
            spot = where("", diagnostic.start.line, diagnostic.start.col, diagnostic.cell)[1:]
            lines.append(f"  {spot:<14} blocker   {diagnostic.code} {diagnostic.name}: {diagnostic.message}")
        out.write("\n".join(lines) + "\n\n")
    out.write("\n".join(summary.lines()) + "\n")
    return summary


def write_json(reports: Iterable[FileReport], out: IO[str]) -> Summary:
    """The JSON document `json.dumps(..., indent=2)` would write, one file's object at a time."""
    tables = {name: {"version": item.version, "commit": item.commit} for name, item in provenance().items()}
    head = json.dumps({"schema": SCHEMA_ID, "tables": tables}, indent=2)
    out.write(head[:-2] + ',\n  "files": [')
    summary = Summary()
    first = True
    for report in reports:
        summary.add(report)
        item = {
            "path": report.display,
            "error": report.error,
            "operations": [{**op.to_json(), "col": op.col + 1} for op in report.operations],
            "blockers": [_blocker(d) for d in report.blockers],
        }
        out.write(("\n" if first else ",\n") + textwrap.indent(json.dumps(item, indent=2), "    "))
        first = False
    out.write("]" if first else "\n  ]")
    data = {
        **{key: _tally_json(summary.tallies[key]) for key in TALLIES},
        "overall": summary.share,
        "blockers": summary.blockers,
    }
    out.write(',\n  "summary": ' + json.dumps(data, indent=2).replace("\n", "\n  ") + "\n}\n")
    return summary


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {
        "total": tally.total,
        "gpu": tally.gpu,
        "fallback": tally.fallback,
        "undecided": tally.undecided,
        "share": tally.share,
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_markdown(reports: Iterable[FileReport], out: IO[str]) -> Summary:
    """The summary comes first, so the whole run is gathered (as its bounded `Summary`) before
    anything is written."""
    summary = summarise(reports)
    found = provenance()
    lines = ["## GPU readiness", "", *summary.lines(markdown=True), ""]
    if summary.rows:
        lines += [
            "<details><summary>Operations that fall back or are undecided</summary>",
            "",
            "| Where | Operation | Verdict | Why |",
            "|---|---|---|---|",
            *summary.rows,
            *_more(summary.row_count),
            "",
            "</details>",
            "",
        ]
    if summary.blocker_rows:
        lines += [
            "<details><summary>Lint findings in the GPU's way</summary>",
            "",
            "| Where | Rule | Message |",
            "|---|---|---|",
            *summary.blocker_rows,
            *_more(summary.blockers),
            "",
            "</details>",
            "",
        ]
    if summary.errors:
        lines += ["Not checked:", "", *(f"- `{display}`: {error}" for display, error in summary.errors), ""]
    lines.append(
        f"Tables: cuDF {found['cudf'].version} (`{(found['cudf'].commit or '')[:12]}`), "
        f"cuML {found['cuml'].version} (`{(found['cuml'].commit or '')[:12]}`), "
        f"nx-cugraph {found['nx-cugraph'].version} (`{(found['nx-cugraph'].commit or '')[:12]}`)."
    )
    out.write("\n".join(lines) + "\n")
    return summary


def _more(rows: int) -> list[str]:
    if rows <= MARKDOWN_ROWS:
        return []
    return ["", f"{rows - MARKDOWN_ROWS} more rows: `--output-format json` or `text` lists every one."]


WRITERS: dict[str, Callable[[Iterable[FileReport], IO[str]], Summary]] = {
    "text": write_text,
    "json": write_json,
    "markdown": write_markdown,
}


def render(output_format: str, reports: Iterable[FileReport]) -> str:
    """The whole report as a string."""
    buffer = io.StringIO()
    WRITERS[output_format](reports, buffer)
    return buffer.getvalue()


def write_report(
    paths: Sequence[str],
    overrides: Overrides,
    config_file: Path | None,
    force_exclude: bool,
    jobs: int,
    output_format: str,
    libraries: Sequence[str],
    fail_under: float | None,
    out: IO[str],
) -> int:
    """Run the readiness analysis and write the report to `out`, each file's part as soon as
    the format allows; the exit code (1 when the GPU share is under `fail_under`, 2 when a
    file could not be read: it is listed with its error)."""
    chosen = set(libraries or LIBRARIES)

    def chosen_only(reports: Iterable[FileReport]) -> Iterator[FileReport]:
        for report in reports:
            report.operations = [op for op in report.operations if op.library in chosen]
            yield report

    found = readiness_paths(paths, overrides, config_file=config_file, force_exclude=force_exclude, jobs=jobs)
    summary = WRITERS[output_format](chosen_only(found), out)
    out.flush()
    for display, error in summary.errors:
        sys.stderr.write(f"{display}: error: {error}\n")
    if summary.errors:
        return 2
    share = summary.share
    if fail_under is not None and share is not None and share < fail_under:
        sys.stderr.write(f"GPU share {share:.1f}% is under --fail-under {fail_under:g}%\n")
        return 1
    return 0
