"""The long mode: `python -m tests.differential --examples 5000 [--rules GPU105,GPU204]`.

Draws `--examples` programs per rule, fixes and runs each (see `fuzz.check`), and prints
how many programs ran, how many fixes were executed, and the differences found by rule and
class (allowed ones marked), with the shortest failing program of each rule and class, and
how many programs show each known failure class (`known`).
Every failing program is written, with its fix and setup, under `--failures`. The exit
status is 1 when a program failed, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

from . import known
from .fuzz import ALLOWED, Outcome, check
from .programs import PROGRAMS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.differential", description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500, help="programs per rule (default 500)")
    parser.add_argument("--rules", default=",".join(PROGRAMS), help="comma-separated rule codes (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed (default 0)")
    parser.add_argument("--failures", default="fuzz-failures", help="folder for failing programs")
    parser.add_argument("--per-class", type=int, default=20, help="failing programs written per rule and class")
    parser.add_argument("--log", help="also write every program and its outcome to this file, one JSON object a line")
    args = parser.parse_args(argv)
    codes = [code.strip() for code in args.rules.split(",") if code.strip()]
    unknown = [code for code in codes if code not in PROGRAMS]
    if unknown:
        parser.error(f"no program templates for {', '.join(unknown)} (known: {', '.join(PROGRAMS)})")
    folder = Path(args.failures)
    print(f"differential fuzzing: {args.examples} programs per rule, seed {args.seed}, rules {', '.join(codes)}")
    totals = Counter()
    records: list[dict] = []
    for code in codes:
        started = time.perf_counter()
        outcomes = explore(code, args.examples, args.seed)
        stats = summarize(code, outcomes, folder, args.per_class)
        done = [record(outcome) for outcome in outcomes]
        records += done
        if args.log:
            with open(args.log, "a", encoding="utf-8") as log:
                log.writelines(json.dumps(item) + "\n" for item in done)
        totals.update(stats)
        print(f"  ({time.perf_counter() - started:.0f} s)\n")
        sys.stdout.flush()
    print(
        f"TOTAL: {totals['programs']} programs run, {totals['changed']} fixed, {totals['executed']} fixes executed, "
        f"{totals['raised']} whose original raises (errors compared), {totals['skipped']} skipped (the setup raises "
        f"or the original hangs), {totals['failing']} failing programs"
    )
    print("known failure classes:")
    print(known.table(records))
    if totals["failing"]:
        print(f"failing programs written under {folder}/")
    return 1 if totals["failing"] else 0


def explore(code: str, examples: int, seed_value: int) -> list[Outcome]:
    outcomes: list[Outcome] = []

    @seed(seed_value)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(PROGRAMS[code]())
    def one(program):
        try:
            outcomes.append(check(program))
        except Exception as error:  # a bug of the fuzzer itself: say so, keep going
            print(f"  fuzzer error on {program.idiom}: {type(error).__name__}: {error}", file=sys.stderr)

    one()
    return outcomes


def record(outcome: Outcome) -> dict:
    program = outcome.program
    return {
        "rule": program.rule,
        "idiom": program.idiom,
        "setup": program.setup,
        "source": program.source,
        "fixed": outcome.fixed,
        "skipped": outcome.skipped,
        "raised": outcome.raised,
        "problems": sorted(outcome.problems),
        "variants": [{"kind": v.kind, "classes": sorted(v.classes), "error": v.error} for v in outcome.variants],
        "failures": sorted(outcome.failures()),
    }


def summarize(code: str, outcomes: list[Outcome], folder: Path, per_class: int) -> Counter:
    stats = Counter(programs=len(outcomes))
    classes: Counter = Counter()
    failing_by_class: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        stats["changed"] += outcome.changed
        stats["executed"] += len(outcome.variants)
        stats["skipped"] += outcome.skipped is not None
        stats["raised"] += outcome.raised is not None
        for variant in outcome.variants:
            classes.update(variant.classes)
        classes.update(outcome.problems)
        failures = outcome.failures()
        stats["failing"] += bool(failures)
        for difference in failures:
            failing_by_class[difference].append(outcome)
    print(
        f"{code}: {stats['programs']} programs, {stats['changed']} fixed, {stats['executed']} fixes executed, "
        f"{stats['raised']} whose original raises, {stats['skipped']} skipped, {stats['failing']} failing"
    )
    allowed = ALLOWED.get(code, frozenset())
    for difference, count in sorted(classes.items()):
        mark = "allowed for unsafe fixes (Fix safety names it)" if difference in allowed else "NOT ALLOWED"
        failing = len(failing_by_class.get(difference, ()))
        print(f"    {difference:<12} {count:>5} fixes differ  {failing:>5} failing   {mark}")
    for difference, failing in sorted(failing_by_class.items()):
        shortest = min(failing, key=lambda o: len(o.program.source) + len(o.program.setup))
        print(f"  shortest program failing with {difference}:")
        print("    " + shortest.describe().replace("\n", "\n    "))
        target = folder / code
        target.mkdir(parents=True, exist_ok=True)
        for number, outcome in enumerate(failing[:per_class]):
            (target / f"{difference}-{number:03d}.txt").write_text(outcome.describe() + "\n", encoding="utf-8")
    return stats


if __name__ == "__main__":
    sys.exit(main())
