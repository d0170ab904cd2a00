"""The ecosystem report: gpulint's findings on the pinned real repositories, and what changed
since a committed baseline (as ruff's ecosystem check does for ruff).

    python -m benchmarks.ecosystem [--output benchmarks/results/ecosystem.md]
        [--update-baseline] [--baseline benchmarks/results/ecosystem_baseline.json]
        [--gpulint "CMD"] [--corpus benchmarks/.corpus/realcode] [--labels DIR] [--limit N]

Runs `gpulint check --select ALL --preview` (every rule of every tier; JSON output, an
empty configuration, no cache), and once more without `--preview` to tell a default rule's
preview behaviour (what it reports in preview mode only) from its default findings, on every
`.py` and `.ipynb` file of the repositories in `benchmarks/realcode/repos.toml`, as
`benchmarks/realcode/extract.py` writes them into the corpus (git-ignored: the files are
passed to gpulint by name). The report gives the findings per tier, family and rule, the
share of the biggest rule, and the findings that are new or vanished against the baseline,
each with the hand-label verdict of `benchmarks/realcode/labels/*.csv` at its place, or
"unlabelled". A finding is identified by repository, path, cell, line and rule.

`--update-baseline` rewrites the baseline from this run (sorted, one finding a line, paths
relative to the corpus; it records the gpulint commit and the repositories' pinned
commits), and the report then compares against it, so its difference is empty. `--gpulint
CMD` runs another gpulint (split like a shell command line; default: this Python's `-m
gpulint`); rule families and tiers are read from the registry of the gpulint this script imports.

The report is Markdown on standard output and in `--output`. Exit codes: 0 the report was
written (whatever it shows), 2 the corpus is missing, the baseline cannot be read, gpulint
failed or the report cannot be written.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.realcode.output import write_files
from benchmarks.realcode.extract import REPOS, ExtractError, Repo, load_repos
from benchmarks.realcode.labels import (
    DEFAULT_CORPUS,
    TUNED_LABELS,
    Label,
    LabelError,
    Place,
    by_place,
    label_within,
    load,
)
from benchmarks.realcode.recall import (
    Finding,
    RecallError,
    gpulint_command,
    preview_arguments,
    run_gpulint,
)

if TYPE_CHECKING:
    from gpulint.registry import Rule

HERE = Path(__file__).resolve().parent
DEFAULT_BASELINE = HERE / "results" / "ecosystem_baseline.json"
#: The shape of the baseline file.
FORMAT = 1
#: The tier shown for a code the imported registry does not have (a rule since removed).
DEFAULT_TIER = "default"
PREVIEW_TIER = "preview"
#: How the report names the tier of a rule's preview behaviour (and the baseline marks it).
PREVIEW_BEHAVIOUR = "preview behaviour"
#: Findings listed per difference section unless `--limit` says otherwise.
LIMIT = 200


class EcosystemError(Exception):
    """The report cannot be made; one line for the user."""


#: A finding's identity in the difference: (repo, path, cell, line, code).
Key = tuple[str, str, int | None, int, str]


def key(finding: Finding) -> Key:
    return (finding.repo, finding.path, finding.cell, finding.first, finding.code)


def _order(finding: Finding) -> tuple:
    return (finding.repo, finding.path, finding.cell or 0, finding.first, finding.code, finding.last)


def where(finding: Finding) -> str:
    """`path:cell N:line` in a notebook, `path:line` in a .py file (as labels write it)."""
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{finding.path}:{cell}{finding.first}"


def rule_tier(rule: type[Rule]) -> str:
    """A rule's tier ("default", "preview" or "opt-in"), as its `tier` attribute says."""
    return rule.tier.value


def registry() -> tuple[dict[str, str], dict[str, str]]:
    """(rule code -> family, rule code -> tier) for every rule of the imported gpulint; the
    family as `gpulint rule --format json` gives it."""
    from gpulint.docs import rule_json
    from gpulint.registry import all_rules

    rules = all_rules()
    return {rule.code: rule_json(rule)["family"] for rule in rules}, {rule.code: rule_tier(rule) for rule in rules}


# -- the run -----------------------------------------------------------------------------


def corpus_files(corpus: Path, repos: Sequence[Repo]) -> list[str]:
    """Every .py and .ipynb file of the repositories, relative to the corpus, sorted; an
    EcosystemError names the repositories the corpus lacks."""
    if not corpus.is_dir():
        raise EcosystemError(f"{corpus}: no corpus here (run python benchmarks/realcode/extract.py)")
    missing = [repo.name for repo in repos if not (corpus / repo.folder).is_dir()]
    if missing:
        raise EcosystemError(f"{corpus} lacks {', '.join(missing)} (run python benchmarks/realcode/extract.py)")
    return sorted(
        path.relative_to(corpus).as_posix()
        for repo in repos
        for path in (corpus / repo.folder).rglob("*")
        if path.suffix in (".py", ".ipynb") and path.is_file()
    )


