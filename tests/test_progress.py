"""The progress bar: on a terminal only, never with --quiet or JSON/SARIF on standard output."""

from __future__ import annotations

import fcntl
import io
import os
import re
import select
import struct
import sys
import termios

import pytest

import gpulint.progress
from gpulint.cli import main
from gpulint.progress import Progress, is_terminal, wanted

from .conftest import ITERROWS, write


def _run_on_a_terminal(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[str, str]:
    """Run `gpulint ARGS` in this process with standard error on a pseudo-terminal, the bar
    shown at once; what standard output and the terminal received."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal's width
    terminal = os.fdopen(slave, "w", encoding="utf-8")
    stdout = io.StringIO()
    monkeypatch.setattr(gpulint.progress, "DELAY", 0.0)
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setenv("TERM", "xterm")
    assert main(["check", *args]) in (0, 1)
    terminal.flush()
    received = b""
    while select.select([master], [], [], 0.5)[0]:
        chunk = os.read(master, 65536)
        if not chunk:
            break
        received += chunk
    terminal.close()
    os.close(master)
    return stdout.getvalue(), received.decode("utf-8", "replace")


@pytest.fixture
def three_files(project):
    for name in ("a.py", "b.py", "c.py"):
        write(project / name, ITERROWS)
    return project


def test_the_bar_counts_files_and_findings_on_a_terminal(three_files, monkeypatch):
    stdout, terminal = _run_on_a_terminal(monkeypatch, ".", "--output-format", "concise")
    assert "/3 files" in terminal and re.search(r"\d+ findings?", terminal)
    assert stdout.count("GPU102") == 3  # the findings themselves are untouched


@pytest.mark.slow
@pytest.mark.parametrize("options", [["--quiet"], ["--output-format", "json"], ["--output-format", "sarif"]])
def test_no_bar_when_quiet_or_with_machine_output(three_files, monkeypatch, options):
    stdout, terminal = _run_on_a_terminal(monkeypatch, ".", *options)
    assert "files" not in terminal
    assert "GPU102" in stdout


def test_no_bar_when_standard_error_is_no_terminal(three_files, cli, monkeypatch):
    monkeypatch.setattr(gpulint.progress, "DELAY", 0.0)
    run = cli("check", ".", "--output-format", "concise")
    assert "files" not in run.stderr and run.stdout.count("GPU102") == 3


def test_a_terminal_is_told_from_a_pipe():
    master, slave = os.openpty()
    read, write_end = os.pipe()
    try:
        with os.fdopen(os.dup(slave), "w") as tty, os.fdopen(os.dup(write_end), "w") as pipe:
            assert is_terminal(tty) and not is_terminal(pipe)
            assert wanted(tty, quiet=False, machine_output_on_stdout=False)
            assert not wanted(tty, quiet=True, machine_output_on_stdout=False)
            assert not wanted(tty, quiet=False, machine_output_on_stdout=True)
            assert not wanted(pipe, quiet=False, machine_output_on_stdout=False)
    finally:
        for fd in (master, slave, read, write_end):
            os.close(fd)


def test_a_short_run_shows_nothing():
    stream = io.StringIO()
    with Progress(2, enabled=True, stream=stream, delay=3600) as bar:
        bar.advance(1)
        bar.echo(["a finding"], stream)
        bar.advance(0)
        assert bar.findings == 1
    assert stream.getvalue() == "a finding\n"


def test_the_bar_says_how_many_files_and_findings():
    stream = io.StringIO()
    with Progress(4, enabled=True, stream=stream, delay=0) as bar:
        for findings in (2, 0, 1):
            bar.advance(findings)
        bar._bar.refresh()
        assert "3/4 files, 3 findings" in stream.getvalue()
        bar.echo(["a finding"], stream)
    assert "a finding\n" in stream.getvalue()
