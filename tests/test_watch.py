"""`gpulint check --watch`: a run, then one per batch of relevant changes; Ctrl-C exits 0.
The loop is tested with the watcher faked, and once end to end with a real change."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from gpulint import watch as watching

from .conftest import CLEAN, GPULINT, ITERROWS, write


def _loop(batches, run=None):
    runs: list[int] = []
    said: list[str] = []
    code = watching.watch(run or (lambda: runs.append(1)), batches, echo=said.append, clear=lambda: None)
    return code, len(runs), said


def test_runs_once_then_once_per_relevant_batch():
    batches = [
        {(1, "/p/a.py")},
        {(2, "/p/notes.md"), (2, "/p/data.csv")},  # nothing gpulint reads: no run
        {(1, "/p/b.ipynb"), (1, "/p/c.pyi")},  # one batch, one run
        {(1, "/p/pyproject.toml")},  # the configuration may have changed
    ]
    code, runs, said = _loop(iter(batches))
    assert code == 0
    assert runs == 4
    assert said == ["Starting linter in watch mode...", *["File change detected..."] * 3]


@pytest.mark.parametrize(
    "path, relevant",
    [
        ("a.py", True),
        ("a.pyi", True),
        ("n.ipynb", True),
        ("sub/pyproject.toml", True),
        ("a.pyc", False),
        ("setup.cfg", False),
        ("README.md", False),
        ("a.py.orig", False),
    ],
)
def test_which_changes_are_relevant(path, relevant):
    assert watching.relevant(path) is relevant


def test_ctrl_c_while_waiting_or_running_exits_0():
    def interrupted():
        yield {(1, "/p/a.py")}
        raise KeyboardInterrupt

    assert _loop(interrupted())[:2] == (0, 2)

    def run():
        raise KeyboardInterrupt

    assert _loop(iter([]), run)[0] == 0


def test_cli_watch_with_a_fake_watcher(project, cli, monkeypatch):
    path = write(project / "sales.py", ITERROWS)
    seen: list[list[str]] = []

    def changes(paths):
        seen.append(list(paths))
        path.write_text(CLEAN)
        yield {(2, str(path))}

    monkeypatch.setattr(watching, "file_changes", changes)
    monkeypatch.setattr(watching, "available", lambda: True)
    run = cli("check", "--watch", "--output-format", "concise", "sales.py")
    assert run.code == 0  # a watch ends with 0 whatever the runs found
    assert seen == [["sales.py"]]
    first, _, second = run.stdout.partition("File change detected...")
    assert first.startswith("Starting linter in watch mode...")
    assert "GPU102" in first and "GPU102" not in second
    assert "All checks passed." in second


def test_cli_watch_also_watches_the_config_file_named(project, cli, monkeypatch):
    write(project / "sales.py", ITERROWS)
    write(project / "conf" / "pyproject.toml", "[tool.gpulint]\n")
    seen = []
    monkeypatch.setattr(watching, "file_changes", lambda paths: seen.append(list(paths)) or iter([]))
    monkeypatch.setattr(watching, "available", lambda: True)
    assert cli("check", "--watch", "--config", "conf/pyproject.toml", "sales.py").code == 0
    assert seen == [["sales.py", "conf/pyproject.toml"]]


def test_cli_watch_errors_exit_2(project, cli, monkeypatch):
    write(project / "sales.py", ITERROWS)
    run = cli("check", "--watch", "missing.py")
    assert run.code == 2 and "no such file or folder: missing.py" in run.stderr
    run = cli("check", "--watch", "-")
    assert run.code == 2 and "--watch works on files, not on standard input" in run.stderr
    run = cli("check", "--watch", "--show-settings", "sales.py")
    assert run.code == 2 and "cannot be combined" in run.stderr
    monkeypatch.setattr(watching, "available", lambda: False)
    run = cli("check", "--watch", "sales.py")
    assert run.code == 2 and run.errors == [f"error: {watching.MISSING}"]


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="sends SIGINT")
def test_real_watch_relints_on_a_change_and_ctrl_c_exits_0(tmp_path):
    pytest.importorskip("watchfiles")
    path = write(tmp_path / "sales.py", CLEAN)
    out = tmp_path / "out.txt"
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [GPULINT, "check", "--watch", "--no-cache", "--output-format", "concise", "."],
            cwd=tmp_path,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_COLOR": "1"},
        )
        try:
            _wait_for(out, "All checks passed.", process)
            time.sleep(0.5)  # the watcher is set up right after the first run
            path.write_text(ITERROWS)
            _wait_for(out, "GPU102", process)
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=20) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    text = out.read_text()
    assert "File change detected..." in text
    assert "Traceback" not in text


def _wait_for(out: Path, needle: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while needle not in out.read_text():
        assert process.poll() is None, out.read_text()
        assert time.monotonic() < deadline, f"{needle!r} not printed in {timeout} s: {out.read_text()!r}"
        time.sleep(0.1)
