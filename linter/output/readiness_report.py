"""How `gpulint readiness` writes its report: text (per file, then the project summary),
JSON (`SCHEMA`, documented in docs/readiness.md) and Markdown (for a pull-request comment)."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ..cache import Cache
from ..config import Overrides
from ..diagnostic import Diagnostic
from ..readiness import (
    BREAKS,
    BY_DESIGN,
    CPU_IN_CUDF,
    CUDF,
    CUML,
    FALLBACK,
    GPU,
    LIBRARIES,
    NX,
    TALLIES,
    UNDECIDED,
    VERDICTS,
    FileReport,
    Operation,
    Tally,
    readiness_paths,
    tally_key,
)
from ..readiness_tables import provenance

FORMATS = ("text", "json", "markdown")
SCHEMA_ID = "https://gpulint.dev/schemas/readiness-2.json"
#: How many causes the summary lists before it says "and N more".
NAMED = 12
#: The line that closes every report: how to confirm the verdicts on a GPU.
CONFIRM = (
    "Confirm on a GPU: `python -m cudf.pandas --profile script.py` (`%%cudf.pandas.profile` in a notebook) "
    "for pandas; `python -m cuml.accel --profile script.py` (or `-v` for its logging) for estimators; "
    'NetworkX\'s dispatch logging (`logging.getLogger("networkx.utils.backends").setLevel(logging.DEBUG)`) '
    "for graphs."
)
#: How many rows each Markdown table lists: a pull-request comment holds 65,536 characters.
MARKDOWN_ROWS = 100

_REASON = {
    "type": "object",
    "required": ["text", "source"],
    "additionalProperties": False,
    "properties": {"text": {"type": "string"}, "source": {"type": ["string", "null"]}},
}
_COUNTS = ["total", *VERDICTS]
_TALLY = {
    "type": "object",
    "required": [*_COUNTS, "share"],
    "additionalProperties": False,
    "properties": {**{key: {"type": "integer"} for key in _COUNTS}, "share": {"type": ["number", "null"]}},
}
_CAUSE = {
    "type": "object",
    "required": ["verdict", "what", "reason", "source", "count", "rewrite"],
    "additionalProperties": False,
    "properties": {
        "verdict": {"enum": [FALLBACK, CPU_IN_CUDF, BREAKS]},
        "what": {"type": "string"},
        "reason": {"type": "string"},
        "source": {"type": ["string", "null"]},
        "count": {"type": "integer"},
        "rewrite": {"type": ["string", "null"]},
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
                "required": ["path", "error", "share", "operations", "blockers"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string"},
                    "error": {"type": ["string", "null"]},
                    "share": {"type": ["number", "null"]},
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
                                "notes",
                            ],
                            "properties": {
                                "library": {"enum": [CUDF, CUML, NX]},
                                "what": {"type": "string"},
                                "code": {"type": "string"},
                                "verdict": {"enum": list(VERDICTS)},
                                "line": {"type": "integer"},
                                "col": {"type": "integer", "minimum": 1},
                                "cell": {"type": ["integer", "null"]},
                                "estimator": {"type": "boolean"},
                                "in_loop": {"type": "boolean"},
                                "reasons": {"type": "array", "items": _REASON},
                                "caveats": {"type": "array", "items": _REASON},
                                "notes": {"type": "array", "items": _REASON},
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
            "required": [*TALLIES, "overall", "blockers", "causes"],
            "additionalProperties": False,
            "properties": {
                **{key: _TALLY for key in TALLIES},
                "overall": {"type": ["number", "null"]},
                "blockers": {"type": "integer"},
                "causes": {"type": "array", "items": _CAUSE},
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


def _counted(verdict: str, n: int) -> str:
    one = n == 1
    return {
        FALLBACK: f"{n} {'falls' if one else 'fall'} back",
        UNDECIDED: f"{n} undecided",
        CPU_IN_CUDF: f"{n} {'runs' if one else 'run'} on the CPU inside cuDF",
        BREAKS: f"{n} {'breaks' if one else 'break'} under pandas 3",
    }[verdict]


#: The GPU-friendly rewrite for a cause, by words its reason holds (first match wins).
REWRITES = (
    (
        "_handle_frequency_grouper",
        'group by calendar columns (`df[col].dt.year`, `.dt.month`) or resample on a fixed frequency (`"7D"`, `"h"`)',
    ),
    ("`date_range`", 'resample on a fixed frequency (`"D"`, `"7D"`, `"h"`), or group by `dt.year`/`dt.month` columns'),
    ("StringColumn.values", "`drop_duplicates()` on the column (a Series, on the GPU), or `.value_counts().index`"),
    ("the frame has a column of text", 'aggregate the numeric columns (`df.select_dtypes("number").agg(...)`)'),
    ("margins", "build the totals with `groupby(...).sum()` and `pd.concat` them"),
    ("`keys=", "concatenate without `keys=` and add the key as a column"),
    ('engine resolves to "pandas"', '`lines=True` (JSON Lines), which cuDF parses on the GPU (`engine="cudf"`)'),
    ("iterrows", "a vectorised column expression"),
    ("itertuples", "a vectorised column expression"),
)


def relative(display: str) -> str:
    """`display` relative to the current directory where it lies under it (as `gpulint check`
    prints a path given relative); as it is otherwise."""
    path = Path(display)
    if not path.is_absolute():
        return display
    try:
        found = os.path.relpath(path, Path.cwd())
    except ValueError:  # another drive
        return display
    return display if found.startswith("..") else found


def where(display: str, line: int, col: int, cell: int | None) -> str:
    """`file.py:12:5`, or `notebook.ipynb:cell 3:12:5`, for 0-based column `col`: columns
    count from 1, as in `gpulint check`."""
    return f"{display}:cell {cell}:{line}:{col + 1}" if cell is not None else f"{display}:{line}:{col + 1}"


def _reasons(operation: Operation) -> str:
    found = "; ".join(f"{r.text} ({r.source})" if r.source else r.text for r in operation.reasons)
    return f"in a loop: {found}" if operation.in_loop and operation.verdict != GPU else found


def _notes(operation: Operation) -> str:
    return "; ".join(f"note: {r.text} ({r.source})" if r.source else f"note: {r.text}" for r in operation.notes)


def _cause_text(text: str) -> str:
    """A reason without the arguments of the one call it was written for (`` `keys=['a']`: ``)."""
    if text.startswith("`") and "`: " in text:
        return text.split("`: ", 1)[1]
    return text


def rewrite(operation: Operation) -> str | None:
    """The GPU-friendly rewrite for what keeps `operation` off the GPU, where one is known."""
    text = " ".join(r.text for r in operation.reasons)
    replaced = re.search(r"\(use (.*?)\)(?:;|:|$)", text) if operation.verdict == BREAKS else None
    if replaced:
        return replaced.group(1)
    return next((fix for words, fix in REWRITES if words in text), None)


class Cause:
    """Operations kept off the GPU for one reason: how many, the first one's place."""

    def __init__(self, operation: Operation, first: str) -> None:
        reason = operation.reasons[0] if operation.reasons else None
        self.verdict = operation.verdict
        self.what = operation.what
        self.reason = _cause_text(reason.text) if reason else ""
        self.source = reason.source if reason else None
        self.rewrite = rewrite(operation)
        self.first = first
        self.count = 0

    def line(self) -> str:
        source = f" ({self.source})" if self.source else ""
        fix = f"; instead: {self.rewrite}" if self.rewrite else ""
        return f"{self.count} x `{self.what}` ({self.verdict}): {self.reason}{source}; first at {self.first}{fix}"

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "what": self.what,
            "reason": self.reason,
            "source": self.source,
            "count": self.count,
            "rewrite": self.rewrite,
        }


