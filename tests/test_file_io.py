"""Reading and writing files: only regular files are read (a named pipe never blocks a run),
a fix never replaces a read-only file, every operating-system error is one `error:` line for
its file while the rest of the run goes on, and a write racing another program never loses
what that program wrote."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import gpulint.files
from gpulint.files import PathError, read_bytes, write_atomically

from .conftest import GPULINT, ITERROWS, ITERROWS_FIXED, ITERROWS_POSITION, write

LINE, COL = ITERROWS_POSITION
FINDING = f":{LINE}:{COL}: GPU102"


def _errors(run) -> list[str]:
    return [line for line in run.errors if line.startswith("error:")]


def _fix(cli, *paths: str):
    return cli("check", "--fix", "--unsafe-fixes", *paths)


def _real_run(*args: str, cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    """`gpulint ARGS` as a process with a time limit: a run that blocks fails the test
    instead of hanging it."""
    try:
        return subprocess.run([GPULINT, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"gpulint {' '.join(args)} did not finish within {timeout} s")


# -- fixes that cannot be written ------------------------------------------------------------------


def test_no_temporary_file_is_one_error_and_the_run_goes_on(project, cli, monkeypatch):
    """A folder where no file can be created (read-only): the file there is reported with
    its finding, the other file is fixed and counted."""
    locked = write(project / "locked" / "sales.py", ITERROWS)
    other = write(project / "other.py", ITERROWS)
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if Path(dir).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)  # what gpulint.files writes through
    run = _fix(cli, "locked/sales.py", "other.py")
    assert run.code == 2
    assert _errors(run) == [
        "error: locked/sales.py: not written: cannot create a temporary file next to it: permission denied"
    ]
    assert locked.read_text() == ITERROWS
    assert other.read_text() == ITERROWS_FIXED
    assert any(line.startswith("locked/sales.py" + FINDING) for line in run.lines)
    assert "Fixed 1 finding in 1 file." in run.lines


def test_read_only_file_is_refused_and_its_findings_reported(project, cli):
    path = write(project / "sales.py", ITERROWS)
    other = write(project / "other.py", ITERROWS)
    path.chmod(0o444)
    run = _fix(cli, "sales.py", "other.py")
    assert run.code == 2
    assert _errors(run) == ["error: sales.py: not written: file is read-only"]
    assert path.read_text() == ITERROWS
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert any(line.startswith("sales.py" + FINDING) for line in run.lines)
    assert other.read_text() == ITERROWS_FIXED


def test_read_only_file_behind_a_symlink_is_refused(project, cli):
    real = write(project / "real.py", ITERROWS)
    real.chmod(0o444)
    os.symlink("real.py", project / "link.py")
    run = _fix(cli, "link.py")
    assert _errors(run) == ["error: link.py: not written: file is read-only"]
    assert real.read_text() == ITERROWS


def test_writable_file_keeps_its_mode(project, cli):
    path = write(project / "sales.py", ITERROWS)
    path.chmod(0o640)
    assert _fix(cli, "sales.py").code == 0
    assert path.read_text() == ITERROWS_FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_any_os_error_while_processing_is_one_error(project, cli, monkeypatch):
    """Whatever the operating system refuses on the way (here: finding the configuration of
    one file) is that file's error line; the other files are still linted."""
    write(project / "a.py", ITERROWS)
    write(project / "b.py", ITERROWS)
    real = gpulint.runner.ConfigResolver.for_path

    def for_path(self, path, is_dir=None):
        if path.name == "a.py":
            raise IsADirectoryError(21, "Is a directory")
        return real(self, path, is_dir)

    monkeypatch.setattr(gpulint.runner.ConfigResolver, "for_path", for_path)
    run = cli("check", "a.py", "b.py")
    assert run.code == 2
    assert _errors(run) == ["error: a.py: is a directory"]
    assert any(line.startswith("b.py" + FINDING) for line in run.lines)


# -- only regular files are read -------------------------------------------------------------------


def _read_within(path: Path, seconds: float = 10) -> object:
    """`read_bytes(path)` in a helper thread: what it returned or raised, or a failed test
    when it blocks."""
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(read_bytes(path))
        except Exception as error:  # noqa: BLE001 - handed back to the test
            outcome.append(error)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        pytest.fail(f"reading {path.name} blocked for {seconds} s")
    return outcome[0]


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


