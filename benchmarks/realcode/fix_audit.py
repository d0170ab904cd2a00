"""Audit `gpulint check --fix --unsafe-fixes` on the pinned real-code corpus.

A fix must leave code that parses, binds every name it uses, and is idempotent. This script
checks that on real data-science code (the corpus `extract.py` writes), on a scratch copy so
the corpus itself is never touched:

1. Copy the corpus to a scratch folder and keep every file's original bytes.
2. Per repository folder, run `gpulint check --unsafe-fixes` (the findings before), then
   `gpulint check --fix --unsafe-fixes` (the fix), then the same again (must change
   nothing), each with JSON output and a time limit, and every rule of every tier
   (`--select ALL --preview`); and once with `--show-fixes` for the rewrites the fixers
   declined, with their reasons.
3. Compare each changed file with its original: it still parses where it parsed before (a
   notebook: each code cell, IPython syntax masked as gpulint masks it); no new pyflakes
   undefined names (a notebook: its code cells as one program; each new one reported with
   its file and diff); no more lines ending in whitespace (a layout the fix broke); no
   comment lost. Then: no file changed by the second run; gpulint's per-file errors,
   internal errors and time-outs; findings per rule before and after (a finding gone after
   the fix counts as fixed).
4. Write a Markdown summary (stdout, and `--output FILE`) and N random hunks of the fix's
   diff, with a fixed seed, to `--diffs FILE` for reading.

Usage (in the project's virtual environment, which has pyflakes):
    python benchmarks/realcode/extract.py                  # once: the corpus
    python -m benchmarks.realcode.fix_audit --output benchmarks/results/fix_audit.md
    python -m benchmarks.realcode.fix_audit --only pytorch+examples --diffs-count 50
    python -m benchmarks.realcode.fix_audit --gpulint "/tmp/base-venv/bin/gpulint"   # another gpulint

`--gpulint CMD` is split like a shell command line, so `--gpulint "python -m gpulint"` works
too. Exit codes: 0 every check passed, 1 some check failed, 2 the audit could not run.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib.util
import io
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tokenize
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.realcode.miners import notebook_cells
from benchmarks.realcode.recall import preview_arguments
from benchmarks.realcode.output import write_files

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_CORPUS = HERE.parent / ".corpus" / "realcode"
DEFAULT_DIFFS = HERE.parent / "results" / "tmp" / "fix_audit_diffs.md"
SUFFIXES = (".py", ".ipynb")
#: The placeholder names gpulint's IPython masking puts where a magic was.
PLACEHOLDER_PREFIX = "__gpulint_ipython_"
#: Lines of a file's diff quoted in the summary next to a problem.
QUOTED_DIFF_LINES = 60


class AuditError(Exception):
    """The audit cannot run; one line for the user."""


# -- what a file's code is: parses, undefined names ------------------------------------------


@dataclass
class CodeFacts:
    """What the audit checks in one file's code."""

    #: Unit ("" for a .py file, "cell N" in a notebook) -> whether it parses.
    parses: dict[str, bool] = field(default_factory=dict)
    #: (pyflakes message kind, name) -> locations ("12", "cell 3:4").
    undefined: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: Why the file could not be read as code, if it could not.
    unreadable: str | None = None