class Summary:
    """What the report says of the whole project, gathered one file at a time so that a run
    holds no file's operations after that file is written: the tallies, the causes that keep
    operations off the GPU (counted), each file's share, the first rows of the Markdown tables
    (and how many there are), the blockers' count and the files with an error."""

    def __init__(self) -> None:
        self.tallies = {key: Tally() for key in TALLIES}
        self.total = Tally()
        self.causes: dict[tuple[str, str, str | None, str], Cause] = {}
        self.files: list[tuple[str, Tally]] = []  # Markdown: the first files' shares
        self.file_count = 0
        self.blockers = 0
        self.rows: list[str] = []  # Markdown: operations that fall back or are undecided
        self.row_count = 0
        self.blocker_rows: list[str] = []
        self.errors: list[tuple[str, str]] = []

    def add(self, report: FileReport) -> None:
        if report.error is not None:
            self.errors.append((report.display, report.error))
        own = Tally()
        for op in report.operations:
            key = tally_key(op)
            self.tallies[key].add(op)
            self.total.add(op)
            own.add(op)
            if op.verdict in (FALLBACK, CPU_IN_CUDF, BREAKS):
                cause = Cause(op, where(report.display, op.line, op.col, op.cell))
                found = self.causes.setdefault((cause.verdict, cause.what, cause.source, cause.reason), cause)
                found.count += 1
            if op.verdict not in (GPU, BY_DESIGN):
                self.row_count += 1
                if len(self.rows) < MARKDOWN_ROWS:
                    self.rows.append(
                        f"| `{_cell(where(report.display, op.line, op.col, op.cell))}` "
                        f"| `{_cell(op.code)}` | {op.verdict} | {_cell(_reasons(op))} |"
                    )
        if own.total or own.cpu_by_design:
            self.file_count += 1
            if len(self.files) < MARKDOWN_ROWS:
                self.files.append((report.display, own))
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

    def ranked_causes(self) -> list[Cause]:
        return sorted(self.causes.values(), key=lambda c: (-c.count, c.what, c.reason))

    def lines(self, markdown: bool = False) -> list[str]:
        """One line per tally with something counted; the causes that keep operations off the
        GPU, most frequent first, each with its rewrite; the blockers and the overall share."""
        lines = []
        for key in TALLIES:
            tally = self.tallies[key]
            if not tally.total and not tally.cpu_by_design:
                continue
            noun, verb = _NOUNS[key]
            parts = [
                _counted(verdict, getattr(tally, verdict))
                for verdict in (FALLBACK, UNDECIDED, CPU_IN_CUDF, BREAKS)
                if getattr(tally, verdict)
            ]
            line = f"{tally.gpu} of {tally.total} {noun} {verb}"
            if parts:
                line += "; " + ", ".join(parts)
            if tally.cpu_by_design:
                line += f"; {tally.cpu_by_design} on the CPU by design (plotting, styling, Excel, options: not counted)"
            lines.append(line + ".")
        ranked = self.ranked_causes()
        causes = []
        if ranked:
            causes.append("What keeps operations off the GPU, by cause:")
            causes += [f"  {cause.line()}" for cause in ranked[:NAMED]]
            if len(ranked) > NAMED:
                causes.append(f"  and {len(ranked) - NAMED} more causes: `--output-format json` lists every one.")
        share = self.share
        closing = [
            f"{self.blockers} lint finding{'s' if self.blockers != 1 else ''} stand in the GPU's way; "
            + ("nothing counted." if share is None else f"{share:.1f}% of the counted operations run on the GPU."),
        ]
        if markdown:
            return [
                *(f"- {line}" for line in lines),
                *([""] if causes else []),
                *([f"**{causes[0]}**", "", *(f"- {c.strip()}" for c in causes[1:])] if causes else []),
                "",
                *(f"- {line}" for line in closing),
            ]
        return [*lines, *causes, *closing]


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


