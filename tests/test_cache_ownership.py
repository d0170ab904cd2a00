"""The cache touches only what it made: a configured folder that already exists and is not
gpulint's (the project folder, a data folder, a folder outside the project) gets no entry,
tag or `.gitignore`, and `gpulint clean` removes gpulint's files and nothing else, also from
a project folder an earlier gpulint tagged. And a cache entry is shown only through its
findings: no listing kept in it, no terminal control in it, reaches the terminal."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gpulint.cache import DIRNAME, FORMAT, TAG

from .conftest import ITERROWS, write

#: The `.gitignore` gpulint writes in its cache folder (and wrote in any folder it was given).
GITIGNORE = "# Created by gpulint.\n*\n"

#: What a user keeps in the folders around the cache: every file must survive, as it was.
USER_FILES = {
    "README.md": "# my project\n",
    "data/sales.csv": "price,cost\n3,2\n",
    "data/.gitignore": "*.tmp\n",
    "v2/notes.txt": "a folder named as gpulint's entry folders, but the user's\n",
}


def _user_files(folder: Path) -> dict[Path, str]:
    return {write(folder / name, text): text for name, text in USER_FILES.items()}


def _entries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and p.parent.parent.name == FORMAT]


def _files(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def _assert_untouched(files: dict[Path, str]) -> None:
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, path


@pytest.fixture
def configured(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose cache folder is configured (no `GPULINT_CACHE_DIR` from the suite)."""
    monkeypatch.delenv("GPULINT_CACHE_DIR")
    write(project / "src" / "sales.py", ITERROWS)
    return project


@pytest.mark.parametrize("setting", [".", "data", "../outside", "env"])
def test_an_existing_folder_gpulint_did_not_make_is_never_written_into_nor_removed(
    configured, cli, monkeypatch, setting
):
    project = configured
    write(project / "pyproject.toml", "[tool.gpulint]\n")
    if setting == "env":  # the folder given by the environment, outside the project
        folder = project.parent / "shared"
        monkeypatch.setenv("GPULINT_CACHE_DIR", str(folder))
    else:
        folder = (project / setting).resolve()
        write(project / "pyproject.toml", f"[tool.gpulint]\ncache-dir = '{setting}'\n")
    files = {
        project / "pyproject.toml": (project / "pyproject.toml").read_text(encoding="utf-8"),
        project / "src" / "sales.py": ITERROWS,
        **_user_files(folder),
    }
    before = sorted(p.name for p in folder.iterdir())

    assert cli("check", "src").code == 1
    assert cli("check", "src").code == 1  # served from the cache
    after_check = sorted(p.name for p in folder.iterdir())
    entries = _entries(folder / DIRNAME)
    run = cli("clean")

    assert run.code == 0
    _assert_untouched(files)
    assert folder.is_dir() and sorted(p.name for p in folder.iterdir()) == before
    # The cache was made inside the folder, which got nothing else (no tag, no .gitignore).
    assert after_check == sorted([*before, DIRNAME]) and entries
    assert [Path(line.split(": ", 1)[1]).resolve() for line in run.errors] == [folder / DIRNAME]
    assert run.errors[0].startswith("Removed cache at: ")


