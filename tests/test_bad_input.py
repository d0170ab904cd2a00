"""Bad input never produces a traceback: each problem is one clear line (or a GPU001
finding), the exit code says so, and the other files in the run are still linted."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from gpulint import lint_source

from .conftest import GPULINT, ITERROWS, ITERROWS_POSITION, Run, write

LINE, COL = ITERROWS_POSITION
OTHER = f"ok.py:{LINE}:{COL}: GPU102"


def _check_with_good_file(project, cli, *bad: str) -> Run:
    """Lint the bad paths next to a good file; the good file's finding must still appear."""
    write(project / "ok.py", ITERROWS)
    run = cli("check", *bad, "ok.py")
    assert any(line.startswith(OTHER) for line in run.lines), run.stdout + run.stderr
    return run


def _one_error(run: Run, name: str) -> str:
    errors = [line for line in run.errors if line.startswith("error:")]
    assert len(errors) == 1, run.errors
    assert errors[0].startswith(f"error: {name}: ")
    assert "\n" not in errors[0]
    return errors[0][len(f"error: {name}: ") :]


# -- syntax errors become GPU001 findings ------------------------------------------------------


@pytest.mark.parametrize(
    "source, line, col",
    [
        ("import pandas as pd\nvalue = (1,\n", 2, 9),
        ("def f(:\n    pass\n", 1, 7),
        ("x = 1\nif x\n    pass\n", 2, 5),
        ("def f():\nreturn 1\n", 2, 1),
        ("x = 'éé' + 'abc\n", 1, 12),
        ("s = 'café' +\n", 1, 13),
        ("name = 'é'; 1 +* 2\n", 1, 16),
    ],
)
def test_syntax_error_is_gpu001_at_its_position(source, line, col):
    (diagnostic,) = lint_source(source, "broken.py")
    assert diagnostic.code == "GPU001" and diagnostic.name == "syntax-error"
    assert diagnostic.message.startswith("SyntaxError: ")
    assert (diagnostic.start.line, diagnostic.start.col + 1) == (line, col)


def test_syntax_error_through_the_cli(project, cli):
    write(project / "broken.py", "import pandas as pd\nvalue = (1,\n")
    run = _check_with_good_file(project, cli, "broken.py")
    assert run.code == 1
    assert "broken.py:2:9: GPU001 SyntaxError: '(' was never closed" in run.lines
    assert run.stderr == ""


def test_syntax_error_in_a_fix_run_is_left_alone(project, cli):
    path = write(project / "broken.py", "def f(:\n")
    run = cli("check", "--fix", "--unsafe-fixes", "broken.py")
    assert run.code == 1
    assert path.read_text() == "def f(:\n"


# -- undecodable and binary files ---------------------------------------------------------------


def test_non_utf8_file_without_cookie(project, cli):
    (project / "legacy.py").write_bytes(b'import pandas as pd\nlabel = "caf\xe9"\n')
    run = _check_with_good_file(project, cli, "legacy.py")
    assert run.code == 2
    message = _one_error(run, "legacy.py")
    assert message.startswith("cannot decode as utf-8 (byte 0xe9 on line 2)")
    assert "PEP 263" in message


def test_latin1_file_with_cookie_is_linted(project, cli):
    source = "# -*- coding: latin-1 -*-\n" + ITERROWS.replace("return out", "return out  # café")
    (project / "legacy.py").write_bytes(source.encode("latin-1"))
    run = cli("check", "legacy.py")
    assert run.code == 1
    assert run.lines[0].startswith(f"legacy.py:{LINE + 1}:{COL}: GPU102")
    assert run.stderr == ""


def test_cookie_on_line_two_and_bom(project, cli):
    (project / "two.py").write_bytes(
        b"#!/usr/bin/env python\n# coding: cp1252\n" + ITERROWS.encode() + b"# \x80 euro\n"
    )
    (project / "bom.py").write_bytes(b"\xef\xbb\xbf" + ITERROWS.encode())
    run = cli("check", "two.py", "bom.py")
    assert run.code == 1 and run.stderr == ""
    assert [line.split(":")[:2] for line in run.lines[:2]] == [["two.py", str(LINE + 2)], ["bom.py", str(LINE)]]


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"# -*- coding: klingon -*-\nx = 1\n", "unknown encoding 'klingon' declared on line 1"),
        (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "UTF-8 byte order mark but 'iso8859-1' declared"),
        (b"x = 1\n\x00\x01\x02binary", "binary file (contains NUL bytes), not Python source"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file (contains NUL bytes), not Python source"),
    ],
)
def test_undecodable_files_are_one_line(project, cli, data, expected):
    (project / "weird.py").write_bytes(data)
    run = _check_with_good_file(project, cli, "weird.py")
    assert run.code == 2
    assert _one_error(run, "weird.py") == expected