def _parse(text: str | bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _undefined_names(tree: ast.Module, where) -> dict[tuple[str, str], list[str]]:
    """pyflakes' undefined names (and locals read before assignment) in `tree`, by kind and
    name; `where(line)` says where a program line is."""
    from pyflakes import checker, messages

    try:
        found = checker.Checker(tree, filename="<audit>").messages
    except RecursionError:
        return {}
    names: dict[tuple[str, str], list[str]] = {}
    for message in found:
        if not isinstance(message, (messages.UndefinedName, messages.UndefinedLocal)):
            continue
        name = message.message_args[0]
        if name.startswith(PLACEHOLDER_PREFIX):
            continue
        names.setdefault((type(message).__name__, name), []).append(where(message.lineno))
    return names


def code_facts(path: str, data: bytes) -> CodeFacts:
    """Whether `data` (the bytes of the file at `path`) parses, and its undefined names."""
    facts = CodeFacts()
    if not path.endswith(".ipynb"):
        tree = _parse(data)
        facts.parses[""] = tree is not None
        if tree is not None:
            facts.undefined = _undefined_names(tree, str)
        return facts
    from gpulint.ipython import mask_ipython

    try:
        cells = notebook_cells(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        facts.unreadable = f"not a notebook: {error}"
        return facts
    program: list[str] = []
    starts: list[tuple[int, int]] = []  # (first program line, cell number)
    for number, source in cells:
        masked = mask_ipython(source)
        if masked.skipped:  # a cell magic whose body is not Python
            continue
        ok = _parse(masked.text) is not None
        facts.parses[f"cell {number}"] = ok
        if ok:
            starts.append((sum(piece.count("\n") for piece in program) + 1, number))
            program.append(masked.text if masked.text.endswith("\n") else masked.text + "\n")

    def where(line: int) -> str:
        first, number = max((s for s in starts if s[0] <= line), default=(1, 0))
        return f"cell {number}:{line - first + 1}"

    tree = _parse("".join(program))
    if tree is not None:
        facts.undefined = _undefined_names(tree, where)
    return facts


# -- diffs -----------------------------------------------------------------------------------


def _units(path: str, data: bytes) -> dict[str, str]:
    """The file's code by unit: the whole text of a .py file, each code cell of a notebook."""
    if not path.endswith(".ipynb"):
        return {"": data.decode("utf-8", "replace")}
    try:
        return {f"cell {number}": source for number, source in notebook_cells(data)}
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {"": data.decode("utf-8", "replace")}


@dataclass(frozen=True)
class Hunk:
    path: str
    unit: str  # "" or "cell N"
    old_start: int  # first line of the hunk in the old text (1-based)
    old_end: int
    text: str


def hunks(path: str, before: bytes, after: bytes, context: int = 3) -> list[Hunk]:
    """The unified-diff hunks between two versions of a file (per cell in a notebook)."""
    old_units, new_units = _units(path, before), _units(path, after)
    found = []
    for unit, old in old_units.items():
        new = new_units.get(unit, "")
        if old == new:
            continue
        label = f"{path} {unit}".strip()
        lines = list(
            difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{label}", f"b/{label}", n=context
            )
        )
        current: list[str] = []
        start = 0
        for line in lines[2:]:
            if line.startswith("@@"):
                if current:
                    found.append(Hunk(path, unit, start, start + _old_length(current), "".join(current)))
                start = int(line.split()[1].lstrip("-").split(",")[0])
                current = []
            current.append(line if line.endswith("\n") else line + "\n")
        if current:
            found.append(Hunk(path, unit, start, start + _old_length(current), "".join(current)))
    return found


def _old_length(lines: list[str]) -> int:
    return sum(1 for line in lines[1:] if not line.startswith("+"))


def file_diff(path: str, before: bytes, after: bytes) -> str:
    return "".join(h.text for h in hunks(path, before, after))


def quoted(diff: str, limit: int = QUOTED_DIFF_LINES) -> str:
    lines = diff.splitlines()
    more = f"\n... ({len(lines) - limit} more lines)" if len(lines) > limit else ""
    return "```diff\n" + "\n".join(lines[:limit]) + more + "\n```"


# -- running gpulint -------------------------------------------------------------------------


@dataclass
class Run:
    """One gpulint invocation over one folder."""

    folder: str
    step: str  # "before", "fix", "again", "declined"
    returncode: int | None  # None: timed out
    seconds: float
    findings: list[dict] = field(default_factory=list)
    stderr: str = ""
    json_error: str | None = None
    #: ("declined" step) each finding whose rewrite its fixer declined: (code, reason).
    declined: list[tuple[str, str]] = field(default_factory=list)

    @property
    def file_errors(self) -> list[str]:
        return [
            line
            for line in self.stderr.splitlines()
            if line.startswith("error: ") and not line.startswith("error: internal error")
        ]

    @property
    def internal_error(self) -> str | None:
        lines = self.stderr.splitlines()
        for index, line in enumerate(lines):
            if line.startswith("error: internal error") or line.startswith("Traceback"):
                return "\n".join(lines[index : index + 20])
        return None


def run_gpulint(command: list[str], folder: Path, step: str, timeout: float) -> Run:
    """`command check --select ALL --preview [--fix] --unsafe-fixes --output-format json
    --exit-zero folder`; the "declined" step lists findings with `--show-fixes` instead."""
    declined = step == "declined"
    args = [
        *command,
        "check",
        "--select",
        "ALL",
        *preview_arguments(tuple(command)),
        *(["--fix"] if step in ("fix", "again") else []),
        "--unsafe-fixes",
        *(["--show-fixes", "--output-format", "concise"] if declined else ["--output-format", "json", "--quiet"]),
        "--exit-zero",
        str(folder),
    ]
    started = time.perf_counter()
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=folder.parent
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        stderr = stderr.replace(f"{folder.parent}{os.sep}", "")
        return Run(folder.name, step, None, time.perf_counter() - started, stderr=stderr)
    # Paths relative to the scratch copy, so that reports of two runs compare.
    stderr = stderr.replace(f"{folder.parent}{os.sep}", "")
    run = Run(folder.name, step, process.returncode, time.perf_counter() - started, stderr=stderr)
    if declined:
        run.declined = declined_rewrites(stdout)
        return run
    try:
        run.findings = json.loads(stdout) if stdout.strip() else []
    except json.JSONDecodeError as error:
        run.json_error = f"output is not JSON: {error}"
    return run


_DECLINED = re.compile(r"- .+?:(?:cell \d+:)?\d+:\d+: (?P<code>\S+) (?P<reason>.*)$")


def declined_rewrites(listing: str) -> list[tuple[str, str]]:
    """(code, reason) of each line `- path:line:col: CODE reason` that follows the
    `No rewrite for N findings` line of a `--show-fixes` summary."""
    found: list[tuple[str, str]] = []
    lines = iter(listing.splitlines())
    for line in lines:
        if line.startswith("No rewrite for "):
            for item in lines:
                if not item.startswith("- "):
                    break
                match = _DECLINED.match(item)
                if match:
                    found.append((match["code"], match["reason"]))
    return found


def _fixable(finding: dict) -> bool:
    fix = finding.get("fix")
    return bool(fix and fix.get("edits") and fix.get("applicability") in ("safe", "unsafe"))


def _describe(command: list[str]) -> str:
    """The gpulint that runs: its version, and this checkout's commit when it is the default."""
    try:
        version = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=120)
        text = (version.stdout or version.stderr).strip().splitlines()[-1:] or ["?"]
    except (OSError, subprocess.TimeoutExpired) as error:
        raise AuditError(f"cannot run {shlex.join(command)}: {error}") from None
    if version.returncode != 0:
        raise AuditError(f"{shlex.join(command)} --version failed: {text[0]}")
    described = f"`{shlex.join(command)}` ({text[0]})"
    if command == ["gpulint"]:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True
        )
        if head.returncode == 0:
            described += f", checkout {ROOT} at {head.stdout.strip()}"
    return described


