"""Fixture files `tests/fixtures/GPUxxx*.py`: a line ending in `# GPUxxx` must carry exactly
that finding (at the line where the finding starts), lines ending in `# OK` must carry none,
and no other line may carry a finding of the fixture's code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpulint import lint_source

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("GPU[0-9][0-9][0-9]*.py"))
MARKER = re.compile(r"#\s*(GPU\d{3}|OK)\b[^#]*$")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_markers(path: Path):
    code = path.stem[:6]
    text = path.read_text(encoding="utf-8")
    expected: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            expected[number] = match.group(1)
    assert any(marker == code for marker in expected.values()), "a fixture must mark at least one finding"
    assert any(marker == "OK" for marker in expected.values()), "a fixture must mark near-misses with # OK"
    found = lint_source(text, filename=str(path))
    flagged_lines = sorted(d.start.line for d in found if d.code == code)
    assert flagged_lines == sorted(n for n, m in expected.items() if m == code)
    for number, marker in expected.items():
        if marker == "OK":
            assert [d.code for d in found if d.start.line == number] == [], f"line {number} must stay silent"
