"""The pre-commit hooks, run through the real `pre-commit try-repo` against a git repository
holding this project (as pre-commit would fetch it) on a scratch user repository: the check
hook reports what `gpulint check` reports, both hooks honour `exclude` for the files
pre-commit passes, and the fix hook rewrites files, which pre-commit reports as a failure.

pre-commit builds the hook's environment (`pip install` of the project) once per try-repo
run, so the runs are shared by the tests of this module."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from .conftest import GPULINT, ITERROWS, write
from .host_tools import ROOT, Finding, fixture_texts, gpulint_findings, run, tool

PRE_COMMIT = tool("pre-commit")
GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="pre-commit needs git")

#: What a checkout would not hold (build outputs, caches).
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".venv",
    ".benchmarks",
    ".hypothesis",
    ".ruff_cache",
    ".corpus",
    "*.pyc",
)
ENV = {
    "GIT_AUTHOR_NAME": "gpulint tests",
    "GIT_AUTHOR_EMAIL": "tests@gpulint.invalid",
    "GIT_COMMITTER_NAME": "gpulint tests",
    "GIT_COMMITTER_EMAIL": "tests@gpulint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PRE_COMMIT_COLOR": "never",
}
#: A frame grown in a loop whose fix is safe: `--fix` rewrites it and nothing remains.
GROWN = """\
import pandas as pd

orders = pd.read_csv("orders.csv")

# The three largest order lines of each region.
top_orders = pd.DataFrame()
for region, group in orders.groupby("region"):
    top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])
print(top_orders)
"""
#: A notebook (pre-commit's `jupyter` type) with an `iterrows()` loop in its second cell.
NOTEBOOK = (
    json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "id": "load",
                    "metadata": {},
                    "outputs": [],
                    "source": ["import pandas as pd\n", "sales = pd.read_csv('sales.csv')"],
                },
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "id": "loop",
                    "metadata": {},
                    "outputs": [],
                    "source": ["for _, row in sales.iterrows():\n", "    print(row['price'])"],
                },
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )
    + "\n"
)
EXCLUDED = "vendored/legacy.py"
#: Preview on, so that every rule fixture (preview rules' too) has findings to compare.
PYPROJECT = '[tool.gpulint]\nexclude = ["vendored/**"]\npreview = true\n'
FINDING = re.compile(r"^(?P<path>\S+?):(?P<line>\d+):(?P<col>\d+): (?P<code>GPU\d{3}) ", re.MULTILINE)


def git(cwd: Path, *args: str) -> None:
    process = subprocess.run([GIT, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV})
    assert process.returncode == 0, process.stderr


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This project as a git repository with one commit, the way pre-commit clones it."""
    repo = tmp_path_factory.mktemp("hooks") / "gpulint"
    shutil.copytree(ROOT, repo, ignore=_NOT_SOURCE)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "gpulint")
    return repo


def user_repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository with `files` staged (pre-commit's `--all-files` takes what git tracks)."""
    root.mkdir()
    for name, text in files.items():
        write(root / name, text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    return root


def try_repo(hook_repo: Path, repo: Path, hook: str) -> subprocess.CompletedProcess[str]:
    return run(
        [PRE_COMMIT, "try-repo", str(hook_repo), hook, "--all-files", "--verbose", "--color=never"],
        cwd=repo,
        env={**ENV, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home")},
        timeout=600,
    )


def snapshot(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


@pytest.fixture(scope="module")
def check_run(hook_repo, tmp_path_factory):
    """The check hook run once over a repository holding every rule fixture, a notebook, an
    excluded file with findings, and a text file that mentions `iterrows()`."""
    fixtures = fixture_texts()
    repo = user_repo(
        tmp_path_factory.mktemp("check") / "project",
        {
            **fixtures,
            "pyproject.toml": PYPROJECT,
            EXCLUDED: ITERROWS + GROWN,
            "notes.txt": "for _, row in sales.iterrows(): pass\n",
            "analysis.ipynb": NOTEBOOK,
        },
    )
    before = snapshot(repo)
    process = try_repo(hook_repo, repo, "gpulint")
    return process, repo, sorted(fixtures), before


@pytest.fixture(scope="module")
def fix_run(hook_repo, tmp_path_factory):
    """The fix hook run once over a file whose only finding has a safe fix, and the same
    code in an excluded file."""
    repo = user_repo(
        tmp_path_factory.mktemp("fix") / "project", {"pyproject.toml": PYPROJECT, "grown.py": GROWN, EXCLUDED: GROWN}
    )
    before = snapshot(repo)
    process = try_repo(hook_repo, repo, "gpulint-fix")
    return process, repo, before


def reported(output: str) -> list[Finding]:
    return sorted(Finding(m["path"], int(m["line"]), int(m["col"]), m["code"]) for m in FINDING.finditer(output))


@pytest.mark.slow
def test_check_hook_reports_what_gpulint_check_reports(check_run):
    process, repo, fixtures, _ = check_run
    expected = gpulint_findings(fixtures, repo)
    assert {f.path for f in expected} == set(fixtures), "every fixture has findings to compare"
    assert reported(process.stdout) == expected
    assert process.returncode == 1
    assert "- hook id: gpulint" in process.stdout


@pytest.mark.slow
def test_check_hook_lints_notebooks(check_run):
    process, repo, _, _ = check_run
    direct = run([GPULINT, "check", "analysis.ipynb"], cwd=repo).stdout.splitlines()
    expected = [line for line in direct if line.startswith("analysis.ipynb:")]
    assert expected and "GPU102" in expected[0]
    assert [line for line in process.stdout.splitlines() if line.startswith("analysis.ipynb:")] == expected


@pytest.mark.slow
def test_check_hook_honours_exclude_for_the_files_it_is_given(check_run):
    process, repo, _, _ = check_run
    assert EXCLUDED not in process.stdout
    # The file has findings: named on a plain command line (no --force-exclude), it is linted.
    assert {f.path for f in gpulint_findings([EXCLUDED], repo)} == {EXCLUDED}


@pytest.mark.slow
def test_check_hook_passes_only_python_files_and_changes_nothing(check_run):
    process, repo, _, before = check_run
    assert "notes.txt" not in process.stdout
    assert "files were modified" not in process.stdout
    assert snapshot(repo) == before


@pytest.mark.slow
def test_fix_hook_rewrites_files_and_pre_commit_fails_because_they_changed(fix_run, tmp_path):
    process, repo, before = fix_run
    # What `gpulint check --fix` makes of the same file, elsewhere.
    write(tmp_path / "grown.py", GROWN)
    subprocess.run([GPULINT, "check", "--fix", "grown.py"], cwd=tmp_path, capture_output=True, timeout=60)
    expected = (tmp_path / "grown.py").read_text(encoding="utf-8")
    assert expected != GROWN
    assert (repo / "grown.py").read_text(encoding="utf-8") == expected
    assert process.returncode == 1
    assert "files were modified by this hook" in process.stdout
    # gpulint itself succeeded: every finding was fixed, so the failure is the change.
    assert gpulint_findings(["grown.py"], repo) == []
    assert snapshot(repo)[EXCLUDED] == before[EXCLUDED]


def test_manifest_declares_both_hooks():
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"gpulint", "gpulint-fix"}
    for hook in hooks.values():
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is True
        assert hook["entry"].split()[:2] == ["gpulint", "check"] and "--force-exclude" in hook["entry"].split()
    assert "--fix" in hooks["gpulint-fix"]["entry"].split() and "--fix" not in hooks["gpulint"]["entry"].split()
