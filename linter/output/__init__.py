"""Renderers for `gpulint check --output-format`.

The machine-readable formats are in `FORMATS` (results in, text out); the human ones,
`full` (`full.py`, the default) and `concise` (`text.py`, which also writes the summary
both end with), are printed line by line with colour where the stream wants it
(`style.py`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from . import full, text

if TYPE_CHECKING:
    from ..runner import FileResult

Renderer = Callable[[Sequence["FileResult"]], str]

#: The machine-readable formats, each the module whose `render` writes it; imported only
#: when chosen, so a run in the default format never loads them.
FORMATS = ("json", "github", "sarif")


def renderer(output_format: str) -> Renderer:
    """The `render` function of a machine-readable format (one of `FORMATS`)."""
    if output_format not in FORMATS:
        raise ValueError(f"not a machine-readable output format: {output_format}")
    render: Renderer = importlib.import_module(f"{__name__}.{output_format}").render
    return render


#: The formats printed line by line, with a summary; `text` is the former name of `concise`.
HUMAN = ("full", "concise", "text")

__all__ = ["FORMATS", "HUMAN", "full", "renderer", "text"]
