"""Run gpulint with some preview rules moved into the default tier, for a tier sample that
decides whether they join it: their findings as a default rule gives them, without their
preview behaviour (GPU305's loaders read on one pass), beside the default rules' own.

Usage:
    python -m benchmarks.realcode.tier_trial --default GPU305 -- check --output-format json --exit-zero --no-cache CORPUS

Everything after `--` is gpulint's command line; the exit code is gpulint's.
"""

from __future__ import annotations

import argparse
import sys

from gpulint.cli import main as gpulint_main
from gpulint.registry import Tier, rule_by_key


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if "--" not in arguments:
        print("tier_trial: give gpulint's command line after `--`", file=sys.stderr)
        return 2
    split = arguments.index("--")
    parser = argparse.ArgumentParser(prog="python -m benchmarks.realcode.tier_trial")
    parser.add_argument(
        "--default", action="append", required=True, metavar="CODE", help="a rule to run as a default rule"
    )
    options = parser.parse_args(arguments[:split])
    for code in options.default:
        rule = rule_by_key(code)
        if rule is None:
            print(f"tier_trial: no rule {code}", file=sys.stderr)
            return 2
        rule.tier = Tier.DEFAULT
    return gpulint_main(arguments[split + 1 :])


if __name__ == "__main__":
    sys.exit(main())
