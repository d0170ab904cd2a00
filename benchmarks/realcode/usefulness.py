"""How useful gpulint's findings are on real code: a stratified, hand-checked sample.

Recall and precision (`recall.py`) ask whether a finding is the rule's idiom. This asks the
user's question: would someone who knows the idiom act on the finding (a loop that runs
many times, data that is not toy-sized where the rule's docs say size matters)? Its answer
decides which rules belong in the default set.

Two steps, both on one findings file of `gpulint check --select ALL --output-format json
--exit-zero --no-cache <copy of the corpus>` (gpulint skips git-ignored paths, so lint a
copy of `benchmarks/.corpus/realcode`):

    python -m benchmarks.realcode.usefulness draw --findings F.json --corpus COPY \\
        [--seed 13] [--per-rule 15] [--per-file 3] [--syntax 10] [--top-up SAMPLE.csv] --output NEW.csv
    python -m benchmarks.realcode.usefulness report --findings F.json [--default-findings D.json] \\
        [--sample benchmarks/realcode/labels/usefulness.csv] [--output REPORT.md]

    python -m benchmarks.realcode.usefulness random --findings F.json --corpus COPY [--seed 29] \
        [--size 150] [--sample benchmarks/realcode/labels/usefulness.csv] \
        [--list benchmarks/realcode/labels/usefulness_random.csv] --output NEW.csv

`random` draws a simple random sample of the default set's findings (`--size` of them,
seed stated), writes the places drawn to `--list`, and the ones the sample has no verdict
for yet, with an empty verdict, to `--output`; once checked they join the sample, and
`report` gives the useful rate of each random draw beside the stratified figures (every
`usefulness_random*.csv` beside the sample, or the `--random-list` files named: a draw made
later, on the findings of a later commit, is kept as a file of its own).

`draw` picks, per rule, up to `--per-rule` findings at random (seed stated), never more than
`--per-file` of one rule from one file, and writes them with an empty verdict for a person
to fill in; with `--top-up SAMPLE`, the rows of a checked sample that are still reported
count towards the quotas, so only the difference is drawn (after the rules changed). The
report counts only the sampled findings still reported, and says how many are gone.
GPU001 (syntax error) is sampled only among the messages that valid IPython can produce
(`invalid syntax`, `unexpected indent`), `--syntax` of them: a Python 2 `print` statement
or an unterminated string is plainly not valid, while a cell of IPython-only syntax would
be a false report.

With `--default-findings` (the same `gpulint check` without `--preview`), the findings of
a default rule that only preview mode reports (its preview behaviour) are kept out of the
default set: `random` does not draw them, `report` gives them a row of their own.

`report` prints, per rule, the findings, the sampled and the useful ones, and the same for
the default set (the rules whose class has no `tier`, or `tier` "default"): the useful rate
of its sample and the share of its biggest rule. The sample CSV has the header `HEADER`,
verdict `useful` or `noise`, one short reason each, rows sorted by code, repo, path, cell,
line. Exit codes: 0 done, 2 a file cannot be read or is malformed.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable

from benchmarks.ecosystem import DEFAULT_TIER, PREVIEW_BEHAVIOUR, PREVIEW_TIER, rule_tier
from benchmarks.realcode.labels import DEFAULT_LABELS, RANDOM_DRAWS, SNIPPET_LIMIT, source_lines
from benchmarks.realcode.output import write_files

HEADER = ("repo", "path", "cell", "line", "code", "verdict", "why", "snippet")
VERDICTS = ("useful", "noise")
#: How a reason starts when the verdict was a close call.
DEBATABLE = "debatable:"
DEFAULT_SAMPLE = DEFAULT_LABELS / "usefulness.csv"
SYNTAX_ERROR = "GPU001"
#: GPU001 messages that IPython-only syntax (automagics, prompts, indented cells) produces.
AMBIGUOUS_SYNTAX = ("SyntaxError: invalid syntax", "SyntaxError: unexpected indent")


class UsefulnessError(Exception):
    """A findings or sample file that cannot be used; the message says why."""


@dataclass(frozen=True, order=True)
class Place:
    """Where one finding is, rule included (the sample's sort key)."""

    code: str
    repo: str
    path: str
    cell: int  # 0 for a .py file
    line: int


def read_findings(path: Path) -> dict[Place, str]:
    """The findings of a gpulint JSON file: place -> message (the first, where one place has
    several). The repository is the first folder of the file's path named `owner+name`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsefulnessError(f"{path}: cannot read findings: {error}") from error
    if not isinstance(data, list):
        raise UsefulnessError(f"{path}: not a list of findings")
    places: dict[Place, str] = {}
    for item in data:
        try:
            parts = Path(item["filename"]).parts
            index = next(i for i, part in enumerate(parts) if "+" in part)
            place = Place(
                item["code"],
                parts[index].replace("+", "/", 1),
                "/".join(parts[index + 1 :]),
                item.get("cell") or 0,
                int(item["location"]["row"]),
            )
            places.setdefault(place, str(item.get("message", "")))
        except (KeyError, TypeError, ValueError, StopIteration) as error:
            raise UsefulnessError(f"{path}: a finding without a corpus location: {item!r:.200}") from error
    return places


def draw(
    findings: dict[Place, str], *, seed: int, per_rule: int, per_file: int, syntax: int, already: Iterable[Place] = ()
) -> list[Place]:
    """The stratified sample: per rule a seeded shuffle, taken in order while the rule's
    quota and the per-file limit allow; GPU001 only among ambiguous messages. Places
    `already` sampled (and still reported) count towards their rule's quota and file limit
    and are not drawn again: a top-up after the rules changed."""
    already = {place for place in already if place in findings}
    by_code: dict[str, list[Place]] = defaultdict(list)
    for place, message in sorted(findings.items()):
        if place.code == SYNTAX_ERROR and not message.startswith(AMBIGUOUS_SYNTAX):
            continue
        by_code[place.code].append(place)
    sample: list[Place] = []
    for code, candidates in sorted(by_code.items()):
        random.Random(f"{seed}:{code}").shuffle(candidates)
        quota = syntax if code == SYNTAX_ERROR else per_rule
        taken: Counter[tuple[str, str]] = Counter((p.repo, p.path) for p in already if p.code == code)
        for place in candidates:
            if sum(taken.values()) >= quota:
                break
            if place not in already and taken[place.repo, place.path] < per_file:
                taken[place.repo, place.path] += 1
                sample.append(place)
    return sorted(sample)


def draw_random(
    findings: dict[Place, str],
    default_codes: set[str],
    *,
    seed: int,
    size: int,
    preview_only: set[Place] | frozenset[Place] = frozenset(),
) -> list[Place]:
    """A simple random sample of the default set's findings (every finding as likely; a
    default rule's preview behaviour is not in the default set)."""
    candidates = sorted(place for place in findings if place.code in default_codes and place not in preview_only)
    return sorted(random.Random(seed).sample(candidates, min(size, len(candidates))))


RANDOM_HEADER = ("repo", "path", "cell", "line", "code")
DEFAULT_RANDOM_LIST = DEFAULT_LABELS / "usefulness_random.csv"


def write_places(path: Path, places: list[Place]) -> None:
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(RANDOM_HEADER)
        writer.writerows((p.repo, p.path, str(p.cell or ""), str(p.line), p.code) for p in places)


def read_places(path: Path) -> list[Place]:
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    except (OSError, UnicodeDecodeError) as error:
        raise UsefulnessError(f"{path}: cannot read: {error}") from error
    if not rows or tuple(rows[0]) != RANDOM_HEADER:
        raise UsefulnessError(f"{path}: the header must be exactly {','.join(RANDOM_HEADER)}")
    try:
        return [Place(code, repo, path_, int(cell or 0), int(line)) for repo, path_, cell, line, code in rows[1:]]
    except ValueError as error:
        raise UsefulnessError(f"{path}: a malformed row: {error}") from error


def random_summary(
    places: set[Place],
    name: str,
    drawn: list[Place],
    sample: list[dict[str, str]],
    default_codes: Iterable[str],
    preview_only: set[Place] | frozenset[Place] = frozenset(),
) -> str:
    """The useful rate of the random draw `name`: its places still reported, judged by the sample;
    and, where some were drawn from rules that have left the default set since (or are a
    default rule's preview behaviour now, `preview_only`), the rate of those in the default
    set now."""
    verdicts = {row_key(record): record["verdict"] for record in sample}
    reported = [place for place in drawn if place in places]
    judged = [(rule_row(place, preview_only), verdicts[place]) for place in reported if place in verdicts]
    useful = sum(verdict == "useful" for _, verdict in judged)
    summary = (
        f"Simple random sample of the default set ({name}): {len(drawn)} findings drawn, "
        f"{len(reported)} still reported, {len(judged)} checked, {useful} useful: {_rate(useful, len(judged))}"
        + (f" ({len(reported) - len(judged)} not checked yet)" if len(judged) < len(reported) else "")
    )
    default = set(default_codes)
    now = [verdict for code, verdict in judged if code in default]
    if len(now) < len(judged):
        summary += (
            f"; of the {len(now)} checked of rules in today's default set, {now.count('useful')} useful: "
            f"{_rate(now.count('useful'), len(now))} (looking back: the tiers were set knowing these verdicts)"
        )
    return summary + "."


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def snippet(corpus: Path, place: Place) -> str:
    """The finding's line, stripped and cut to the label limit ("" when it is gone)."""
    lines = source_lines(corpus / place.repo.replace("/", "+", 1) / place.path, place.cell or None)
    if lines is None or not 0 < place.line <= len(lines):
        return ""
    return lines[place.line - 1].strip()[:SNIPPET_LIMIT]


def write_sample(path: Path, rows: list[dict[str, str]]) -> None:
    """The sample as CSV, rows sorted by code, repo, path, cell, line."""
    rows = sorted(rows, key=row_key)
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows([row[name] for name in HEADER] for row in rows)


def row_key(row: dict[str, str]) -> Place:
    """A sample row's place, the sort key of the CSV."""
    return Place(row["code"], row["repo"], row["path"], int(row["cell"] or 0), int(row["line"]))


def read_sample(path: Path) -> list[dict[str, str]]:
    """The rows of a sample CSV, checked: header, verdicts, reasons, order."""
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    except (OSError, UnicodeDecodeError) as error:
        raise UsefulnessError(f"{path}: cannot read: {error}") from error
    if not rows or tuple(rows[0]) != HEADER:
        raise UsefulnessError(f"{path}: the header must be exactly {','.join(HEADER)}")
    records = []
    for number, row in enumerate(rows[1:], 2):
        if len(row) != len(HEADER):
            raise UsefulnessError(f"{path}:{number}: {len(row)} fields, expected {len(HEADER)}")
        record = dict(zip(HEADER, row, strict=False))
        if record["verdict"] not in VERDICTS or not record["why"].strip():
            raise UsefulnessError(f"{path}:{number}: verdict must be one of {', '.join(VERDICTS)}, with a reason")
        if not record["line"].isdigit() or not (record["cell"] == "" or record["cell"].isdigit()):
            raise UsefulnessError(f"{path}:{number}: cell and line must be numbers")
        records.append(record)
    keys = [row_key(record) for record in records]
    if keys != sorted(keys):
        raise UsefulnessError(f"{path}: rows are not sorted by code, repo, path, cell, line")
    return records


@dataclass
class Tally:
    """Counts for one rule or one set of rules."""

    findings: int = 0
    sampled: int = 0
    useful: int = 0
    debatable: int = 0

    def add(self, record: dict[str, str]) -> None:
        self.sampled += 1
        self.useful += record["verdict"] == "useful"
        self.debatable += record["why"].startswith(DEBATABLE)

    def rate(self) -> str:
        return f"{self.useful / self.sampled:.0%}" if self.sampled else "-"

    def row(self, name: str, tier: str) -> str:
        return (
            f"| {name} | {tier} | {self.findings} | {self.sampled} | {self.useful} | "
            f"{self.sampled - self.useful} | {self.debatable} | {self.rate()} |"
        )


def tiers() -> dict[str, str]:
    """Rule code -> tier, from the rule classes of the imported gpulint."""
    from gpulint.registry import all_rules

    return {rule.code: rule_tier(rule) for rule in all_rules()}


def location(record: dict[str, str]) -> str:
    """`repo/path:line` or `repo/path:cell N:line` of a sample row."""
    cell = f"cell {record['cell']}:" if record["cell"] else ""
    return f"{record['repo']}/{record['path']}:{cell}{record['line']}"


#: How a row of a default rule's findings that only preview mode reports (`Rule.preview_behaviour`) ends.
PREVIEW_ROW = f"({PREVIEW_BEHAVIOUR})"


def rule_row(place: Place, preview_only: set[Place] | frozenset[Place]) -> str:
    """The report's row for a finding: its rule's code, or the code's preview-behaviour row."""
    return f"{place.code} {PREVIEW_ROW}" if place in preview_only else place.code


def preview_behaviour(findings: Iterable[Place], default_mode: Iterable[Place], tier_of: dict[str, str]) -> set[Place]:
    """The findings of default rules that gpulint reports only in preview mode: in
    `findings` (a `--preview` run) but not in `default_mode` (the same run without it)."""
    stable = set(default_mode)
    return {
        place for place in findings if tier_of.get(place.code, DEFAULT_TIER) == DEFAULT_TIER and place not in stable
    }


def report(
    places: Iterable[Place],
    sample: list[dict[str, str]],
    tier_of: dict[str, str],
    header: str = "",
    draws: Iterable[tuple[str, list[Place]]] = (),
    preview_only: set[Place] | frozenset[Place] = frozenset(),
) -> str:
    """The Markdown report: per rule, the default set, then the noise rows grouped by rule
    and reason (identical reasons counted once, with one example place). A default rule's
    findings in `preview_only` (its preview behaviour) have a row of their own, in the
    preview tier."""
    per_rule: dict[str, Tally] = defaultdict(Tally)
    places = set(places)
    for place in places:
        per_rule[rule_row(place, preview_only)].findings += 1
    gone = [record for record in sample if row_key(record) not in places]
    sample = [record for record in sample if row_key(record) in places]
    for record in sample:
        per_rule[rule_row(row_key(record), preview_only)].add(record)
    tier_of = {**tier_of, **{name: PREVIEW_TIER for name in per_rule if name.endswith(PREVIEW_ROW)}}
    every, default = Tally(), Tally()
    weighted = 0.0
    for code, tally in per_rule.items():
        groups = [every] + ([default] if tier_of.get(code, DEFAULT_TIER) == DEFAULT_TIER else [])
        for group in groups:
            group.findings += tally.findings
            group.sampled += tally.sampled
            group.useful += tally.useful
            group.debatable += tally.debatable
        if len(groups) == 2 and tally.sampled:
            weighted += tally.findings * tally.useful / tally.sampled
    lines = [header, ""] if header else []
    lines += [
        "| Rule | Tier | Findings | Sampled | Useful | Noise | Debatable | Useful rate |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [per_rule[code].row(code, tier_of.get(code, DEFAULT_TIER)) for code in sorted(per_rule)]
    lines.append(every.row("all", ""))
    default_codes = sorted(code for code in per_rule if tier_of.get(code, DEFAULT_TIER) == DEFAULT_TIER)
    lines += ["", f'Debatable: close calls, counted in their verdict (the reason starts with "{DEBATABLE}").', ""]
    if gone:
        lines += [
            f"Sampled findings no longer reported (left out above): {len(gone)}, of them "
            f"{sum(r['verdict'] == 'useful' for r in gone)} useful: "
            + ", ".join(f"{code} {n}" for code, n in sorted(Counter(r["code"] for r in gone).items()))
            + ".",
            "",
        ]
    lines.append(
        f"Default set ({len(default_codes)} rules): {default.findings} findings, {default.sampled} sampled, "
        f"{default.useful} useful: {default.rate()} of the sample"
        + (f", {weighted / default.findings:.0%} with each rule weighted by its findings" if default.findings else "")
        + "."
    )
    if default.findings:
        biggest = max(default_codes, key=lambda code: per_rule[code].findings)
        lines.append(
            f"Biggest rule of the default set: {biggest}, {per_rule[biggest].findings} findings "
            f"({per_rule[biggest].findings / default.findings:.0%})."
        )
    for name, drawn in draws:
        lines.append(random_summary(places, name, drawn, sample, default_codes, preview_only))
    lines += ["", "## Noise by rule and reason", ""]
    reasons: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for record in sample:
        if record["verdict"] == "noise":
            reasons[rule_row(row_key(record), preview_only), record["why"]].append(record)
    for (code, why), records in sorted(reasons.items(), key=lambda item: (item[0][0], -len(item[1]), item[0][1])):
        lines.append(f"- {code} ({len(records)}): {why}; e.g. `{location(records[0])}`")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.realcode.usefulness", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    drawing = commands.add_parser("draw", help="draw the stratified sample (empty verdicts)")
    randomly = commands.add_parser("random", help="draw a simple random sample of the default set")
    reporting = commands.add_parser("report", help="per-rule figures of a hand-checked sample")
    for sub in (drawing, randomly, reporting):
        sub.add_argument("--findings", type=Path, required=True, help="gpulint's JSON findings on a corpus copy")
    for sub in (randomly, reporting):
        sub.add_argument(
            "--default-findings",
            type=Path,
            help="the same run without `--preview`: default rules' findings missing from it are "
            "their preview behaviour, outside the default set",
        )
    drawing.add_argument("--corpus", type=Path, required=True, help="the corpus copy the findings are of")
    drawing.add_argument("--seed", type=int, default=13)
    drawing.add_argument("--per-rule", type=int, default=15)
    drawing.add_argument("--per-file", type=int, default=3)
    drawing.add_argument("--syntax", type=int, default=10, help="GPU001 findings to check for valid IPython")
    drawing.add_argument("--output", type=Path, required=True)
    drawing.add_argument("--top-up", type=Path, help="a sample already checked: draw only what the quotas still lack")
    randomly.add_argument("--corpus", type=Path, required=True, help="the corpus copy the findings are of")
    randomly.add_argument("--seed", type=int, default=29)
    randomly.add_argument("--size", type=int, default=150)
    randomly.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE, help="the checked sample")
    randomly.add_argument("--list", type=Path, default=DEFAULT_RANDOM_LIST, help="where the places drawn go")
    randomly.add_argument("--output", type=Path, required=True, help="the drawn places not checked yet")
    reporting.add_argument(
        "--random-list",
        type=Path,
        action="append",
        help=f"the places of a random draw, once per draw (default: every {RANDOM_DRAWS} beside the sample)",
    )
    reporting.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE)
    reporting.add_argument("--output", type=Path)
    reporting.add_argument("--header", default="", help="Markdown put above the table")
    args = parser.parse_args(argv)
    try:
        findings = read_findings(args.findings)
        if args.command == "draw":
            already = [row_key(record) for record in read_sample(args.top_up)] if args.top_up else []
            sample = draw(
                findings,
                seed=args.seed,
                per_rule=args.per_rule,
                per_file=args.per_file,
                syntax=args.syntax,
                already=already,
            )
            write_sample(
                args.output,
                [
                    {
                        "repo": p.repo,
                        "path": p.path,
                        "cell": str(p.cell or ""),
                        "line": str(p.line),
                        "code": p.code,
                        "verdict": "",
                        "why": "",
                        "snippet": snippet(args.corpus, p),
                    }
                    for p in sample
                ],
            )
            print(f"{len(sample)} findings sampled to {args.output}")
            return 0
        tier_of = tiers()
        preview_only = (
            preview_behaviour(findings, read_findings(args.default_findings), tier_of)
            if args.command != "draw" and args.default_findings
            else set()
        )
        if args.command == "random":
            drawn = draw_random(
                findings,
                {code for code, tier in tier_of.items() if tier == DEFAULT_TIER},
                seed=args.seed,
                size=args.size,
                preview_only=preview_only,
            )
            checked = {row_key(record) for record in read_sample(args.sample)}
            new = [p for p in drawn if p not in checked]
            write_places(args.list, drawn)
            write_sample(
                args.output,
                [
                    {
                        "repo": p.repo,
                        "path": p.path,
                        "cell": str(p.cell or ""),
                        "line": str(p.line),
                        "code": p.code,
                        "verdict": "",
                        "why": "",
                        "snippet": snippet(args.corpus, p),
                    }
                    for p in new
                ],
            )
            print(f"{len(drawn)} findings drawn to {args.list}; {len(new)} not checked yet, in {args.output}")
            return 0
        lists = args.random_list or sorted(args.sample.parent.glob(RANDOM_DRAWS))
        draws = [(path.name, read_places(path)) for path in lists]
        text = report(findings, read_sample(args.sample), tier_of, args.header, draws, preview_only)
    except UsefulnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(text, end="")
    return 0 if write_files((args.output, text)) else 2


if __name__ == "__main__":
    sys.exit(main())