def _relative(reports: Iterable[FileReport]) -> Iterator[FileReport]:
    for report in reports:
        report.display = relative(report.display)
        yield report


def _share(tally: Tally) -> str:
    share = tally.share
    counted = f"{tally.gpu} of {tally.total} on the GPU"
    return counted if share is None else f"{share:.0f}% ({counted})"


# Each writer writes the report of `reports` (an iterator: files arrive as they are analysed)
# to `out`, a file's part as soon as it has it, and returns the project's summary.


def write_text(reports: Iterable[FileReport], out: IO[str]) -> Summary:
    summary = Summary()
    for report in _relative(reports):
        summary.add(report)
        if report.error is not None:
            out.write(f"{report.display}: error: {report.error}\n")
            continue
        if not report.operations and not report.blockers:
            continue
        own = Tally()
        for op in report.operations:
            own.add(op)
        lines = [f"{report.display}  GPU share {_share(own)}" if own.total else report.display]
        for op in report.operations:
            spot = where("", op.line, op.col, op.cell)[1:]
            detail = "; ".join(x for x in (_reasons(op) if op.reasons else "", _notes(op)) if x)
            lines.append(f"  {spot:<14} {op.verdict:<13} {op.what:<40} `{op.code}`{'  ' + detail if detail else ''}")
        for diagnostic in report.blockers:
            spot = where("", diagnostic.start.line, diagnostic.start.col, diagnostic.cell)[1:]
            lines.append(f"  {spot:<14} {'blocker':<13} {diagnostic.code} {diagnostic.name}: {diagnostic.message}")
        out.write("\n".join(lines) + "\n\n")
    out.write("\n".join([*summary.lines(), CONFIRM]) + "\n")
    return summary