def check_arguments(command: Sequence[str]) -> list[str]:
    """The `gpulint check` arguments beyond `--select ALL`: `--no-cache`, and `--preview`
    when that gpulint has the option (so rules still being tuned run too)."""
    try:
        return ["--no-cache", *preview_arguments(tuple(command))]
    except RecallError as error:
        raise EcosystemError(str(error)) from error


def gpulint_commit(command: Sequence[str]) -> dict[str, object]:
    """The commit of the gpulint checkout this script imports (None for another command),
    and whether its tracked files differ from that commit."""
    if list(command) != gpulint_command():
        return {"commit": None, "modified": None}
    import gpulint

    checkout = Path(gpulint.__file__).resolve().parent
    head = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        return {"commit": None, "modified": None}
    diff = subprocess.run(
        ["git", "-C", str(checkout), "diff", "--quiet", "HEAD", "--"], capture_output=True, check=False
    )
    return {"commit": head.stdout.strip(), "modified": diff.returncode != 0}


# -- the baseline ------------------------------------------------------------------------


@dataclass
class Baseline:
    """One run's findings and what they were made with."""

    findings: list[Finding]
    files: int = 0
    unreadable: list[str] = field(default_factory=list)
    repos: dict[str, str] = field(default_factory=dict)
    gpulint: dict[str, object] = field(default_factory=dict)
    arguments: list[str] = field(default_factory=list)


def dump_baseline(baseline: Baseline) -> str:
    """The baseline as JSON: stable (sorted, no times), one finding a line so that a
    change of the baseline reads as a line diff."""
    head = {
        "format": FORMAT,
        "gpulint": baseline.gpulint,
        "arguments": baseline.arguments,
        "repos": [{"name": name, "commit": commit} for name, commit in sorted(baseline.repos.items())],
        "files": baseline.files,
        "unreadable": sorted(baseline.unreadable),
    }
    lines = [json.dumps(head, indent=2)[:-2] + ",", '  "findings": [']
    rows = [
        json.dumps([f.repo, f.path, f.cell, f.first, f.last, f.code, *([PREVIEW_BEHAVIOUR] if f.preview else [])])
        for f in sorted(baseline.findings, key=_order)
    ]
    lines.append(",\n".join("    " + row for row in rows))
    lines += ["  ]", "}"]
    return "\n".join(line for line in lines if line) + "\n"


def load_baseline(path: Path) -> Baseline | None:
    """The baseline at `path`; None when there is none; EcosystemError when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise EcosystemError(f"cannot read the baseline {path}: {error}") from error
    try:
        if data["format"] != FORMAT:
            raise EcosystemError(f"{path}: baseline format {data['format']!r}, this script reads {FORMAT}")
        findings = [
            Finding(repo, path_, cell, code, int(first), int(last), preview=mark == [PREVIEW_BEHAVIOUR])
            for repo, path_, cell, first, last, code, *mark in data["findings"]
        ]
        return Baseline(
            findings,
            int(data["files"]),
            list(data["unreadable"]),
            {repo["name"]: repo["commit"] for repo in data["repos"]},
            dict(data["gpulint"]),
            list(data["arguments"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise EcosystemError(f"{path} is not an ecosystem baseline ({type(error).__name__}: {error})") from error


# -- the comparison ----------------------------------------------------------------------


def difference(old: Iterable[Finding], new: Iterable[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(new, vanished): the findings of `new` that `old` lacks and those of `old` that `new`
    lacks, by identity (`key`) counted with multiplicity, each sorted."""
    old, new = list(old), list(new)
    before, after = Counter(map(key, old)), Counter(map(key, new))
    added, gone = after - before, before - after

    def take(findings: list[Finding], wanted: Counter) -> list[Finding]:
        picked = []
        for finding in sorted(findings, key=_order):
            if wanted[key(finding)] > 0:
                wanted[key(finding)] -= 1
                picked.append(finding)
        return picked

    return take(new, added), take(old, gone)


def annotation(finding: Finding, labels: dict[Place, list[Label]]) -> str:
    """The hand-label verdict at a finding (same repository, file, cell and rule, the
    label's line within the finding's lines), or "unlabelled"."""
    label = label_within(labels, (finding.repo, finding.path, finding.cell, finding.code), finding.first, finding.last)
    return f"{label.verdict}: {label.why}" if label else "unlabelled"


