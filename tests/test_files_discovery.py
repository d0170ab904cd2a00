"""Finding the files under a folder: .gitignore files from the repository root down, the
configuration's `exclude`, symbolic links, files that are not regular; each folder's
configuration and ignore files looked up once, and an excluded folder never entered."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import gpulint.config
import gpulint.files
from gpulint.config import ConfigResolver, Overrides
from gpulint.files import discover
from gpulint.runner import FileResult, plan

from .conftest import write

CODE = "x = 1\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository inside a folder whose .gitignore is not the repository's business."""
    write(tmp_path / ".gitignore", "above.py\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / ".gitignore", "generated/\n*_tmp.py\n!keep_tmp.py\n/real/hidden.py\n")
    write(repo / "src" / "nested" / ".gitignore", "local.py\n")
    for name in (
        "a.py",
        "above.py",
        "x_tmp.py",
        "keep_tmp.py",
        "notes.txt",
        "src/b.py",
        "src/nested/local.py",
        "src/nested/c.py",
        "generated/g.py",
        "build/x.py",
        "real/r.py",
        "real/hidden.py",
        "vendored/v.py",
        "sub/s.py",
        "sub/inner/t.py",
        "src/book.ipynb",
    ):
        write(repo / name, CODE)
    (repo / "sub" / ".git").mkdir()  # a repository of its own, with its own .gitignore
    write(repo / "sub" / ".gitignore", "inner/\n")
    write(repo / "pyproject.toml", '[tool.gpulint]\nexclude = ["vendored/", "src/b.py"]\n')
    os.symlink("../a.py", repo / "src" / "link_a.py")  # the same file again: linted once
    os.symlink("real", repo / "linkdir")  # a link to a folder is not entered
    os.symlink("missing.py", repo / "broken.py")  # reading it reports what is wrong
    if hasattr(os, "mkfifo"):
        os.mkfifo(repo / "pipe.py")  # never source: skipped without being opened
    monkeypatch.chdir(repo)
    return repo


def _found(*paths: str, **overrides) -> list[str]:
    work = plan(list(paths), ConfigResolver(Overrides(**overrides)))
    return [str(item.display) if isinstance(item, FileResult) else str(item[0].path) for item in work]


def test_a_folder_lists_what_git_and_the_configuration_leave(tree):
    # Not: ignored (generated/, x_tmp.py, /real/hidden.py, src/nested/local.py, sub/inner/),
    # excluded (vendored/, src/b.py), never linted (build/), a link to a file already found
    # (src/link_a.py) or to a folder (linkdir), a named pipe, another suffix (notes.txt).
    # The .gitignore above the repository does not count (above.py).
    assert _found(".") == [
        "a.py",
        "above.py",
        "broken.py",
        "keep_tmp.py",
        "real/r.py",
        "src/book.ipynb",
        "src/nested/c.py",
        "sub/s.py",
    ]


def test_files_come_before_subfolders_each_folder_sorted(tree):
    found = _found(".")
    folders = [str(Path(name).parent) for name in found]
    assert folders == [".", ".", ".", ".", "real", "src", "src/nested", "sub"]


def test_the_command_line_exclude_and_explicit_files(tree):
    assert "sub/s.py" not in _found(".", extend_exclude=("sub/",))
    # Named files are linted whatever ignores them; one named twice (or by a link) once.
    assert _found("generated/g.py", "src/link_a.py", "./a.py", "a.py") == ["generated/g.py", "src/link_a.py"]


def test_excluded_and_ignored_folders_are_not_entered(tree):
    asked: list[Path] = []

    def excluded(path: Path, is_dir: bool, resolved: Path) -> bool:
        asked.append(path)
        assert resolved == path.resolve()
        return path.name == "vendored"

    errors: list[tuple[str, str]] = []
    found = [
        str(t.path)
        for t in discover(["."], excluded, lambda path, is_dir: True, lambda name, why: errors.append((name, why)))
    ]
    assert "vendored/v.py" not in found and "src/b.py" in found
    entered = {str(path.parent) for path in asked}
    assert not entered & {"vendored", "generated", "build", "sub/inner", "linkdir"}
    assert errors == []


def test_each_folder_looks_for_its_configuration_once(tree, monkeypatch):
    looked: list[Path] = []
    real = gpulint.config.find_pyproject

    def counted(directory, cache=None, resolved=None):
        looked.append(directory)
        return real(directory, cache, resolved)

    monkeypatch.setattr(gpulint.config, "find_pyproject", counted)
    found = _found(".")
    assert len(looked) == len(set(looked)) < len(found) + 4


def test_folders_resolve_through_their_parents_and_links(tmp_path):
    real = tmp_path / "real" / "inner"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    cache: dict[Path, Path] = {}
    for folder in (real, tmp_path / "link" / "inner", tmp_path / "link", tmp_path / "real" / ".." / "real"):
        assert gpulint.files.resolve_folder(folder, cache) == folder.resolve()
    assert gpulint.files.resolve_folder(Path("."), cache) == Path(".").resolve()


ITERROWS_SCRIPT = "import pandas as pd\n\nfor _, row in pd.read_csv('a.csv').iterrows():\n    print(row['a'])\n"


def test_files_named_that_are_not_python_are_skipped_as_ruff_skips_them(project, cli):
    (project / "README.md").write_text("# Sales\n\nRun `python report.py`.\n")
    (project / "pyproject.toml").write_text("[project]\nname = 'sales'\n")
    (project / "report").write_text(ITERROWS_SCRIPT)  # a script without a suffix is Python
    run = cli("check", "--output-format", "concise", "--no-cache", "README.md", "pyproject.toml", "report")
    assert [line.split()[1] for line in run.lines if ": GPU" in line] == ["GPU102"]
    only_text = cli("check", "--no-cache", "README.md")
    assert only_text.code == 0 and "GPU001" not in only_text.stdout
    assert "no Python files found" in only_text.stderr


def test_extend_include_checks_other_extensions_found_or_named(project, cli):
    (project / "tools").mkdir()
    (project / "tools" / "job.pyw").write_text(ITERROWS_SCRIPT)
    assert cli("check", "--no-cache", ".").code == 0  # not a Python suffix: skipped
    (project / "pyproject.toml").write_text('[tool.gpulint]\nextend-include = ["*.pyw"]\n')
    for target in (".", "tools/job.pyw"):
        run = cli("check", "--output-format", "concise", "--no-cache", target)
        assert run.code == 1 and "tools/job.pyw:3:15: GPU102" in run.stdout