def write_json(reports: Iterable[FileReport], out: IO[str]) -> Summary:
    """The JSON document `json.dumps(..., indent=2)` would write, one file's object at a time."""
    tables = {name: {"version": item.version, "commit": item.commit} for name, item in provenance().items()}
    head = json.dumps({"schema": SCHEMA_ID, "tables": tables}, indent=2)
    out.write(head[:-2] + ',\n  "files": [')
    summary = Summary()
    first = True
    for report in _relative(reports):
        summary.add(report)
        own = Tally()
        for op in report.operations:
            own.add(op)
        item = {
            "path": report.display,
            "error": report.error,
            "share": own.share,
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
        "causes": [cause.to_json() for cause in summary.ranked_causes()],
    }
    out.write(',\n  "summary": ' + json.dumps(data, indent=2).replace("\n", "\n  ") + "\n}\n")
    return summary


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {**{key: getattr(tally, key) for key in _COUNTS}, "share": tally.share}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_markdown(reports: Iterable[FileReport], out: IO[str]) -> Summary:
    """The summary comes first, so the whole run is gathered (as its bounded `Summary`) before
    anything is written."""
    summary = summarise(_relative(reports))
    found = provenance()
    lines = ["## GPU readiness", "", *summary.lines(markdown=True), ""]
    if summary.file_count > 1:
        lines += [
            "<details><summary>GPU share per file</summary>",
            "",
            "| File | GPU share | Counted | Fall back | Undecided | CPU inside cuDF | Break under pandas 3 |",
            "|---|---|---|---|---|---|---|",
            *(
                f"| `{_cell(display)}` | {'-' if t.share is None else f'{t.share:.0f}%'} | {t.total} | {t.fallback} "
                f"| {t.undecided} | {t.cpu_in_cudf} | {t.breaks_pandas3} |"
                for display, t in summary.files
            ),
            *_more(summary.file_count),
            "",
            "</details>",
            "",
        ]
    if summary.rows:
        lines += [
            "<details><summary>Operations kept off the GPU or undecided</summary>",
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
    lines += ["", CONFIRM]
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
    cache: Cache | None = None,
) -> int:
    """Run the readiness analysis and write the report to `out`, each file's part as soon as
    the format allows; the exit code (1 when the GPU share is under `fail_under`, 2 when a
    file could not be read: it is listed with its error)."""
    chosen = set(libraries or LIBRARIES)

    def chosen_only(reports: Iterable[FileReport]) -> Iterator[FileReport]:
        for report in reports:
            report.operations = [op for op in report.operations if op.library in chosen]
            yield report

    found = readiness_paths(
        paths, overrides, config_file=config_file, force_exclude=force_exclude, jobs=jobs, cache=cache
    )
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
