"""Helpers for the tests that run gpulint inside real host tools (flake8, pylint, pre-commit)
and compare what they report with `gpulint check --output-format json` on the same files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple
from collections.abc import Sequence

from gpulint.registry import Tier, entries

from .conftest import FRONT_END_RULES, INSTALLED_GPULINT

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


class Finding(NamedTuple):
    path: str
    line: int
    column: int  # 1-based, as `gpulint check` prints it
    code: str


def tool(name: str) -> str:
    """The console script `name` installed next to this interpreter (or on PATH)."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else (shutil.which(name) or name)


def run(
    args: Sequence[str], cwd: Path, env: dict[str, str] | None = None, input: str | None = None, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """Run a command; a traceback in its output fails the test."""
    process = subprocess.run(
        list(args),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
        env={**os.environ, **(env or {})},
    )
    output = process.stdout + process.stderr
    assert "Traceback" not in output, output
    return process


def fixture_texts() -> dict[str, str]:
    """Every rule fixture (`tests/fixtures/GPUxxx.py`): file name -> text."""
    texts = {path.name: path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("GPU*.py"))}
    assert texts, f"no fixtures under {FIXTURES}"
    return texts


def copy_fixtures(destination: Path) -> list[Path]:
    """Every rule fixture, copied into `destination`, which has no `[tool.gpulint]` above
    it (the project's own table excludes the fixtures)."""
    destination.mkdir(parents=True, exist_ok=True)
    copies = []
    for name, text in fixture_texts().items():
        copy = destination / name
        copy.write_bytes(text.encode("utf-8"))
        copies.append(copy)
    return copies


#: A `[tool.gpulint]` table under which every rule fixture has findings: the preview rules'
#: too (the default selection, which the host tools' plugins share, leaves them out).
PREVIEW_ON = "[tool.gpulint]\npreview = true\n"
#: A `[tool.gpulint]` table that selects the default set and the front-end tests' rules
#: (`conftest.FRONT_END_RULES`) in a host tool's process, where their real tier applies.
FRONT_END_ON = f"[tool.gpulint]\npreview = true\nselect = {sorted({entry.code for entry in entries() if entry.tier is Tier.DEFAULT} | set(FRONT_END_RULES))}\n".replace(
    "'", '"'
)


def gpulint_json(paths: Sequence[str], cwd: Path, *extra: str) -> list[dict]:
    """The findings `gpulint check --output-format json` reports for `paths`."""
    process = run([INSTALLED_GPULINT, "check", "--output-format", "json", *extra, *paths], cwd=cwd)
    assert process.returncode in (0, 1), process.stderr
    return json.loads(process.stdout)


def gpulint_findings(paths: Sequence[str], cwd: Path, *extra: str) -> list[Finding]:
    """(path, line, column, code) of each finding, sorted; repeats kept."""
    return sorted(
        Finding(item["filename"], item["location"]["row"], item["location"]["column"], item["code"])
        for item in gpulint_json(paths, cwd, *extra)
    )