@needs_fifo
def test_named_pipe_on_the_command_line_is_an_error_not_a_hang(project):
    write(project / "ok.py", ITERROWS)
    os.mkfifo(project / "pipe.py")
    process = _real_run("check", "pipe.py", "ok.py", cwd=project)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr
    assert [line for line in process.stderr.splitlines() if line.startswith("error:")] == [
        "error: pipe.py: not a regular file (a named pipe)"
    ]
    assert any(line.startswith("ok.py" + FINDING) for line in process.stdout.splitlines())


@needs_fifo
def test_named_pipe_found_in_a_folder_is_skipped(project):
    write(project / "pkg" / "ok.py", ITERROWS)
    os.mkfifo(project / "pkg" / "pipe.py")
    process = _real_run("check", "--fix", "pkg", cwd=project)
    assert process.returncode == 1, process.stderr
    assert process.stderr == ""
    assert any(line.startswith("pkg/ok.py" + FINDING) for line in process.stdout.splitlines())
    assert not any("pipe.py" in line for line in process.stdout.splitlines())


@needs_fifo
def test_named_pipe_as_the_configuration_is_an_error_not_a_hang(project):
    write(project / "ok.py", ITERROWS)
    os.mkfifo(project / "settings.toml")
    process = _real_run("check", "--config", "settings.toml", "ok.py", cwd=project)
    assert process.returncode == 2
    assert process.stderr.splitlines() == ["error: settings.toml: cannot read: not a regular file (a named pipe)"]


@needs_fifo
def test_reading_never_blocks_on_a_pipe(tmp_path):
    """Even called directly (a name that became a pipe after the folder walk), reading a
    named pipe with no writer returns at once with an error."""
    os.mkfifo(tmp_path / "pipe.py")
    outcome = _read_within(tmp_path / "pipe.py")
    assert isinstance(outcome, PathError) and str(outcome) == "not a regular file (a named pipe)"


@needs_fifo
def test_pipe_swapped_in_after_the_type_check_is_refused(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "pipe.py")
    regular = os.stat(__file__)
    real_stat = os.stat
    monkeypatch.setattr(
        gpulint.files.os,
        "stat",
        lambda path, *a, **k: regular if str(path).endswith("pipe.py") else real_stat(path, *a, **k),
    )
    outcome = _read_within(tmp_path / "pipe.py")
    assert isinstance(outcome, PathError) and str(outcome) == "not a regular file (a named pipe)"


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets here")
def test_sockets_named_or_found(project, cli):
    write(project / "pkg" / "ok.py", ITERROWS)
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind("pkg/server.py")
        run = cli("check", "pkg", "pkg/server.py")
    finally:
        server.close()
    assert run.code == 2
    assert _errors(run) == ["error: pkg/server.py: not a regular file (a socket)"]
    assert any(line.startswith("pkg/ok.py" + FINDING) for line in run.lines)


def test_device_named_on_the_command_line(project, cli):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    write(project / "ok.py", ITERROWS)
    run = cli("check", "/dev/null", "ok.py")
    assert run.code == 2
    assert _errors(run) == ["error: /dev/null: not a regular file (a character device)"]


def test_symlink_loop_in_a_folder_is_one_error(project, cli):
    write(project / "pkg" / "ok.py", ITERROWS)
    os.symlink("loop.py", project / "pkg" / "loop.py")
    run = cli("check", "pkg")
    assert run.code == 2
    (error,) = _errors(run)
    assert error.startswith("error: pkg/loop.py: ") and "symbolic links" in error
    assert any(line.startswith("pkg/ok.py" + FINDING) for line in run.lines)


# -- writes racing another program -----------------------------------------------------------------


def test_write_landing_before_the_rename_is_put_back(tmp_path, monkeypatch):
    """Another program appends to the file after the last comparison and before the rename
    (so into the file the rename takes away): the fix is not written, the line stays."""
    path = tmp_path / "sales.py"
    path.write_bytes(b"x = 1\n")
    real_replace = os.replace
    calls = []

    def replace_after_an_append(source, target):
        if not calls:  # the fix's rename, not the one that puts the content back
            with open(target, "ab") as editor:
                editor.write(b"# saved by an editor\n")
        calls.append(source)
        real_replace(source, target)

    monkeypatch.setattr(gpulint.files.os, "replace", replace_after_an_append)
    with pytest.raises(PathError, match="^not written: the file changed on disk"):
        write_atomically(path, b"x = 2\n", b"x = 1\n")
    assert path.read_bytes() == b"x = 1\n# saved by an editor\n"
    assert [p.name for p in tmp_path.iterdir()] == ["sales.py"]