# -- the report --------------------------------------------------------------------------


@dataclass
class Row:
    """Counts for one tier, family or rule."""

    findings: int = 0
    baseline: int = 0
    new: int = 0
    vanished: int = 0
    rules: int = 0


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _table(title: str, rows: dict[str, Row], total: int, *, rules: bool = False) -> list[str]:
    head = f"| {title} |" + (" Rules |" if rules else "") + " Findings | Share | Baseline | New | Vanished |"
    lines = [head, "|---|" + ("---:|" if rules else "") + "---:|---:|---:|---:|---:|"]
    for name, row in rows.items():
        lines.append(
            f"| {name} |"
            + (f" {row.rules} |" if rules else "")
            + f" {row.findings} | {_share(row.findings, total)} | {row.baseline} | {row.new} | {row.vanished} |"
        )
    return lines


def biggest(findings: Sequence[Finding], codes: set[str] | None = None) -> str:
    """ "GPUxxx: n of N findings (s%)" for the rule with the most findings (among `codes`)."""
    counts = Counter(f.code for f in findings if codes is None or f.code in codes)
    if not counts:
        return "no findings"
    code, count = min(counts.items(), key=lambda item: (-item[1], item[0]))
    total = sum(counts.values())
    return f"{code}: {count} of {total} findings ({_share(count, total)})"


def _listing(title: str, findings: list[Finding], labels: dict[Place, list[Label]], limit: int) -> list[str]:
    lines = [f"## {title} ({len(findings)})", ""]
    shown = findings if limit <= 0 else findings[:limit]
    for finding in shown:
        message = f" — {finding.message}" if finding.message else ""
        lines.append(
            f"- {finding.code} {finding.repo} `{where(finding)}`{message} — label: {annotation(finding, labels)}"
        )
    if len(shown) < len(findings):
        lines.append(f"- … and {len(findings) - len(shown)} more (`--limit 0` lists them all)")
    return lines + (["None.", ""] if not findings else [""])


def report(
    current: Baseline,
    baseline: Baseline | None,
    labels: Sequence[Label],
    families: dict[str, str],
    tiers: dict[str, str],
    header: str,
    limit: int = LIMIT,
) -> str:
    """The Markdown report of `current` against `baseline` (None: there is none)."""
    groups = by_place(labels)
    old = baseline.findings if baseline else []
    added, gone = difference(old, current.findings) if baseline else ([], [])
    codes = sorted(set(tiers) | {f.code for f in current.findings} | {f.code for f in old})
    per_rule = {(code, False): Row() for code in codes}
    for findings, attribute in ((current.findings, "findings"), (old, "baseline"), (added, "new"), (gone, "vanished")):
        for finding in findings:
            row = per_rule.setdefault((finding.code, finding.preview), Row())
            setattr(row, attribute, getattr(row, attribute) + 1)
    per_rule = dict(sorted(per_rule.items()))
    per_tier: dict[str, Row] = defaultdict(Row)
    per_family: dict[str, Row] = defaultdict(Row)
    for (code, preview), row in per_rule.items():
        tier = PREVIEW_BEHAVIOUR if preview else tiers.get(code, DEFAULT_TIER)
        for group in (per_tier[tier], per_family[families.get(code, "?")]):
            group.rules += 1
            for name in ("findings", "baseline", "new", "vanished"):
                setattr(group, name, getattr(group, name) + getattr(row, name))
    total = len(current.findings)
    default_codes = {code for code in codes if tiers.get(code, DEFAULT_TIER) == DEFAULT_TIER}
    lines = [header, ""]
    if baseline is None:
        lines += ["No baseline yet: `--update-baseline` makes one.", ""]
    else:
        lines += [
            f"Against the baseline: {len(added)} new, {len(gone)} vanished"
            + (" (no difference)." if not added and not gone else "."),
            "",
        ]
        if baseline.repos != current.repos:
            names = ", ".join(sorted({name for name, _ in set(baseline.repos.items()) ^ set(current.repos.items())}))
            lines += [f"The baseline was made on other repositories or pins: {names}.", ""]
    default_biggest = biggest([f for f in current.findings if not f.preview], default_codes)
    lines += [f"Biggest rule: {biggest(current.findings)}; in the default tier: {default_biggest}.", ""]
    lines += ["## Per tier", ""] + _table("Tier", dict(sorted(per_tier.items())), total, rules=True) + [""]
    lines += ["## Per family", ""] + _table("Family", dict(sorted(per_family.items())), total, rules=True) + [""]
    rule_rows = {
        f"{code} ({families.get(code, '?')}, {PREVIEW_BEHAVIOUR if preview else tiers.get(code, DEFAULT_TIER)})": row
        for (code, preview), row in per_rule.items()
    }
    lines += ["## Per rule", ""] + _table("Rule (family, tier)", rule_rows, total) + [""]
    if baseline is not None:
        lines += _listing("New findings", added, groups, limit)
        lines += _listing("Vanished findings", gone, groups, limit)
    lines += [f"## Files gpulint could not read ({len(current.unreadable)})", ""]
    lines += [f"- {line}" for line in sorted(current.unreadable)]
    return "\n".join(lines).rstrip("\n") + "\n"


