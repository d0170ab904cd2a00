"""Syntactic candidate miners for hand-labelling gpulint's rules on the real-code corpus.

A miner finds *candidates* for a rule's idiom with the standard library's `ast` only, never
with gpulint, so that labels made from its candidates say something about gpulint's recall.
Candidates are generous on purpose: a person reads each one and decides.

Each family module (`transfers.py`, ...) defines

    MINERS: dict[str, Callable[[ast.Module], Iterable[tuple[int, str]]]]

mapping a rule code to a function that returns (line, note) for one parsed file or notebook
cell. `mine(corpus, miners)` runs such a mapping over the corpus that
`benchmarks/realcode/extract.py` writes (`<corpus>/<owner>+<name>/<path>`): every `.py`
file and every code cell of every `.ipynb`, cells numbered as gpulint reports them
(1-based among all cells). Files and cells that do not parse are skipped.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator, Mapping

Miner = Callable[[ast.Module], Iterable[tuple[int, str]]]

#: An IPython line that is not Python: a line magic or a shell escape (`%time`, `!pip`).
_IPYTHON_LINE = re.compile(r"^(\s*)[%!]")
#: Cell magics whose body is Python (`%%time` runs the cell and times it).
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
#: A trailing `?`/`??` help request.
_HELP_LINE = re.compile(r"^\s*[\w.]+\?\??\s*$")


@dataclass(frozen=True, order=True)
class Candidate:
    """One place a miner points at: `cell` is None in a .py file."""

    repo: str
    path: str
    cell: int | None
    line: int
    code: str
    note: str
    snippet: str


def notebook_cells(data: bytes) -> list[tuple[int, str]]:
    """(cell number, source) of a notebook's code cells, 1-based among all cells as
    Jupyter shows them and gpulint reports them; ValueError when it is not a notebook.
    Format 3 keeps its cells in worksheets (numbered on across them) and a code cell's
    text in `input`."""
    notebook = json.loads(data.decode("utf-8-sig"))
    if not isinstance(notebook, dict):
        raise ValueError("not an object")
    member, cells = "source", notebook.get("cells")
    if notebook.get("nbformat") == 3:
        sheets = notebook.get("worksheets")
        member, cells = "input", None
        if isinstance(sheets, list) and all(isinstance(s, dict) and isinstance(s.get("cells"), list) for s in sheets):
            cells = [cell for sheet in sheets for cell in sheet["cells"]]
    if not isinstance(cells, list):
        raise ValueError("no cell list")
    code = []
    for number, cell in enumerate(cells, 1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get(member, "")
            code.append((number, "".join(source) if isinstance(source, list) else str(source)))
    return code


def mask_ipython(source: str) -> str | None:
    """The cell with IPython-only lines replaced by `pass` (line numbers kept), or None for
    a cell magic (`%%bash`), whose body is not Python."""
    stripped = source.lstrip()
    if stripped.startswith("%%"):
        magic = stripped[2:].split(None, 1)[0] if stripped[2:].strip() else ""
        if magic not in PYTHON_CELL_MAGICS:
            return None
        head, _, body = source.partition("\n")
        source = "pass\n" + body  # the magic's line; the body is Python
    lines = []
    for text in source.split("\n"):
        match = _IPYTHON_LINE.match(text)
        if match or _HELP_LINE.match(text):
            indent = match.group(1) if match else re.match(r"\s*", text).group(0)
            text = f"{indent}pass"
        lines.append(text)
    return "\n".join(lines)


def parse(source: str) -> ast.Module | None:
    """The module, or None when it does not parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def units(corpus: Path) -> Iterator[tuple[str, str, int | None, str]]:
    """(repo, path in the repository, cell or None, source) for every .py file and every
    notebook code cell under `corpus`, in a stable order."""
    for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        repo = repo_dir.name.replace("+", "/", 1)
        for file in sorted(repo_dir.rglob("*")):
            if not file.is_file() or file.suffix not in (".py", ".ipynb"):
                continue
            rel = file.relative_to(repo_dir).as_posix()
            data = file.read_bytes()
            if file.suffix == ".py":
                yield repo, rel, None, data.decode("utf-8", "replace")
                continue
            try:
                cells = notebook_cells(data)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue
            for number, source in cells:
                masked = mask_ipython(source)
                if masked is not None:
                    yield repo, rel, number, masked


def mine(corpus: Path | str, miners: Mapping[str, Miner]) -> list[Candidate]:
    """Every candidate the miners find in the corpus, sorted by code, repo, path, cell, line."""
    found: set[Candidate] = set()
    for repo, path, cell, source in units(Path(corpus)):
        tree = parse(source)
        if tree is None:
            continue
        lines = source.split("\n")
        for code, miner in miners.items():
            for line, note in miner(tree):
                snippet = lines[line - 1].strip()[:100] if 0 < line <= len(lines) else ""
                found.add(Candidate(repo, path, cell, line, code, note, snippet))
    return sorted(found, key=lambda c: (c.code, c.repo, c.path, c.cell or 0, c.line, c.note))
