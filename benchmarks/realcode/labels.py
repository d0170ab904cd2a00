"""Hand-made labels of gpulint's idioms in the real-code corpus: load and validate them.

One CSV per rule family under `benchmarks/realcode/labels/`, header exactly `HEADER`. A row
says whether one place of the corpus (`extract.py` writes it to
`benchmarks/.corpus/realcode/<owner>+<name>/<path>`) is a real instance of a rule's idiom:

- repo: `owner/name`; path: the file inside the repository; cell: the code cell number in a
  notebook (1-based among all cells, as gpulint reports it), empty for a .py file; line: the
  line (within the cell) of the statement or expression holding the idiom.
- code: the rule; verdict: `instance` (the rule's docs say it should be reported) or `not`;
  source: `miner` (found independently of gpulint) or `gpulint` (a finding hand-checked);
  why: the evidence, one sentence; snippet: the line's code, stripped, at most 100 chars.

Rows are sorted by code, repo, path, cell, line, and a place is labelled once per rule.
`load(paths)` reads and checks the format; `check_corpus(labels, corpus)` also checks that
each label's line exists in the corpus. Both raise `LabelError` listing every problem.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from collections.abc import Iterable, Sequence

from benchmarks.realcode.miners import notebook_cells

HERE = Path(__file__).resolve().parent
DEFAULT_LABELS = HERE / "labels"
#: Every label of the repositories in `repos.toml`: the first set's (one file per family), and
#: those of the blind sets that joined it once their recall was recorded (BLIND.md).
TUNED_LABELS = (
    DEFAULT_LABELS,
    *(
        HERE / name / "labels"
        for name in (
            "blind",
            "blind2",
            "blind3",
            "blind4",
            "blind5",
            "blind6",
            "blind7",
            "blind8",
            "blind9",
            "blind10",
            "blind11",
            "blind12",
            "blind13",
            "blind14",
            "blind15",
            "blind16",
            "blind17",
            "blind18",
            "blind19",
            "blind20",
            "blind21",
            "blind22",
            "blind23",
            "blind24",
            "blind25",
            "blind26",
            "blind27",
            "blind28",
            "blind29",
            "blind30",
            "blind31",
            "blind32",
            "blind33",
            "blind34",
            "blind35",
            "blind36",
            "blind37",
            "blind38",
            "blind39",
            "blind40",
            "blind41",
            "blind42",
            "blind43",
        )
    ),
)
DEFAULT_CORPUS = HERE.parent / ".corpus" / "realcode"
HEADER = ("repo", "path", "cell", "line", "code", "verdict", "source", "why", "snippet")
VERDICTS = ("instance", "not")
SOURCES = ("miner", "gpulint")
SNIPPET_LIMIT = 100
#: Tables of another kind kept beside the labels (the usefulness sample, the readiness checks,
#: and the usefulness sample's random draws, `RANDOM_DRAWS`), not read as labels.
OTHER_TABLES = frozenset({"usefulness.csv", "readiness.csv"})
RANDOM_DRAWS = "usefulness_random*.csv"


class LabelError(Exception):
    """Label data that cannot be used; the message lists every problem, one a line."""


@dataclass(frozen=True)
class Label:
    """One labelled place of the corpus."""

    repo: str
    path: str
    cell: int | None
    line: int
    code: str
    verdict: str
    source: str
    why: str
    snippet: str
    #: Where the row is: "labels/transfers.csv:12".
    origin: str = ""

    @property
    def key(self) -> tuple[str, str, str, int, int]:
        """The sort order and identity of a label: code, repo, path, cell, line."""
        return (self.code, self.repo, self.path, self.cell or 0, self.line)

    @property
    def where(self) -> str:
        """`path:cell N:line` in a notebook, `path:line` in a .py file."""
        return f"{self.path}:cell {self.cell}:{self.line}" if self.cell is not None else f"{self.path}:{self.line}"

    @property
    def is_instance(self) -> bool:
        return self.verdict == "instance"


@lru_cache(maxsize=1)
def rule_families() -> dict[str, str]:
    """Rule code -> family, from `gpulint rule --all --format json` (the registry as the
    installed gpulint has it)."""
    command = [sys.executable, "-m", "gpulint", "rule", "--all", "--format", "json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        return {rule["code"]: rule["family"] for rule in json.loads(done.stdout)}
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError) as error:
        raise LabelError(f"cannot list gpulint's rules with {' '.join(command)}: {error}") from error


def is_other_table(path: Path) -> bool:
    """`path` is one of the tables kept beside the labels that are not labels."""
    return path.name in OTHER_TABLES or path.match(RANDOM_DRAWS)


def label_files(paths: Iterable[Path | str]) -> list[Path]:
    """The CSV files named, a folder standing for its `*.csv` files (except other tables)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(file for file in path.glob("*.csv") if not is_other_table(file)))
        elif path.is_file():
            files.append(path)
        else:
            raise LabelError(f"{path}: no such label file or folder")
    if not files:
        raise LabelError("no label files found in " + ", ".join(str(p) for p in paths))
    return files


