"""The cache's stat shortcut: an unchanged file is served without being read, a changed one
is linted again even when its size and modification time were kept, and a file that
changed too recently to be told apart by its times is hashed instead."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import gpulint.cache
import gpulint.runner
from gpulint.cache import FORMAT

from .conftest import ITERROWS, fill_project, write

SETTLED = -(10**12)  # every file counts as settled: its stat is recorded however recent it is


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files a run reads, by name."""
    seen: list[str] = []
    real = gpulint.runner.read_bytes

    def counted(path, *args, **kwargs):
        seen.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(gpulint.runner, "read_bytes", counted)
    return seen


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = gpulint.runner.process_source

    def counted(source, display, *args, **kwargs):
        seen.append(Path(display).name)
        return real(source, display, *args, **kwargs)

    monkeypatch.setattr(gpulint.runner, "process_source", counted)
    return seen


def _entry(folder: Path) -> dict:
    (entry,) = [p for p in folder.rglob("*") if p.is_file() and p.parent.parent.name == FORMAT]
    return json.loads(entry.read_bytes())


def test_a_warm_run_reads_no_unchanged_file(project, cli, cache_dir, reads, monkeypatch):
    monkeypatch.setattr(gpulint.cache, "RACY_NS", SETTLED)
    files = fill_project(project)
    cold = cli("check", ".", "--jobs", "1", "--output-format", "concise")
    assert len(reads) == len(files)
    reads.clear()
    warm = cli("check", ".", "--jobs", "1", "--output-format", "concise")
    assert reads == ["latin.py"]  # the file that cannot be decoded has no entry
    assert (warm.code, warm.stdout, warm.stderr) == (cold.code, cold.stdout, cold.stderr)
    # The full output shows source lines: only the files with findings are read for them.
    full = cli("check", ".", "--jobs", "1", "--output-format", "full", "--no-cache")
    reads.clear()
    assert cli("check", ".", "--jobs", "1", "--output-format", "full").stdout == full.stdout
    assert "latin.py" in reads and len(reads) < len(files)
    assert all(f"{name}:" in full.stdout for name in reads if name != "latin.py")


@pytest.mark.parametrize("same_size", [True, False])
def test_a_change_that_keeps_the_modification_time_is_seen(project, cli, cache_dir, analyses, monkeypatch, same_size):
    monkeypatch.setattr(gpulint.cache, "RACY_NS", SETTLED)
    sales = write(project / "sales.py", ITERROWS)
    assert cli("check", ".", "--jobs", "1", "--output-format", "concise").code == 1
    recorded = _entry(cache_dir)["stat"]
    assert recorded is not None
    before = os.stat(sales)
    changed = ITERROWS.replace("iterrows()", "itertuples") if same_size else "x = 1\n"
    assert (len(changed) == len(ITERROWS)) is same_size
    for _ in range(200):  # until the status-change time moves on (a coarse clock may take a tick)
        sales.write_text(changed, encoding="utf-8")
        os.utime(sales, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `touch -r` or `cp -p` would
        if os.stat(sales).st_ctime_ns != before.st_ctime_ns:
            break
        time.sleep(0.01)
    after = os.stat(sales)
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
    analyses.clear()
    run = cli("check", ".", "--jobs", "1", "--output-format", "concise")
    assert analyses == ["sales.py"]
    assert run.code == 0 and "GPU102" not in run.stdout


def test_a_file_changed_just_before_it_was_read_is_hashed_next_time(
    project, cli, cache_dir, reads, analyses, monkeypatch
):
    write(project / "sales.py", ITERROWS)  # just written: within `RACY_NS` of the run
    cli("check", ".", "--jobs", "1")
    assert _entry(cache_dir)["stat"] is None
    reads.clear()
    analyses.clear()
    cli("check", ".", "--jobs", "1", "--output-format", "concise")
    assert reads == ["sales.py"] and analyses == []  # read and hashed, served from the entry
    # Once the file has settled, the hit records its stat: the next run does not read it.
    monkeypatch.setattr(gpulint.cache, "RACY_NS", SETTLED)
    cli("check", ".", "--jobs", "1", "--output-format", "concise")
    assert _entry(cache_dir)["stat"] is not None
    reads.clear()
    cli("check", ".", "--jobs", "1", "--output-format", "concise")
    assert reads == [] and analyses == []


def test_a_warm_notebook_shows_its_findings_without_being_parsed(project, cli, cache_dir, monkeypatch):
    monkeypatch.setattr(gpulint.cache, "RACY_NS", SETTLED)
    fill_project(project)
    cold = cli("check", ".", "--jobs", "1", "--output-format", "full", "--show-fixes")
    assert ".ipynb:cell " in cold.stdout
    parsed: list[str] = []

    from gpulint import notebook

    class Counted(notebook.Notebook):
        def __init__(self, text: str) -> None:
            parsed.append(text)
            super().__init__(text)

    monkeypatch.setattr(notebook, "Notebook", Counted)  # the runner imports it where needed
    warm = cli("check", ".", "--jobs", "1", "--output-format", "full", "--show-fixes")
    assert parsed == []
    assert (warm.code, warm.stdout, warm.stderr) == (cold.code, cold.stdout, cold.stderr)


@pytest.mark.slow
def test_a_warm_run_lists_findings_as_a_cold_run_does(project, cli, cache_dir, reads, monkeypatch):
    monkeypatch.setattr(gpulint.cache, "RACY_NS", SETTLED)
    fill_project(project)
    styles = [("full",), ("full", "--show-fixes"), ("concise",)]
    cold = {style: cli("check", ".", "--jobs", "1", "--output-format", *style, "--no-cache").stdout for style in styles}
    cli("check", ".", "--jobs", "1")  # fills the cache
    for style in styles:  # listed from the entry's findings, as a lint's findings are
        reads.clear()
        assert cli("check", ".", "--jobs", "1", "--output-format", *style).stdout == cold[style]
        if style == ("concise",):
            assert reads == ["latin.py"]  # the file that cannot be decoded has no entry
        else:  # the source lines of the files with findings, and the file with no entry
            assert "latin.py" in reads and all(f"{name}:" in cold[style] for name in reads if name != "latin.py")
    # An entry keeps no listing: nothing but its findings is shown.
    for entry in cache_dir.rglob("*"):
        if entry.is_file() and entry.parent.parent.name == FORMAT:
            assert "rendered" not in json.loads(entry.read_bytes())
