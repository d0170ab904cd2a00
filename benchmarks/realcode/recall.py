"""Recall and false positives of gpulint on the hand-labelled real-code corpus.

    python -m benchmarks.realcode.recall [--labels benchmarks/realcode/labels]
        [--corpus benchmarks/.corpus/realcode] [--output benchmarks/results/recall.md]
        [--rules GPU301,GPU304] [--default-set] [--gpulint "CMD"]

Runs `gpulint check --output-format json --select ALL --preview` (every rule, preview
ones included; with `--default-set`, only what a user gets with no `select`), with an
empty configuration so no project settings apply, on exactly the files the labels name,
and matches each finding to the labels: same repository, file, cell and rule, and the
label's line within the finding's first..last line. Per rule it counts the
`instance` labels, how many a finding matches (recall), the `not` labels a finding matches
(false positives), and the findings in the labelled files that match no label; then per
family and overall; then lists every missed instance and every flagged `not`.

`--gpulint CMD` runs another gpulint (split like a shell command line; default: this
Python's `-m gpulint`). The report is Markdown on stdout and in `--output`. Exit codes: 0 the
report was written (it is a report, whatever the numbers), 2 bad input or gpulint failed.
"""

from __future__ import annotations

import argparse
import functools
import json
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Sequence

from benchmarks.realcode.output import write_files
from benchmarks.realcode.labels import (
    DEFAULT_CORPUS,
    TUNED_LABELS,
    Label,
    LabelError,
    by_place,
    check_corpus,
    label_within,
    load,
    rule_families,
)

#: Files per gpulint run (keeps command lines short).
BATCH = 200
#: Seconds one gpulint run may take.
TIMEOUT = 1800


class RecallError(Exception):
    """The report cannot be made; one line for the user."""


@dataclass(frozen=True)
class Finding:
    """One gpulint finding, located in the corpus."""

    repo: str
    path: str
    cell: int | None
    code: str
    first: int
    last: int
    #: The finding's message (not part of its identity).
    message: str = field(default="", compare=False)
    #: Reported only in preview mode, though its rule is not a preview rule: the rule's
    #: preview behaviour (`Rule.preview_behaviour`; the ecosystem report marks it).
    preview: bool = field(default=False, compare=False)


def gpulint_command(text: str = "") -> list[str]:
    """The command that runs gpulint: `text` split like a shell command line, or this
    Python's `-m gpulint` when it is empty."""
    return shlex.split(text) if text else [sys.executable, "-m", "gpulint"]


@functools.lru_cache(maxsize=8)
def preview_arguments(command: tuple[str, ...]) -> tuple[str, ...]:
    """`--preview` when that gpulint has the option (so that `--select ALL` runs the preview
    rules too), else nothing (a gpulint from before rule tiers runs every rule anyway)."""
    try:
        done = subprocess.run([*command, "check", "--help"], capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise RecallError(f"cannot run {shlex.join(command)}: {error}") from error
    return ("--preview",) if "--preview" in done.stdout else ()


def _corpus_key(corpus: Path, filename: str) -> tuple[str, str]:
    """(repo, path in the repository) of a file gpulint reported, relative to the corpus."""
    relative = Path(filename)
    if relative.is_absolute():
        relative = relative.relative_to(corpus)
    repo_dir, *rest = relative.parts
    return repo_dir.replace("+", "/", 1), "/".join(rest)


def run_gpulint(
    command: Sequence[str],
    corpus: Path,
    files: Sequence[str],
    *,
    extra: Sequence[str] = (),
    unreadable: list[str] | None = None,
    default_set: bool = False,
) -> list[Finding]:
    """Every finding of every rule on `files` (paths relative to `corpus`).

    `extra`: more `gpulint check` arguments; `default_set`: only the rules and behaviours a
    user gets with no `select` (the default tier), instead of `--select ALL`. Given a list as `unreadable`, a run that exits 2
    because some files could not be read (its JSON is still complete for the others) is
    accepted and gpulint's `error:` lines are appended to the list; otherwise any exit but 0
    raises RecallError."""
    findings: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="gpulint-recall-") as scratch:
        config = Path(scratch) / "pyproject.toml"
        config.write_text("[tool.gpulint]\n", encoding="utf-8")
        for start in range(0, len(files), BATCH):
            batch = list(files[start : start + BATCH])
            argv = [
                *command,
                "check",
                "--output-format",
                "json",
                *(() if default_set else ("--select", "ALL")),
                "--exit-zero",
                "--quiet",
                "--config",
                str(config),
                *extra,
                *batch,
            ]
            try:
                done = subprocess.run(argv, cwd=corpus, capture_output=True, text=True, timeout=TIMEOUT)
            except (OSError, subprocess.SubprocessError) as error:
                raise RecallError(f"cannot run {shlex.join(command)}: {error}") from error
            errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
            tolerated = unreadable is not None and done.returncode == 2 and errors
            if done.returncode != 0 and not tolerated:
                tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                raise RecallError(f"{shlex.join(command)} check exited {done.returncode}: " + " / ".join(tail))
            try:
                rows = json.loads(done.stdout)
            except ValueError as error:
                raise RecallError(f"{shlex.join(command)} printed no JSON: {error}") from error
            if tolerated:
                unreadable.extend(line.removeprefix("error: ") for line in errors)
            for row in rows:
                repo, path = _corpus_key(corpus, row["filename"])
                first = row["location"]["row"]
                last = max(first, (row.get("end_location") or {}).get("row") or first)
                findings.append(Finding(repo, path, row.get("cell"), row["code"], first, last, row.get("message", "")))
    return findings