def test_bad_files_found_by_a_folder_walk(project, cli):
    (project / "pkg").mkdir()
    (project / "pkg" / "blob.py").write_bytes(b"\x00\x00")
    (project / "pkg" / "legacy.py").write_bytes(b"x = '\xff'\n")
    write(project / "pkg" / "sales.py", ITERROWS)
    run = cli("check", "pkg")
    assert run.code == 2
    assert run.lines[0].startswith(f"pkg/sales.py:{LINE}:{COL}: GPU102")
    assert sorted(line.split(":")[1].strip() for line in run.errors if line.startswith("error:")) == [
        "pkg/blob.py",
        "pkg/legacy.py",
    ]
    assert run.lines[-1].startswith("2 files could not be checked: pkg/blob.py (")
    assert ", pkg/legacy.py (" in run.lines[-1]


# -- bad paths -------------------------------------------------------------------------------------


def test_missing_path(project, cli):
    run = _check_with_good_file(project, cli, "nowhere.py")
    assert run.code == 2
    assert _one_error(run, "nowhere.py") == "no such file or directory"
    assert "All checks passed." not in run.lines


def test_file_with_trailing_slash(project, cli):
    write(project / "sales.py", ITERROWS)
    run = _check_with_good_file(project, cli, "sales.py/")
    assert run.code == 2
    assert _one_error(run, "sales.py/") == "not a directory"
    assert not any(line.startswith("sales.py:") for line in run.lines)


def test_path_through_a_file(project, cli):
    write(project / "sales.py", ITERROWS)
    run = _check_with_good_file(project, cli, "sales.py/inner.py")
    assert run.code == 2
    assert _one_error(run, "sales.py/inner.py") == "not a directory"


def test_directory_named_like_a_file_is_walked(project, cli):
    write(project / "analysis.py" / "step.py", ITERROWS)
    run = cli("check", "analysis.py")
    assert run.code == 1
    assert run.lines[0].startswith(f"analysis.py/step.py:{LINE}:{COL}: GPU102")


def test_directory_named_like_a_file_inside_a_walk_is_not_read_as_a_file(project, cli):
    write(project / "pkg" / "data.py" / "inner.py", ITERROWS)
    run = cli("check", "pkg")
    assert run.code == 1
    assert run.lines[0].startswith("pkg/data.py/inner.py:")
    assert run.stderr == ""


def test_file_that_cannot_be_read(project, cli):
    """An honest unreadable file: read() fails with EIO on a link to /proc/self/mem."""
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("needs Linux /proc")
    os.symlink("/proc/self/mem", project / "device.py")
    run = _check_with_good_file(project, cli, "device.py")
    assert run.code == 2
    assert _one_error(run, "device.py") == "Input/output error"