def test_a_project_folder_an_earlier_gpulint_tagged_keeps_its_files(configured, cli):
    """What `cache-dir = "."` left behind: gpulint's tag, .gitignore and entries among the
    project's own files. A run no longer writes there; `clean` takes out gpulint's files only."""
    project = configured
    write(project / "pyproject.toml", "[tool.gpulint]\ncache-dir = '.'\n")
    write(project / "CACHEDIR.TAG", TAG)
    write(project / ".gitignore", GITIGNORE)
    name = hashlib.sha256(b"old entry").hexdigest()
    bucket = project / "v2" / name[:2]
    old_entries = [write(bucket / name, "{}"), write(bucket / ".tmp-k2j4h5g6", "")]
    files = {
        project / "pyproject.toml": (project / "pyproject.toml").read_text(encoding="utf-8"),
        project / "src" / "sales.py": ITERROWS,
        **_user_files(project),
        write(bucket / "mine.txt", "the user's, in a folder named like a bucket\n"): (
            "the user's, in a folder named like a bucket\n"
        ),
    }

    before = _files(project)
    assert cli("check", "src").code == 1
    written = _files(project) - before
    run = cli("clean")

    assert run.code == 0
    _assert_untouched(files)
    # The run wrote only into a folder it made; clean took out what gpulint wrote, and that folder.
    assert written and all(path.relative_to(project).parts[0] == DIRNAME for path in written)
    assert not any(path.exists() for path in old_entries)
    assert not (project / "CACHEDIR.TAG").exists() and not (project / ".gitignore").exists()
    assert not (project / DIRNAME).exists()
    assert f"Removed the cache files in: {project} (the folder holds other files, left in place)" in run.errors
    # The project's own .gitignore, or a tag gpulint did not write, is never removed.
    write(project / "CACHEDIR.TAG", TAG)
    write(project / ".gitignore", "build/\n")
    assert cli("clean").code == 0
    assert (project / ".gitignore").read_text(encoding="utf-8") == "build/\n"


def test_a_folder_gpulint_made_is_removed_with_its_entries_and_nothing_else(configured, cli):
    project = configured
    write(project / "pyproject.toml", "[tool.gpulint]\ncache-dir = 'build/lint-cache'\n")
    folder = project / "build" / "lint-cache"
    cli("check", "src")
    assert (folder / "CACHEDIR.TAG").read_text(encoding="utf-8") == TAG
    assert (folder / ".gitignore").read_text(encoding="utf-8") == GITIGNORE
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "CACHEDIR.TAG", FORMAT]
    assert not [p for p in (project / "build").iterdir() if p != folder]  # no temporary folder left
    mine = write(folder / FORMAT / "notes.txt", "put here by the user\n")
    run = cli("clean")
    assert run.code == 0 and "Removed the cache files in:" in run.stderr
    assert mine.read_text(encoding="utf-8") == "put here by the user\n"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == [FORMAT, f"{FORMAT}/notes.txt"]
    mine.unlink()
    cli("check", "src")  # no tag: no longer gpulint's folder, the cache goes inside it
    assert _entries(folder / DIRNAME) and not (folder / "CACHEDIR.TAG").exists()


def _tamper(folder: Path, change) -> None:
    for entry in _entries(folder):
        kept = json.loads(entry.read_bytes())
        change(kept)
        entry.write_text(json.dumps(kept), encoding="utf-8")


@pytest.mark.parametrize("output_format", ["full", "concise"])
def test_an_entry_is_shown_only_through_its_findings(project, cli, cache_dir, output_format):
    write(project / "sales.py", ITERROWS)
    cold = cli("check", ".", "--output-format", output_format, "--no-cache")
    cli("check", ".", "--output-format", output_format)
    # A listing in the entry (gpulint kept one per report style, and printed it as it was)
    # is not shown: neither its terminal controls nor its claim that the file is clean.
    _tamper(
        cache_dir,
        lambda kept: kept.update(
            rendered={style: ["\x1b]0;pwned\x07sales.py: clean"] for style in kept.get("rendered") or ["full"]}
        ),
    )
    warm = cli("check", ".", "--output-format", output_format)
    assert (warm.code, warm.stdout) == (1, cold.stdout)
    # Terminal controls in a finding kept in the entry are printed as text without them.
    _tamper(cache_dir, lambda kept: kept["diagnostics"][0].__setitem__(2, "\x1b]0;pwned\x07bad \x1b[2J\x9bmessage"))
    warm = cli("check", ".", "--output-format", output_format)
    assert warm.code == 1 and "bad message" in warm.stdout
    assert not any(ch in warm.stdout for ch in "\x1b\x07\x9b")
    # A value of another type than gpulint writes makes the entry a miss: the file is linted.
    _tamper(cache_dir, lambda kept: kept["diagnostics"][0].__setitem__(3, "\x1b]0;pwned\x075"))
    warm = cli("check", ".", "--output-format", output_format)
    assert (warm.code, warm.stdout) == (1, cold.stdout)
