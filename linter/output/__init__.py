"""Renderers for `gpulint check --output-format`.

The machine-readable formats are in `FORMATS` (results in, text out); the human ones,
`full` (`full.py`, the default) and `concise` (`text.py`, which also writes the summary
both end with), are printed line by line with colour where the stream wants it
(`style.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..runner import FileResult
from . import full, github, json, sarif, text

Renderer = Callable[[Sequence[FileResult]], str]

FORMATS: dict[str, Renderer] = {
    "json": json.render,
    "github": github.render,
    "sarif": sarif.render,
}
#: The formats printed line by line, with a summary; `text` is the former name of `concise`.
HUMAN = ("full", "concise", "text")

__all__ = ["FORMATS", "HUMAN", "full", "text"]