def _unprivileged() -> list[str]:
    """A command prefix under which file permissions apply, even to root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, which reads any file, and setpriv is missing to drop that power")
    return [setpriv, "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search"]


def test_permission_denied_file_and_folder(project):
    prefix = _unprivileged()
    write(project / "ok.py", ITERROWS)
    locked = write(project / "locked.py", ITERROWS)
    locked_dir = project / "private"
    write(locked_dir / "inner.py", ITERROWS)
    locked.chmod(0)
    locked_dir.chmod(0)
    try:
        probe = subprocess.run([*prefix, "cat", str(locked)], capture_output=True)
        if probe.returncode == 0:
            pytest.skip("running as root and dropping the capability to read any file had no effect")
        process = subprocess.run(
            [*prefix, GPULINT, "check", "locked.py", "private", "ok.py"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        locked.chmod(0o644)
        locked_dir.chmod(0o755)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr
    assert any(line.startswith(OTHER) for line in process.stdout.splitlines())
    errors = [line for line in process.stderr.splitlines() if line.startswith("error:")]
    assert sorted(errors) == ["error: locked.py: permission denied", "error: private: permission denied"]


def _as_unprivileged(project, *args: str, locked: list) -> subprocess.CompletedProcess:
    """`gpulint ARGS` where file permissions apply; `locked` are (path, mode) set for the run."""
    prefix = _unprivileged()
    saved = [(path, path.stat().st_mode) for path, _ in locked]
    for path, mode in locked:
        path.chmod(mode)
    try:
        probe = subprocess.run([*prefix, "ls", str(locked[0][0])], capture_output=True)
        if locked[0][1] == 0 and probe.returncode == 0:
            pytest.skip("running as root and dropping the capability to read any file had no effect")
        return subprocess.run([*prefix, GPULINT, *args], cwd=project, capture_output=True, text=True, timeout=60)
    finally:
        for path, mode in saved:
            path.chmod(mode)


def test_unsearchable_folder_inside_a_walk(project):
    """The walk cannot enter `pkg/private` (nor look for a pyproject.toml in it): one error
    for it, every other file still linted."""
    write(project / "pkg" / "ok.py", ITERROWS)
    write(project / "pkg" / "private" / "inner.py", ITERROWS)
    process = _as_unprivileged(project, "check", "pkg", locked=[(project / "pkg" / "private", 0)])
    assert "Traceback" not in process.stderr and "internal error" not in process.stderr, process.stderr
    assert process.returncode == 2
    assert [line for line in process.stderr.splitlines() if line.startswith("error:")] == [
        "error: pkg/private: permission denied"
    ]
    assert any(line.startswith(f"pkg/ok.py:{LINE}:{COL}: GPU102") for line in process.stdout.splitlines())


def test_fix_in_a_read_only_folder(project):
    """No temporary file can be created next to `locked/sales.py`: it is reported, not
    fixed; the file elsewhere is fixed."""
    locked = write(project / "locked" / "sales.py", ITERROWS)
    other = write(project / "other.py", ITERROWS)
    process = _as_unprivileged(
        project, "check", "--fix", "--unsafe-fixes", "locked/sales.py", "other.py", locked=[(project / "locked", 0o555)]
    )
    if process.returncode == 0:
        pytest.skip("running as root and dropping the capability to write anywhere had no effect")
    assert "Traceback" not in process.stderr and "internal error" not in process.stderr, process.stderr
    assert process.returncode == 2
    assert [line for line in process.stderr.splitlines() if line.startswith("error:")] == [
        "error: locked/sales.py: not written: cannot create a temporary file next to it: permission denied"
    ]
    assert locked.read_text() == ITERROWS
    assert other.read_text() != ITERROWS
    assert "Fixed 1 finding in 1 file." in process.stdout.splitlines()


def test_stdin_binary(project, cli):
    run = cli("check", "-", "--stdin-filename", "x.py", input=b"\x00\x01")
    assert run.code == 2
    assert _one_error(run, "x.py") == "binary file (contains NUL bytes), not Python source"


def test_broken_pyproject_is_one_line(project, cli):
    write(project / "pyproject.toml", "[tool.gpulint\n")
    write(project / "ok.py", ITERROWS)
    run = cli("check", "ok.py")
    assert run.code == 2
    assert len(run.errors) == 1 and "pyproject.toml: invalid TOML" in run.errors[0]


@pytest.mark.slow
def test_many_bad_inputs_in_one_real_run(project, gpulint_exe):
    write(project / "ok.py", ITERROWS)
    write(project / "broken.py", "def f(:\n")
    (project / "blob.py").write_bytes(b"\x00")
    (project / "legacy.py").write_bytes(b"x = '\xe9'\n")
    run = gpulint_exe("check", "ok.py", "broken.py", "blob.py", "legacy.py", "gone.py", "ok.py/", cwd=project)
    assert run.code == 2
    assert any(line.startswith(OTHER) for line in run.lines)
    assert "broken.py:1:7: GPU001 SyntaxError: invalid syntax" in run.lines
    errors = sorted(line.split(":")[1].strip() for line in run.errors if line.startswith("error:"))
    assert errors == ["blob.py", "gone.py", "legacy.py", "ok.py/"]
