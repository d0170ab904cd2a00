"""GitHub Actions workflow commands (`::error file=...::message`), escaped per the
workflow-command rules: `%`, CR and LF in the message; also `:` and `,` in properties.
Terminal controls are dropped first: the job's log shows them as a terminal would.
The message is the finding's, then the rule's suggestion on a line of its own (`help: ...`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..diagnostic import Diagnostic
from ..runner import FileResult
from .terminal import printable
from .text import location


def escape_data(value: str) -> str:
    """`value` without terminal controls (the log shows them), escaped for a command."""
    return printable(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _position(result: FileResult, d: Diagnostic) -> tuple[tuple[str, int], ...]:
    """Where the annotation goes. In a notebook, the lines of the file holding the cell's
    lines (columns in the JSON text would mislead, so there are none)."""
    if d.cell is not None and result.notebook is not None:
        return (
            ("line", result.notebook.file_line(d.cell, d.start.line)),
            ("endLine", result.notebook.file_line(d.cell, d.end.line)),
        )
    return (("line", d.start.line), ("col", d.start.col + 1), ("endLine", d.end.line), ("endColumn", d.end.col + 1))


def render(results: Sequence[FileResult]) -> str:
    lines = []
    for result in results:
        for d in result.diagnostics:
            properties = ",".join(
                f"{key}={escape_property(str(value))}"
                for key, value in (("title", f"gpulint ({d.code})"), ("file", result.display), *_position(result, d))
            )
            where = f"{location(d)}: " if d.cell is not None else ""
            help_line = f"\nhelp: {d.suggestion}" if d.suggestion is not None else ""
            lines.append(f"::error {properties}::{escape_data(f'{where}{d.code} {d.message}{help_line}')}")
        if result.error is not None:
            properties = f"title={escape_property('gpulint')},file={escape_property(result.display)}"
            lines.append(f"::error {properties}::{escape_data(result.error)}")
    return "".join(line + "\n" for line in lines)