# -- the audit -------------------------------------------------------------------------------


def _read_tree(root: Path, folder: str = "") -> dict[str, bytes]:
    """The code files under `root / folder`, by path relative to `root`."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted((root / folder).rglob("*"))
        if path.is_file() and path.name.endswith(SUFFIXES)
    }


@dataclass
class Problem:
    kind: str  # "parse", "undefined", "idempotent", "layout", "comment", "unreadable"
    path: str
    detail: str
    diff: str


@dataclass
class Audit:
    command: str
    files: dict[str, bytes]
    runs: list[Run] = field(default_factory=list)
    changed: dict[str, bytes] = field(default_factory=dict)  # path -> bytes after the fix
    problems: list[Problem] = field(default_factory=list)
    sample: list[Hunk] = field(default_factory=list)
    hunk_count: int = 0
    fixed_per_rule: Counter = field(default_factory=Counter)
    before_per_rule: Counter = field(default_factory=Counter)
    fixable_per_rule: Counter = field(default_factory=Counter)
    after_per_rule: Counter = field(default_factory=Counter)
    codes_by_hunk: dict[int, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


def audit(
    corpus: Path, scratch: Path, command: list[str], timeout: float, only: list[str], diffs_count: int, seed: int
) -> Audit:
    folders = sorted(p for p in corpus.iterdir() if p.is_dir()) if corpus.is_dir() else []
    if only:
        unknown = sorted(set(only) - {p.name for p in folders})
        if unknown:
            raise AuditError(f"not in {corpus}: {', '.join(unknown)}")
        folders = [p for p in folders if p.name in only]
    if not folders:
        raise AuditError(f"no corpus at {corpus}: run benchmarks/realcode/extract.py first")
    described = _describe(command)
    started = time.perf_counter()
    tree = scratch / "realcode"
    for folder in folders:
        shutil.copytree(folder, tree / folder.name)
    files = _read_tree(tree)
    result = Audit(described, files)
    print(f"fix audit: {len(files)} files in {len(folders)} folders, copied to {tree}", file=sys.stderr)

    before_findings: dict[str, list[dict]] = {}
    after_findings: dict[str, list[dict]] = {}
    after_fix: dict[str, bytes] = {}
    for folder in folders:
        target = tree / folder.name
        result.runs.append(run_gpulint(command, target, "declined", timeout))
        for step in ("before", "fix", "again"):
            run = run_gpulint(command, target, step, timeout)
            result.runs.append(run)
            state = "timed out" if run.returncode is None else f"exit {run.returncode}"
            print(f"  {folder.name}: {step} {run.seconds:.1f}s {state}", file=sys.stderr)
            findings = {"before": before_findings, "fix": after_findings}.get(step)
            if findings is not None:
                for finding in run.findings:
                    findings.setdefault(_relative(finding.get("filename", ""), tree), []).append(finding)
            if step == "fix":
                after_fix.update(_read_tree(tree, folder.name))
        again = _read_tree(tree, folder.name)
        for path, data in again.items():
            if data != after_fix.get(path):
                result.problems.append(
                    Problem(
                        "idempotent",
                        path,
                        "a second `--fix --unsafe-fixes` changed it",
                        file_diff(path, after_fix.get(path, b""), data),
                    )
                )

    for path, data in files.items():
        after = after_fix.get(path, data)
        if after != data:
            result.changed[path] = after
    _check_changed(result)
    _count_rules(result, before_findings, after_findings)
    _sample_hunks(result, before_findings, diffs_count, seed)
    result.seconds = time.perf_counter() - started
    return result


def _relative(filename: str, tree: Path) -> str:
    """A finding's file name (as gpulint printed it, run from `tree`) relative to `tree`."""
    try:
        return (tree / filename).resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return filename