def test_write_through_a_descriptor_opened_before_the_rename_is_put_back(tmp_path, monkeypatch):
    """A program that opened the file before the rename and writes just after it."""
    path = tmp_path / "sales.py"
    path.write_bytes(b"x = 1\n")
    real_replace = os.replace
    calls = []

    def replace_during_a_write(source, target):
        if calls:
            return real_replace(source, target)
        calls.append(source)
        editor = open(target, "ab")  # noqa: SIM115 - held open across the replace, on purpose
        real_replace(source, target)
        editor.write(b"# appended\n")
        editor.close()

    monkeypatch.setattr(gpulint.files.os, "replace", replace_during_a_write)
    with pytest.raises(PathError, match="the file changed on disk"):
        write_atomically(path, b"x = 2\n", b"x = 1\n")
    assert path.read_bytes() == b"x = 1\n# appended\n"


def test_writer_that_never_pauses_is_reported_not_given_up_in_silence(tmp_path, monkeypatch):
    """A program that appends during every rename wins every round of putting the content
    back: after the time allowed, the write is reported as one that may have lost lines."""
    path = tmp_path / "sales.py"
    path.write_bytes(b"x = 1\n")
    real_replace = os.replace
    appended = []

    def replace_during_a_write(source, target):
        editor = open(target, "ab")  # noqa: SIM115 - held open across the replace, on purpose
        real_replace(source, target)
        editor.write(f"# line {len(appended)}\n".encode())
        editor.close()
        appended.append(source)

    monkeypatch.setattr(gpulint.files, "_RESTORE_TIMEOUT", 0.2)
    monkeypatch.setattr(gpulint.files.os, "replace", replace_during_a_write)
    with pytest.raises(PathError, match="did not pause for .* some of what it wrote may be missing$"):
        write_atomically(path, b"x = 2\n", b"x = 1\n")
    assert len(appended) > 2
    lines = path.read_text().splitlines()
    assert lines[0] == "x = 1" and lines[1:] == [f"# line {n}" for n in range(len(appended) - 1)]
    assert [p.name for p in tmp_path.iterdir()] == ["sales.py"]


def test_file_saved_by_another_program_before_the_rename_is_not_replaced(tmp_path, monkeypatch):
    """An editor that saves by renaming a new file over the old one, between the first look
    and the last one: its save stands."""
    path = tmp_path / "sales.py"
    path.write_bytes(b"x = 1\n")
    real_stat = os.stat
    resolved = str(path.resolve())
    looks = []

    def stat(name, *args, **kwargs):
        if os.fspath(name) == resolved:
            looks.append(name)
            if len(looks) == 2:  # the last look before the rename
                saved = tmp_path / "saved"
                saved.write_bytes(b"x = 3\n")
                os.replace(saved, path)
        return real_stat(name, *args, **kwargs)

    monkeypatch.setattr(gpulint.files.os, "stat", stat)
    with pytest.raises(PathError, match="the file changed on disk"):
        write_atomically(path, b"x = 2\n", b"x = 1\n")
    assert len(looks) == 2
    assert path.read_bytes() == b"x = 3\n"
    assert [p.name for p in tmp_path.iterdir()] == ["sales.py"]


APPENDER = r"""
import os, sys, time
path, stop = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 30
count = 0
while not os.path.exists(stop) and time.monotonic() < deadline:
    with open(path, "a") as editor:
        editor.write(f"# line {count}\n")
    count += 1
print(count)
"""


def test_no_line_appended_meanwhile_is_ever_lost(tmp_path):
    """Stress: another process appends numbered lines as fast as it can while the file is
    rewritten a few hundred times. Every line it wrote must be in the file at the end, once
    and in order (each rewrite is either refused, or keeps what the file held)."""
    path = tmp_path / "notes.py"
    stop = tmp_path / "stop"
    path.write_bytes(b"x = 0\n")
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), str(stop)], stdout=subprocess.PIPE, text=True
    )
    written = refused = 0
    try:
        while b"# line 20\n" not in path.read_bytes():  # the appender has started
            time.sleep(0.01)
        for round_ in range(200):
            expected = path.read_bytes()
            try:
                write_atomically(path, expected + f"# rewrite {round_}\n".encode(), expected)
                written += 1
            except PathError as error:
                assert str(error) == "not written: the file changed on disk while it was being fixed"
                refused += 1
    finally:
        stop.touch()
        count = int(appender.communicate(timeout=60)[0])
    numbers = [int(n) for n in re.findall(r"^# line (\d+)$", path.read_text(), re.MULTILINE)]
    missing = sorted(set(range(count)) - set(numbers))
    assert missing == [], f"{len(missing)} of {count} appended lines lost ({written} rewrites, {refused} refused)"
    assert numbers == list(range(count))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.py", "stop"]
