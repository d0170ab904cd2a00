"""Renderers for `gpulint check --output-format`: each turns results into text."""

from __future__ import annotations

from typing import Callable, Sequence

from ..runner import FileResult
from . import github, json, sarif, text

Renderer = Callable[[Sequence[FileResult]], str]

FORMATS: dict[str, Renderer] = {
    "json": json.render,
    "github": github.render,
    "sarif": sarif.render,
}

__all__ = ["FORMATS", "text"]
