"""The result cache: warm runs report exactly what cold runs report, an entry is used only
for the content, configuration, selection and gpulint it was made with, and concurrent or
broken entries never change a result."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import gpulint
import gpulint.cli
import gpulint.runner
from gpulint.cache import FORMAT, Cache, LineMap
from gpulint.diagnostic import Diagnostic, Edit, Fix
from gpulint.runner import lint_paths

from .conftest import GPULINT, ITERROWS, ITERROWS_FIXED, fill_project, write

FORMATS = ("json", "sarif", "full", "concise", "github")


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files linted or fixed (not served from the cache) during a test, by name."""
    seen: list[str] = []
    for name in ("process_source", "process_notebook"):
        real = getattr(gpulint.runner, name)

        def counted(source, display, *args, _real=real, **kwargs):
            seen.append(Path(display).name)
            return _real(source, display, *args, **kwargs)

        monkeypatch.setattr(gpulint.runner, name, counted)
    return seen


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.parent.parent.name == FORMAT)


@pytest.mark.slow
def test_warm_runs_print_what_cold_runs_print(project, cli, cache_dir):
    fill_project(project)
    for fmt in FORMATS:
        cold = cli("check", ".", "--output-format", fmt, "--no-cache")
        first = cli("check", ".", "--output-format", fmt)  # fills the cache
        warm = cli("check", ".", "--output-format", fmt)
        assert cold.code == first.code == warm.code == 2  # the file that cannot be decoded
        assert cold.stdout == first.stdout == warm.stdout, fmt
        assert cold.stderr == first.stderr == warm.stderr, fmt
    assert _entries(cache_dir)


def test_warm_runs_lint_nothing_again(project, cli, cache_dir, analyses):
    files = fill_project(project)
    cli("check", ".", "--jobs", "1", "--output-format", "json")  # in this process, where `analyses` sees them
    assert len(analyses) == len(files) - 1  # all but the file that cannot be decoded
    analyses.clear()
    cli("check", ".", "--jobs", "1")  # the fixes' edits were written: their plans serve
    cli("check", ".", "--jobs", "1", "--output-format", "json")
    assert analyses == []


def test_a_run_writing_edits_lints_again_the_files_whose_fixes_were_only_planned(project, cli, cache_dir, analyses):
    fill_project(project)
    cli("check", ".", "--jobs", "1")  # findings for people: the fixes are planned, not written
    analyses.clear()
    warm = json.loads(cli("check", ".", "--jobs", "1", "--output-format", "json").stdout)
    linted = set(analyses)
    cold = json.loads(cli("check", ".", "--jobs", "1", "--output-format", "json", "--no-cache").stdout)
    assert warm == cold
    # A notebook's fixes are always written: mapping their edits to cells decides which apply.
    planned = {
        Path(d["filename"]).name
        for d in cold
        if d["fix"] and d["fix"]["applicability"] != "display-only" and not d["filename"].endswith(".ipynb")
    }
    assert planned and linted == planned


def test_an_entry_is_used_only_for_the_content_it_was_made_for(project, cli, cache_dir, analyses):
    write(project / "sales.py", ITERROWS)
    write(project / "clean.py", "x = 1\n")
    assert cli("check", ".", "--output-format", "concise").code == 1
    analyses.clear()
    write(project / "sales.py", ITERROWS + "\nfor _, r in sales.iterrows():\n    pass\n")
    run = cli("check", ".", "--output-format", "concise")
    assert analyses == ["sales.py"]
    assert sum("GPU102" in line for line in run.lines) == 2


@pytest.mark.parametrize("change", ["configuration", "selection", "unsafe-fixes", "version"])
def test_a_change_of_what_governs_a_file_invalidates_its_entry(project, cli, cache_dir, analyses, monkeypatch, change):
    write(project / "sales.py", ITERROWS)
    write(project / "pyproject.toml", "[tool.gpulint]\n")
    before = cli("check", ".", "--output-format", "json")
    analyses.clear()
    options: list[str] = []
    if change == "configuration":
        write(project / "pyproject.toml", "[tool.gpulint]\nignore = ['GPU102']\n")
    elif change == "selection":
        options = ["--select", "GPU2"]
    elif change == "unsafe-fixes":
        options = ["--unsafe-fixes"]
    else:
        monkeypatch.setattr(gpulint.cli, "__version__", "99.0.0")
    after = cli("check", ".", "--output-format", "json", *options)
    assert analyses == ["sales.py"]
    if change in ("configuration", "selection"):
        assert json.loads(before.stdout) and json.loads(after.stdout) == []
    else:
        assert after.stdout == cli("check", ".", "--output-format", "json", "--no-cache", *options).stdout
    analyses.clear()
    cli("check", ".", "--output-format", "json", *options)
    assert analyses == []  # the new entry serves the next run