def _check_changed(result: Audit) -> None:
    """The checks on each changed file, against the original kept in `result.files`."""
    for path, after in result.changed.items():
        before = result.files[path]
        old, new = code_facts(path, before), code_facts(path, after)
        if new.unreadable and not old.unreadable:
            result.problems.append(Problem("unreadable", path, new.unreadable, ""))
            continue
        broken = [unit or "the file" for unit, ok in new.parses.items() if not ok and old.parses.get(unit, False)]
        if broken:
            result.problems.append(
                Problem("parse", path, "no longer parses: " + ", ".join(broken), file_diff(path, before, after))
            )
        lost = _comments(path, before) - _comments(path, after)
        if lost:
            shown = ", ".join(f"`{text}`" for text in sorted(lost)[:3]) + (", ..." if len(lost) > 3 else "")
            result.problems.append(
                Problem(
                    "comment", path, f"{sum(lost.values())} comment(s) gone: {shown}", file_diff(path, before, after)
                )
            )
        spaced = _trailing_whitespace(path, after) - _trailing_whitespace(path, before)
        if spaced > 0:
            result.problems.append(
                Problem("layout", path, f"{spaced} more line(s) end with whitespace", file_diff(path, before, after))
            )
        for key, where in new.undefined.items():
            added = len(where) - len(old.undefined.get(key, []))
            if added > 0:
                kind, name = key
                result.problems.append(
                    Problem(
                        "undefined",
                        path,
                        f"new pyflakes {kind} `{name}` (+{added}) at {', '.join(where)}",
                        file_diff(path, before, after),
                    )
                )


def _comments(path: str, data: bytes) -> Counter:
    """The comments of the file's code (every cell's, in a notebook); a unit that does not
    tokenize counts none."""
    found: Counter = Counter()
    for text in _units(path, data).values():
        try:
            found.update(
                token.string.strip()
                for token in tokenize.generate_tokens(io.StringIO(text).readline)
                if token.type == tokenize.COMMENT
            )
        except (tokenize.TokenError, SyntaxError):
            continue
    return found


def _trailing_whitespace(path: str, data: bytes) -> int:
    """Lines of code (of every cell, in a notebook) that end with a space or a tab."""
    return sum(1 for text in _units(path, data).values() for line in text.splitlines() if line != line.rstrip(" \t"))