@dataclass
class Tally:
    """Counts for one rule, one family or everything."""

    instances: int = 0
    found: int = 0
    #: Instances found by the miner (independent of gpulint), and how many a finding matches.
    mined: int = 0
    mined_found: int = 0
    nots: int = 0
    flagged: int = 0
    unlabelled: int = 0

    def add(self, other: Tally) -> None:
        for name in ("instances", "found", "mined", "mined_found", "nots", "flagged", "unlabelled"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def recall(self) -> str:
        return f"{self.found / self.instances:.2f}" if self.instances else "-"

    @property
    def mined_recall(self) -> str:
        return f"{self.mined_found / self.mined:.2f}" if self.mined else "-"


@dataclass
class Result:
    """The matching of findings to labels."""

    tallies: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    missed: list[Label] = field(default_factory=list)
    flagged: list[Label] = field(default_factory=list)


def match(labels: Iterable[Label], findings: Iterable[Finding]) -> Result:
    """Which labels a finding matches: same repo, path, cell and code, and the label's
    line within the finding's lines. Findings of rules no label names are ignored."""
    labels = list(labels)
    spans: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for finding in findings:
        spans[(finding.repo, finding.path, finding.cell, finding.code)].append((finding.first, finding.last))
    result = Result()
    codes = {label.code for label in labels}
    for label in labels:
        tally = result.tallies[label.code]
        hit = any(
            first <= label.line <= last
            for first, last in spans.get((label.repo, label.path, label.cell, label.code), ())
        )
        if label.is_instance:
            tally.instances += 1
            tally.found += hit
            if label.source == "miner":
                tally.mined += 1
                tally.mined_found += hit
            if not hit:
                result.missed.append(label)
        else:
            tally.nots += 1
            tally.flagged += hit
            if hit:
                result.flagged.append(label)
    groups = by_place(labels)
    for key, ranges in spans.items():
        if key[3] not in codes:
            continue
        for first, last in ranges:
            if label_within(groups, key, first, last) is None:
                result.tallies[key[3]].unlabelled += 1
    return result


def _table_row(name: str, tally: Tally) -> str:
    return (
        f"| {name} | {tally.instances} | {tally.found} | {tally.recall} | {tally.mined_found}/{tally.mined} | "
        f"{tally.mined_recall} | {tally.nots} | {tally.flagged} | {tally.unlabelled} |"
    )


def report(result: Result, families: dict[str, str], header: str) -> str:
    """The Markdown report."""
    lines = [
        header,
        "",
        "| Rule | Instances | Found | Recall | Found/mined | Recall (mined) | `not` labels "
        "| Flagged `not` (FP) | Unlabelled findings |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by_family: dict[str, Tally] = defaultdict(Tally)
    overall = Tally()
    for code in sorted(result.tallies):
        tally = result.tallies[code]
        lines.append(_table_row(code, tally))
        by_family[families.get(code, "?")].add(tally)
        overall.add(tally)
    for family in sorted(by_family):
        lines.append(_table_row(f"family {family}", by_family[family]))
    lines.append(_table_row("**all**", overall))
    lines += [
        "",
        "Recall (mined): over the instances the syntactic miners found, independently of gpulint "
        "(instances taken from gpulint's own findings can only raise recall). Unlabelled findings: "
        "findings of these rules in the labelled files at no labelled line.",
        "",
    ]
    lines += [f"## Missed instances ({len(result.missed)})", ""]
    lines += [f"- {label.code} {label.repo} `{label.where}`: {label.why}" for label in result.missed]
    lines += ["", f"## Flagged `not` labels ({len(result.flagged)})", ""]
    lines += [f"- {label.code} {label.repo} `{label.where}`: {label.why}" for label in result.flagged]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcode.recall", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        help="label CSV or folder, repeatable (default: every label of the tuned set, TUNED_LABELS)",
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--output", type=Path, help="also write the report here")
    parser.add_argument("--rules", default="", help="comma-separated rule codes (default: every labelled rule)")
    parser.add_argument(
        "--default-set",
        action="store_true",
        help="run only the default rules and behaviours (no --select ALL, no --preview)",
    )
    parser.add_argument("--gpulint", default="", help="command that runs gpulint (default: this Python's -m gpulint)")
    args = parser.parse_args(argv)
    command = gpulint_command(args.gpulint)
    try:
        labels = load(args.labels or list(TUNED_LABELS))
        if args.rules:
            wanted = {code.strip().upper() for code in args.rules.split(",") if code.strip()}
            unknown = sorted(wanted - set(rule_families()))
            if unknown:
                raise LabelError(f"--rules: unknown rule code {', '.join(unknown)}")
            labels = [label for label in labels if label.code in wanted]
        if not labels:
            raise LabelError("no labels for the rules asked")
        corpus = args.corpus.resolve()
        check_corpus(labels, corpus)
        files = sorted({f"{label.repo.replace('/', '+', 1)}/{label.path}" for label in labels})
        if args.default_set:
            findings = run_gpulint(command, corpus, files, default_set=True)
        else:
            findings = run_gpulint(command, corpus, files, extra=preview_arguments(tuple(command)))
    except (LabelError, RecallError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    shown = "python -m benchmarks.realcode.recall " + shlex.join(argv if argv is not None else sys.argv[1:])
    header = (
        f"# gpulint recall on labelled real code\n\nCommand: `{shown.strip()}`\n\n"
        f"{len(labels)} labels in {len(files)} files; gpulint: `{shlex.join(command)}`."
    )
    text = report(match(labels, findings), rule_families(), header)
    print(text, end="")
    return 0 if write_files((args.output, text)) else 2


if __name__ == "__main__":
    sys.exit(main())
