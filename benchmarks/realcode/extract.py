"""Extract the pinned real-code corpus: the `.py` and `.ipynb` files of the repositories in
`repos.toml`, at their pinned commits, from bare git mirrors.

The code is never committed: each repository is fetched once as a bare mirror
(`/work/.mirror/<owner>+<name>/repo`, what the `fetch` tool brings for `github:<owner>/<name>`),
and this script writes its Python files into `benchmarks/.corpus/realcode/<owner>+<name>/`
(git-ignored). Only objects of the pinned commit are read (`git ls-tree`, `git cat-file`),
so a mirror that has moved on still gives the same files.

Usage:
    python benchmarks/realcode/extract.py                 # every repository in repos.toml
    python benchmarks/realcode/extract.py --only pytorch/examples --only dask/dask-examples
    python benchmarks/realcode/extract.py --mirrors /work/.mirror --output /tmp/realcode

It prints the files written per repository and the total. A missing mirror or a pinned
commit the mirror lacks stops it with exit code 2 and says what to fetch. Files of 4 MiB and
more are absent from the mirrors; they are counted as missing and skipped. Standard library
only.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOS = HERE / "repos.toml"
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_OUTPUT = HERE.parent / ".corpus" / "realcode"
SUFFIXES = (".py", ".ipynb")


class ExtractError(Exception):
    """Something the user must do before extracting; one message, no traceback."""


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name
    commit: str
    why: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @property
    def folder(self) -> str:
        """`owner+name`: the mirror's folder and the corpus folder."""
        return self.name.replace("/", "+")

    def wants(self, path: str) -> bool:
        if not path.endswith(SUFFIXES):
            return False
        if self.include and not path.startswith(self.include):
            return False
        return not path.startswith(self.exclude) if self.exclude else True


def load_repos(path: Path = REPOS) -> list[Repo]:
    """The repositories listed in `path`, checked for the keys each needs."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ExtractError(f"cannot read {path}: {error}") from None
    repos = []
    for index, entry in enumerate(table.get("repo", []), 1):
        missing = [key for key in ("name", "commit", "why") if not isinstance(entry.get(key), str)]
        if missing:
            raise ExtractError(f"{path}: [[repo]] number {index} lacks {', '.join(missing)}")
        repos.append(
            Repo(
                entry["name"],
                entry["commit"],
                entry["why"],
                tuple(entry.get("include", ())),
                tuple(entry.get("exclude", ())),
            )
        )
    return repos


def mirror_of(repo: Repo, mirrors: Path) -> Path:
    """The bare git directory of `repo`'s mirror; ExtractError when it or the commit is absent."""
    git_dir = mirrors / repo.folder / "repo"
    if not git_dir.is_dir():
        raise ExtractError(f"no mirror of {repo.name} at {git_dir}: fetch it first (fetch tool: github:{repo.name})")
    probe = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{repo.commit}^{{commit}}"], capture_output=True
    )
    if probe.returncode != 0:
        raise ExtractError(
            f"the mirror of {repo.name} at {git_dir} lacks the pinned commit {repo.commit}: "
            f"fetch it again (github:{repo.name}), or pin the commit it has "
            f"(git --git-dir {git_dir} rev-parse HEAD) in {REPOS.name}"
        )
    return git_dir


def _blobs(git_dir: Path, repo: Repo) -> tuple[list[tuple[str, str]], list[str]]:
    """(object id, path) of the wanted files at the pinned commit, and the paths whose
    content the mirror lacks."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-l", "-z", repo.commit], capture_output=True, check=True
    ).stdout.decode("utf-8", "surrogateescape")
    wanted, missing = [], []
    for record in filter(None, listing.split("\0")):
        meta, path = record.split("\t", 1)
        mode, kind, oid, size = meta.split()
        if kind != "blob" or mode == "120000" or not repo.wants(path):
            continue
        if size.isdigit():
            wanted.append((oid, path))
        else:  # `git ls-tree -l` prints no size for an object the mirror lacks
            missing.append(path)
    return wanted, missing


def extract(repo: Repo, mirrors: Path, output: Path) -> tuple[int, int]:
    """Write `repo`'s wanted files under `output/<owner>+<name>/`, replacing what was there;
    (files written, files missing from the mirror)."""
    git_dir = mirror_of(repo, mirrors)
    wanted, missing = _blobs(git_dir, repo)
    target = output / repo.folder
    if target.exists():
        shutil.rmtree(target)
    batch = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert batch.stdin is not None and batch.stdout is not None
    written = 0
    try:
        for oid, path in wanted:
            batch.stdin.write(oid.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if len(header) < 3 or header[1] != b"blob":  # "<oid> missing"
                missing.append(path)
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the line break after each object
            destination = target / path
            if not destination.resolve().is_relative_to(target.resolve()):
                continue  # a path that would leave the corpus folder
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
            written += 1
    finally:
        batch.stdin.close()
        batch.wait()
    mark_repository(target)
    return written, len(missing)


def mark_repository(folder: Path) -> None:
    """Mark an extracted repository as one (an empty `.git` folder, which git itself takes
    for no repository): gpulint looks for a file's project modules and for the files
    importing it within its repository, as it would in the repository's own checkout."""
    (folder / ".git").mkdir(parents=True, exist_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repos", type=Path, default=REPOS, help="the list of repositories (default: %(default)s)")
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=DEFAULT_MIRRORS,
        help="folder of the bare mirrors, <owner>+<name>/repo (default: %(default)s)",
    )
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help="folder to extract into (default: %(default)s)"
    )
    parser.add_argument(
        "--only", action="append", default=[], metavar="OWNER/NAME", help="extract only this repository (repeatable)"
    )
    args = parser.parse_args(argv)
    try:
        repos = load_repos(args.repos)
        unknown = sorted(set(args.only) - {r.name for r in repos})
        if unknown:
            raise ExtractError(f"not in {args.repos}: {', '.join(unknown)}")
        if args.only:
            repos = [r for r in repos if r.name in args.only]
        for repo in repos:  # every mirror is checked before anything is written
            mirror_of(repo, args.mirrors)
        total_written = total_missing = 0
        width = max((len(r.name) for r in repos), default=0)
        for repo in repos:
            written, missing = extract(repo, args.mirrors, args.output)
            total_written += written
            total_missing += missing
            note = f"  ({missing} missing from the mirror)" if missing else ""
            print(f"{repo.name:<{width}}  {written:>5} files{note}")
    except ExtractError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(
        f"{'total':<{width}}  {total_written:>5} files in {args.output}"
        + (f"  ({total_missing} missing from the mirrors)" if total_missing else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