def _count_rules(result: Audit, before: dict[str, list[dict]], after: dict[str, list[dict]]) -> None:
    """Findings per rule before and after; per file, each finding fewer counts as fixed."""
    for path in set(before) | set(after):
        old = Counter(f["code"] for f in before.get(path, []))
        new = Counter(f["code"] for f in after.get(path, []))
        result.before_per_rule.update(old)
        result.after_per_rule.update(new)
        result.fixable_per_rule.update(f["code"] for f in before.get(path, []) if _fixable(f))
        for code, count in old.items():
            if count > new[code]:
                result.fixed_per_rule[code] += count - new[code]


def _sample_hunks(result: Audit, before: dict[str, list[dict]], count: int, seed: int) -> None:
    every = [h for path, after in sorted(result.changed.items()) for h in hunks(path, result.files[path], after)]
    result.hunk_count = len(every)
    result.sample = random.Random(seed).sample(every, min(count, len(every)))
    for index, hunk in enumerate(result.sample):
        cell = int(hunk.unit.split()[1]) if hunk.unit else None
        result.codes_by_hunk[index] = sorted(
            {f["code"] for f in before.get(hunk.path, []) if _fixable(f) and _edits_touch(f, hunk, cell)}
        )


def _edits_touch(finding: dict, hunk: Hunk, cell: int | None) -> bool:
    """Whether one of the finding's fix edits falls in the hunk's lines (of that cell)."""
    return any(
        edit.get("cell", finding.get("cell")) == cell
        and edit["location"]["row"] <= hunk.old_end
        and edit["end_location"]["row"] >= hunk.old_start
        for edit in finding["fix"]["edits"]
    )


# -- the report ------------------------------------------------------------------------------