def test_a_corrupt_entry_is_ignored_and_rewritten(project, cli, cache_dir, analyses):
    fill_project(project)
    expected = cli("check", ".", "--output-format", "json", "--jobs", "1").stdout
    entries = _entries(cache_dir)
    for number, entry in enumerate(entries):
        data = entry.read_bytes()
        entry.write_bytes([data[: len(data) // 2], b"", b"\x00\xff", b'{"check": 1}', b"[]"][number % 5])
    analyses.clear()
    assert cli("check", ".", "--output-format", "json", "--jobs", "1").stdout == expected
    assert len(analyses) == len(entries)
    for entry in _entries(cache_dir):
        json.loads(entry.read_bytes())  # whole again


def test_no_cache_neither_reads_nor_writes(project, cli, cache_dir):
    write(project / "sales.py", ITERROWS)
    cli("check", ".", "--no-cache")
    assert not cache_dir.exists()
    cli("check", ".")
    (entry,) = _entries(cache_dir)
    # An entry that says something else is what a cached run reports, and only that one.
    entry.write_text(entry.read_text(encoding="utf-8").replace("iterrows()", "POISONED"), encoding="utf-8")
    assert "POISONED" in cli("check", ".", "--output-format", "concise").stdout
    assert "POISONED" not in cli("check", ".", "--output-format", "concise", "--no-cache").stdout


def test_the_cache_lives_in_the_project_root_with_a_tag_and_a_gitignore(project, cli, monkeypatch):
    monkeypatch.delenv("GPULINT_CACHE_DIR")
    write(project / "pyproject.toml", "[tool.gpulint]\n")
    write(project / "pkg" / "sales.py", ITERROWS)
    monkeypatch.chdir(project / "pkg")
    cli("check", ".")
    folder = project / ".gpulint_cache"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert _entries(folder)
    assert not (project / "pkg" / ".gpulint_cache").exists()


def test_cache_dir_in_the_configuration(project, cli, monkeypatch):
    monkeypatch.delenv("GPULINT_CACHE_DIR")
    write(project / "pyproject.toml", "[tool.gpulint]\ncache-dir = 'build/lint-cache'\n")
    write(project / "sales.py", ITERROWS)
    cli("check", ".")
    assert _entries(project / "build" / "lint-cache")
    assert not (project / ".gpulint_cache").exists()
    write(project / "pyproject.toml", "[tool.gpulint]\ncache-dir = 3\n")
    assert "`cache-dir` must be a folder name" in cli("check", ".").stderr


def test_clean_removes_the_cache(project, cli, monkeypatch):
    monkeypatch.delenv("GPULINT_CACHE_DIR")
    write(project / "pyproject.toml", "[tool.gpulint]\n")
    write(project / "sales.py", ITERROWS)
    write(project / "sub" / "pyproject.toml", "[tool.gpulint]\n")
    write(project / "sub" / "more.py", ITERROWS)
    cli("check", ".")
    assert (project / ".gpulint_cache").is_dir() and (project / "sub" / ".gpulint_cache").is_dir()
    # A folder of that name that gpulint did not make is left alone.
    write(project / "other" / ".gpulint_cache" / "keep.txt", "mine\n")
    run = cli("clean")
    assert run.code == 0
    assert not (project / ".gpulint_cache").exists() and not (project / "sub" / ".gpulint_cache").exists()
    assert (project / "other" / ".gpulint_cache" / "keep.txt").exists()
    assert cli("clean").code == 0  # nothing left to remove is no error


def test_fix_never_serves_a_fixable_file_from_the_cache(project, cli, cache_dir):
    sales = write(project / "sales.py", ITERROWS)
    assert cli("check", ".").code == 1  # the entry: one unsafe-fixable finding
    run = cli("check", ".", "--fix", "--unsafe-fixes", "--output-format", "concise")
    assert sales.read_text() == ITERROWS_FIXED
    assert "Fixed 1 finding in 1 file." in run.stdout


@pytest.mark.slow
def test_after_fixing_the_entry_describes_the_written_file(project, cli, cache_dir, analyses):
    fill_project(project)
    fixed = cli("check", ".", "--fix", "--unsafe-fixes", "--output-format", "json", "--jobs", "1")
    analyses.clear()
    warm = cli("check", ".", "--unsafe-fixes", "--output-format", "json", "--jobs", "1")
    assert analyses == []
    assert warm.stdout == cli("check", ".", "--unsafe-fixes", "--output-format", "json", "--no-cache").stdout
    assert json.loads(warm.stdout) == json.loads(fixed.stdout)


@pytest.mark.slow
def test_fixing_with_a_warm_cache_is_fixing_without_one(tmp_path, cli, cache_dir, monkeypatch):
    results = {}
    for name, warm in (("cold", False), ("warm", True)):
        root = tmp_path / name
        root.mkdir()
        files = fill_project(root)
        monkeypatch.chdir(root)
        if warm:
            cli("check", ".", "--unsafe-fixes")
        cache = () if warm else ("--no-cache",)
        run = cli("check", ".", "--fix", "--unsafe-fixes", "--output-format", "json", *cache)
        results[name] = ({p.relative_to(root): p.read_bytes() for p in files}, run.code, run.stdout)
    assert results["cold"] == results["warm"]


@pytest.mark.slow
def test_concurrent_runs_share_the_cache_safely(project, cache_dir):
    fill_project(project)
    command = [GPULINT, "check", ".", "--output-format", "json", "--jobs", "1"]
    runs = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    outputs = {run.communicate(timeout=300)[0] for run in runs}
    cold = subprocess.run([*command, "--no-cache"], cwd=project, capture_output=True, timeout=300).stdout
    assert outputs == {cold}
    for entry in _entries(cache_dir):
        json.loads(entry.read_bytes())
    assert not [p for p in cache_dir.rglob(".tmp-*")]  # no temporary file left behind
    assert subprocess.run(command, cwd=project, capture_output=True, timeout=300).stdout == cold


def test_entries_keep_every_field_of_a_diagnostic(project, cache_dir):
    """The entry format names each field; a new field must be added to it (and here)."""
    assert list(Diagnostic.__slots__) == [
        "code",
        "name",
        "message",
        "start",
        "end",
        "fix",
        "url",
        "noqa_line",
        "context",
        "cell",
    ]
    assert list(Fix.__slots__) == ["applicability", "message", "edits", "introduces", "rendered", "declined"]
    assert list(Edit._fields) == ["start", "end", "content", "cell"]
    fill_project(project)
    cold = list(lint_paths(["."], cache=Cache(gpulint.__version__)))
    warm = list(lint_paths(["."], cache=Cache(gpulint.__version__)))
    assert any(d.fix and d.fix.edits and any(e.cell for e in d.fix.edits) for r in cold for d in r.diagnostics)
    for before, after in zip(cold, warm, strict=True):
        assert after.diagnostics == before.diagnostics
        introduced = [[d.fix.introduces for d in r.diagnostics if d.fix] for r in (before, after)]
        assert introduced[0] == introduced[1]
        assert after.warnings == before.warnings
        if isinstance(after.notebook, LineMap) or before.notebook is not None:
            for d in before.diagnostics:
                assert after.notebook.file_line(d.cell, d.start.line) == before.notebook.file_line(d.cell, d.start.line)


def test_a_warm_run_reads_sources_only_to_show_source_lines(project, cli, cache_dir, monkeypatch):
    write(project / "sales.py", ITERROWS)
    cli("check", ".", "--output-format", "json")  # an entry whose fixes are written
    decoded: list[bytes] = []
    real = gpulint.runner.Source.from_bytes

    def counted(data: bytes):
        decoded.append(data)
        return real(data)

    monkeypatch.setattr(gpulint.runner.Source, "from_bytes", staticmethod(counted))
    for fmt in ("concise", "json", "sarif", "github"):
        assert cli("check", ".", "--output-format", fmt).code == 1
    assert decoded == []
    full = cli("check", ".", "--output-format", "full")
    assert len(decoded) == 1 and "for _, row in sales.iterrows():" in full.stdout
