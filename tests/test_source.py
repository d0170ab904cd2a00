"""`Source.segment` agrees with `ast.get_source_segment` on every node of real files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpulint.source import Source

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("tests/fixtures/GPU10[24].py")])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_segment_matches_the_standard_library(path: Path, newline: str):
    text = path.read_text(encoding="utf-8").replace("\n", newline) + "x = 'é' + f(a,\n   ü)\n".replace("\n", newline)
    source = Source.from_text(text)
    tree = ast.parse(text)
    checked = 0
    for node in ast.walk(tree):
        if getattr(node, "end_lineno", None) is not None:
            assert source.segment(node) == ast.get_source_segment(text, node)
            checked += 1
    assert checked > 10
