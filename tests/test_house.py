"""The house holds itself to its tools: `ruff format` and `ruff check` (E, F, B, UP, SIM and
C90 at a complexity of 20; the functions above it carry `# noqa: C901`, the allow-list to
burn down), as `[tool.ruff]` in pyproject.toml sets them. They run with the test suite, so
the README's test command is all CI needs. `mypy linter` (the core, `[tool.mypy]`) runs here
too, with no errors allowed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("ruff", reason="ruff comes with the dev install")


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_code_is_formatted():
    run = _ruff("format", "--check", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_code_passes_its_lint_rules():
    run = _ruff("check", "--output-format", "concise", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_complexity_allow_list_only_shrinks():
    """Functions allowed above the complexity bound, counted: a new one needs a reason."""
    allowed = sum(
        path.read_text(encoding="utf-8").count("# noqa: C901")
        for folder in ("linter", "rules", "fixers", "benchmarks", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if "fixtures" not in path.parts and ".corpus" not in path.parts and path.name != "test_house.py"
    )
    assert allowed <= 4, f"{allowed} functions allowed above complexity 20 (was 4): split the new one"


def test_the_core_type_checks():
    pytest.importorskip("mypy", reason="mypy comes with the dev install")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "linter"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