# -- the command -------------------------------------------------------------------------


def _relative(corpus: Path, message: str) -> str:
    """A gpulint error line with the corpus folder left out of its path."""
    return message.replace(str(corpus) + "/", "")


def collect(command: Sequence[str], corpus: Path, repos: Sequence[Repo], tiers: dict[str, str]) -> Baseline:
    """Run gpulint over the corpus: its findings and what they were made with. `tiers`: rule
    code -> tier (a preview rule's findings are preview anyway, not a preview behaviour)."""
    files = corpus_files(corpus, repos)
    arguments = check_arguments(command)
    commit = gpulint_commit(command)  # before the run, which may take minutes
    unreadable: list[str] = []
    findings = run_gpulint(command, corpus, files, extra=arguments, unreadable=unreadable)
    if "--preview" in arguments:  # which of them preview mode alone reports: a second run without it
        stable = {key(f) for f in run_gpulint(command, corpus, files, extra=["--no-cache"], unreadable=[])}
        findings = [
            replace(f, preview=tiers.get(f.code, DEFAULT_TIER) != PREVIEW_TIER and key(f) not in stable)
            for f in findings
        ]
    return Baseline(
        sorted(findings, key=_order),
        len(files),
        sorted(_relative(corpus, line) for line in unreadable),
        {repo.name: repo.commit for repo in repos},
        commit,
        ["--select", "ALL", *arguments],
    )


def _describe(run: Baseline) -> str:
    commit = run.gpulint.get("commit")
    if not commit:
        return "commit unknown"
    return f"commit {str(commit)[:12]}" + (" with modified files" if run.gpulint.get("modified") else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ecosystem", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="the extracted corpus (default: %(default)s)"
    )
    parser.add_argument("--repos", type=Path, default=REPOS, help="the pinned repositories (default: %(default)s)")
    parser.add_argument("--baseline", type=Path, default=DEFAULT_BASELINE, help="the baseline (default: %(default)s)")
    parser.add_argument("--update-baseline", action="store_true", help="rewrite the baseline from this run")
    parser.add_argument(
        "--labels",
        type=Path,
        action="append",
        help="label CSV or folder, repeatable (default: every label of the tuned set, TUNED_LABELS)",
    )
    parser.add_argument("--output", type=Path, help="also write the report here (Markdown)")
    parser.add_argument("--gpulint", default="", help="command that runs gpulint (default: this Python's -m gpulint)")
    parser.add_argument(
        "--limit",
        type=int,
        default=LIMIT,
        help="findings listed per difference section, 0 for all (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    command = gpulint_command(args.gpulint)
    try:
        repos = load_repos(args.repos)
        corpus = args.corpus.resolve()
        families, tiers = registry()
        current = collect(command, corpus, repos, tiers)
        baseline = load_baseline(args.baseline)
        labels = load(args.labels or list(TUNED_LABELS), check_codes=False)
    except (EcosystemError, ExtractError, LabelError, RecallError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.update_baseline:
        if baseline is not None:
            added, gone = difference(baseline.findings, current.findings)
            print(f"baseline {args.baseline}: {len(added)} new, {len(gone)} vanished findings", file=sys.stderr)
        baseline = current
    shown = "python -m benchmarks.ecosystem " + shlex.join(argv if argv is not None else sys.argv[1:])
    header = (
        f"# gpulint ecosystem report\n\nCommand: `{shown.strip()}`\n\n"
        f"{len(current.repos)} pinned repositories, {current.files} files ({len(current.unreadable)} unreadable), "
        f"{len(current.findings)} findings of `gpulint check {shlex.join(current.arguments)}` "
        f"({_describe(current)}); baseline: " + (_describe(baseline) if baseline is not None else "none") + "."
    )
    text = report(current, baseline, labels, families, tiers, header, args.limit)
    print(text, end="")
    baseline_file = args.baseline if args.update_baseline else None
    written = write_files((baseline_file, dump_baseline(current) if baseline_file else ""), (args.output, text))
    return 0 if written else 2


if __name__ == "__main__":
    sys.exit(main())