def summary(result: Audit, scratch_note: str) -> str:
    files = result.files
    notebooks = sum(1 for p in files if p.endswith(".ipynb"))
    timeouts = [r for r in result.runs if r.returncode is None]
    internal = [r for r in result.runs if r.internal_error]
    not_json = [r for r in result.runs if r.json_error]
    file_errors = sorted({line for r in result.runs if r.step == "fix" for line in r.file_errors})
    kinds = Counter(p.kind for p in result.problems)
    lines = [
        "# Fix audit: `gpulint check --fix --unsafe-fixes` on the pinned real repositories",
        "",
        f"gpulint: {result.command}. Corpus: {len(files)} files ({len(files) - notebooks} `.py`, "
        f"{notebooks} notebooks) from {len({p.split('/')[0] for p in files})} repositories "
        "(`benchmarks/realcode/repos.toml`). Reproduce: `python benchmarks/realcode/extract.py && "
        "python -m benchmarks.realcode.fix_audit`.",
        "",
        "| check | result |",
        "| --- | --- |",
        f"| files changed by the fix | {len(result.changed)} |",
        f"| findings before / fixable before / after | {sum(result.before_per_rule.values())} / "
        f"{sum(result.fixable_per_rule.values())} / {sum(result.after_per_rule.values())} |",
        f"| findings fixed (gone after the fix) | {sum(result.fixed_per_rule.values())} |",
        f"| changed files that no longer parse | {kinds['parse'] + kinds['unreadable']} |",
        f"| new pyflakes undefined names | {kinds['undefined']} |",
        f"| files changed again by a second fix (not idempotent) | {kinds['idempotent']} |",
        f"| changed files with more lines ending in whitespace | {kinds['layout']} |",
        f"| changed files that lost a comment | {kinds['comment']} |",
        f"| per-file gpulint errors (fix run) | {len(file_errors)} |",
        f"| internal errors / output not JSON / time-outs | {len(internal)} / {len(not_json)} / {len(timeouts)} |",
        f"| audit time | {result.seconds:.0f} s ({sum(r.seconds for r in result.runs):.0f} s in gpulint) |",
        "",
        "## Findings per rule",
        "",
        "| rule | before | fixable | fixed | after |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for code in sorted(set(result.before_per_rule) | set(result.after_per_rule)):
        lines.append(
            f"| {code} | {result.before_per_rule[code]} | {result.fixable_per_rule[code]} | "
            f"{result.fixed_per_rule[code]} | {result.after_per_rule[code]} |"
        )
    declined = Counter(item for r in result.runs for item in r.declined)
    lines += [
        "",
        "## Rewrites the fixers declined",
        "",
        "Findings whose rule has a fixer that wrote no rewrite for them (each keeps its rule's "
        "suggestion), by the reason the fixer gave (`--show-fixes`).",
        "",
        "| rule | reason | findings |",
        "| --- | --- | ---: |",
    ]
    lines += [f"| {code} | {reason} | {count} |" for (code, reason), count in sorted(declined.items())]
    lines += [
        "",
        "## Per repository",
        "",
        "| repository | files | changed | before s | fix s | again s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for folder in sorted({r.folder for r in result.runs}):
        times = {
            r.step: ("timeout" if r.returncode is None else f"{r.seconds:.1f}")
            for r in result.runs
            if r.folder == folder
        }
        count = sum(1 for p in files if p.startswith(folder + "/"))
        changed = sum(1 for p in result.changed if p.startswith(folder + "/"))
        lines.append(
            f"| {folder} | {count} | {changed} | {times.get('before')} | {times.get('fix')} | {times.get('again')} |"
        )
    if result.problems:
        lines += ["", "## Problems", ""]
        for problem in result.problems:
            lines += [f"- **{problem.kind}** `{problem.path}`: {problem.detail}"]
            if problem.diff:
                lines += ["", quoted(problem.diff), ""]
    if file_errors or internal or timeouts or not_json:
        lines += [
            "",
            "## gpulint errors",
            "",
            "Per-file errors are files gpulint refuses to read (reported, the run goes on); "
            "internal errors and time-outs abort a run.",
            "",
        ]
        lines += [f"- {line}" for line in file_errors]
        lines += [f"- {r.folder} ({r.step}): internal error\n\n```\n{r.internal_error}\n```" for r in internal]
        lines += [f"- {r.folder} ({r.step}): {r.json_error}" for r in not_json]
        lines += [f"- {r.folder} ({r.step}): timed out after {r.seconds:.0f} s" for r in timeouts]
    lines += [
        "",
        f"{len(result.sample)} of the fix's {result.hunk_count} diff hunks, drawn at random, are in {scratch_note}.",
        "",
    ]
    return "\n".join(lines)


def sample_report(result: Audit, seed: int) -> str:
    lines = [
        f"# {len(result.sample)} random hunks of the fix (seed {seed}) of {result.hunk_count}",
        "",
        f"gpulint: {result.command}",
        "",
    ]
    for index, hunk in enumerate(result.sample):
        codes = ", ".join(result.codes_by_hunk.get(index, [])) or "?"
        where = f"`{hunk.path}` {hunk.unit}".rstrip()
        lines += [f"## {index + 1}. {where} ({codes})", "", "```diff", hunk.text.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="the extracted corpus (default: %(default)s)"
    )
    parser.add_argument(
        "--gpulint", default="gpulint", metavar="CMD", help="the gpulint command to audit (default: %(default)s)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="OWNER+NAME",
        help="audit only this repository folder (repeatable)",
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds each gpulint run may take (default: %(default)s)"
    )
    parser.add_argument("--diffs-count", type=int, default=20, help="random diff hunks to write (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random draw (default: %(default)s)")
    parser.add_argument("--diffs", type=Path, default=DEFAULT_DIFFS, help="file for the hunks (default: %(default)s)")
    parser.add_argument("--output", type=Path, help="also write the summary to this file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy (its path is printed)")
    args = parser.parse_args(argv)
    # The checks import pyflakes, and gpulint's IPython masking, from this Python.
    missing = [name for name in ("pyflakes", "gpulint") if importlib.util.find_spec(name) is None]
    if missing:
        print(
            f"error: not importable in this Python: {', '.join(missing)} (run it in the project's virtual environment)",
            file=sys.stderr,
        )
        return 2
    try:
        command = shlex.split(args.gpulint)
    except ValueError as error:
        print(f"error: --gpulint: {error}", file=sys.stderr)
        return 2
    if not command:
        print("error: --gpulint is empty", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="gpulint-fix-audit-"))
    try:
        result = audit(args.corpus.resolve(), scratch, command, args.timeout, args.only, args.diffs_count, args.seed)
        args.diffs.parent.mkdir(parents=True, exist_ok=True)
        args.diffs.write_text(sample_report(result, args.seed), encoding="utf-8")
        shown = args.diffs.resolve()
        text = summary(result, f"`{shown.relative_to(ROOT) if shown.is_relative_to(ROOT) else shown}`")
        print(text)
        if not write_files((args.output, text)):
            return 2
    except AuditError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"scratch copy kept at {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    failed = result.problems or any(r.returncode is None or r.internal_error or r.json_error for r in result.runs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