def _row(values: dict[str, str], origin: str, problems: list[str], codes: Sequence[str] | None) -> Label | None:
    """One row as a Label, or None (with its problems recorded)."""
    before = len(problems)
    repo, path = values["repo"].strip(), values["path"].strip()
    if repo.count("/") != 1 or not all(repo.split("/")):
        problems.append(f"{origin}: repo {repo!r} is not owner/name")
    if not path or path.startswith("/") or ".." in Path(path).parts:
        problems.append(f"{origin}: path {path!r} is not a path inside the repository")
    cell: int | None = None
    if values["cell"].strip():
        if not values["cell"].strip().isdigit() or int(values["cell"]) < 1:
            problems.append(f"{origin}: cell {values['cell']!r} is not a positive number")
        else:
            cell = int(values["cell"])
        if not path.endswith(".ipynb"):
            problems.append(f"{origin}: a cell is given for {path}, which is not a notebook")
    elif path.endswith(".ipynb"):
        problems.append(f"{origin}: {path} is a notebook: the cell is missing")
    line = values["line"].strip()
    if not line.isdigit() or int(line) < 1:
        problems.append(f"{origin}: line {line!r} is not a positive number")
    code = values["code"].strip()
    if codes is not None and code not in codes:
        problems.append(f"{origin}: unknown rule code {code!r}")
    if values["verdict"] not in VERDICTS:
        problems.append(f"{origin}: verdict {values['verdict']!r} is not one of {', '.join(VERDICTS)}")
    if values["source"] not in SOURCES:
        problems.append(f"{origin}: source {values['source']!r} is not one of {', '.join(SOURCES)}")
    if not values["why"].strip():
        problems.append(f"{origin}: why is empty")
    if len(values["snippet"]) > SNIPPET_LIMIT:
        problems.append(f"{origin}: snippet longer than {SNIPPET_LIMIT} characters")
    if len(problems) > before:
        return None
    return Label(
        repo,
        path,
        cell,
        int(line),
        code,
        values["verdict"],
        values["source"],
        values["why"].strip(),
        values["snippet"],
        origin,
    )


def read_file(file: Path, problems: list[str], codes: Sequence[str] | None) -> list[Label]:
    """The labels of one CSV; format problems are appended to `problems`."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{file}: cannot read: {error}")
        return []
    rows = list(csv.reader(text.splitlines()))
    if not rows or tuple(rows[0]) != HEADER:
        problems.append(f"{file}: the header must be exactly {','.join(HEADER)}")
        return []
    labels: list[Label] = []
    for number, row in enumerate(rows[1:], 2):
        origin = f"{file.name}:{number}"
        if len(row) != len(HEADER):
            problems.append(f"{origin}: {len(row)} fields, expected {len(HEADER)}")
            continue
        label = _row(dict(zip(HEADER, row, strict=False)), origin, problems, codes)
        if label is not None:
            labels.append(label)
    keys = [_raw_key(row) for row in rows[1:] if len(row) == len(HEADER)]
    for number, (previous, key) in enumerate(zip(keys, keys[1:], strict=False), 3):
        if key < previous:
            problems.append(f"{file.name}:{number}: rows are not sorted by code, repo, path, cell, line")
            break
    return labels


def _raw_key(row: list[str]) -> tuple[str, str, str, int, int]:
    """A row's sort key (code, repo, path, cell, line), numbers that are not numbers as -1."""
    values = dict(zip(HEADER, row, strict=False))

    def number(text: str) -> int:
        return int(text) if text.strip().isdigit() else (0 if not text.strip() else -1)

    return (
        values["code"].strip(),
        values["repo"].strip(),
        values["path"].strip(),
        number(values["cell"]),
        number(values["line"]),
    )


