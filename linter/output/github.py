"""GitHub Actions workflow commands (`::error file=...::message`), escaped per the
workflow-command rules: `%`, CR and LF in the message; also `:` and `,` in properties."""

from __future__ import annotations

from typing import Sequence

from ..runner import FileResult


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render(results: Sequence[FileResult]) -> str:
    lines = []
    for result in results:
        for d in result.diagnostics:
            properties = ",".join(
                f"{key}={escape_property(str(value))}"
                for key, value in (
                    ("title", f"gpulint ({d.code})"),
                    ("file", result.display),
                    ("line", d.start.line),
                    ("col", d.start.col + 1),
                    ("endLine", d.end.line),
                    ("endColumn", d.end.col + 1),
                )
            )
            lines.append(f"::error {properties}::{escape_data(f'{d.code} {d.message}')}")
        if result.error is not None:
            properties = f"title={escape_property('gpulint')},file={escape_property(result.display)}"
            lines.append(f"::error {properties}::{escape_data(result.error)}")
    return "".join(line + "\n" for line in lines)