def load(paths: Iterable[Path | str] = (DEFAULT_LABELS,), *, check_codes: bool = True) -> list[Label]:
    """Every label in the CSV files (or folders of them), checked for format, known rule
    codes, order and duplicates; LabelError lists every problem."""
    codes = tuple(rule_families()) if check_codes else None
    problems: list[str] = []
    labels: list[Label] = []
    for file in label_files(paths):
        labels.extend(read_file(file, problems, codes))
    seen: dict[tuple, Label] = {}
    for label in labels:
        first = seen.setdefault(label.key, label)
        if first is not label:
            problems.append(f"{label.origin}: the same place and rule is labelled at {first.origin}")
    if problems:
        raise LabelError("\n".join(problems))
    return sorted(labels, key=lambda label: label.key)


#: Where a label is, rule included: (repo, path, cell, code).
Place = tuple[str, str, int | None, str]


def by_place(labels: Iterable[Label]) -> dict[Place, list[Label]]:
    """The labels grouped by repository, file, cell and rule, each group in line order."""
    groups: dict[Place, list[Label]] = {}
    for label in sorted(labels, key=lambda label: label.key):
        groups.setdefault((label.repo, label.path, label.cell, label.code), []).append(label)
    return groups


def label_within(groups: dict[Place, list[Label]], place: Place, first: int, last: int) -> Label | None:
    """The label of `place` (see `by_place`) whose line is within first..last, the first such
    line when there are several; None when no label is there."""
    return next((label for label in groups.get(place, ()) if first <= label.line <= last), None)


def corpus_file(corpus: Path, label: Label) -> Path:
    """Where the label's file is in the corpus."""
    return corpus / label.repo.replace("/", "+", 1) / label.path


def source_lines(file: Path, cell: int | None) -> list[str] | None:
    """The lines of a .py file or of a notebook's cell; None when there is no such cell."""
    data = file.read_bytes()
    if cell is None:
        return data.decode("utf-8", "replace").split("\n")
    for number, text in notebook_cells(data):
        if number == cell:
            return text.split("\n")
    return None


def check_corpus(labels: Iterable[Label], corpus: Path | str = DEFAULT_CORPUS) -> None:
    """Check that each label's file, cell and line exist in the corpus and that the line
    holds the snippet; LabelError lists every problem."""
    corpus = Path(corpus)
    if not corpus.is_dir():
        raise LabelError(f"{corpus}: no corpus here (run benchmarks/realcode/extract.py)")
    problems: list[str] = []
    for label in labels:
        file = corpus_file(corpus, label)
        try:
            lines = source_lines(file, label.cell)
        except FileNotFoundError:
            problems.append(f"{label.origin}: {label.repo} has no file {label.path} in the corpus")
            continue
        except (OSError, ValueError, UnicodeDecodeError) as error:
            problems.append(f"{label.origin}: cannot read {file}: {error}")
            continue
        if lines is None:
            problems.append(f"{label.origin}: {label.path} has no code cell {label.cell}")
        elif label.line > len(lines):
            problems.append(f"{label.origin}: {label.where} is past the end ({len(lines)} lines)")
        elif label.snippet and not lines[label.line - 1].strip().startswith(label.snippet.strip()):
            problems.append(f"{label.origin}: line {label.where} does not hold the snippet {label.snippet!r}")
    if problems:
        raise LabelError("\n".join(problems))
