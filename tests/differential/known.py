"""Known failure classes: fixes found wrong before, each recognised in a logged outcome.

Each class is a predicate over one record of the long mode's `--log` (a program, its fix
and the difference classes found). `python -m tests.differential.known LOG` prints, per
class, how many programs show it and how many of those fail; the long mode prints the
same table at its end. A class counted with no failing program is one whose differences
the rule's "Fix safety" section names (allowed for an unsafe fix).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable

ELEMENT_FREE = r"(float|int|bool|abs)\(k\)|len\(\"ab\"\)|round\(2\.5\)|int\(\"3\"\)"
LOOP_VARIABLE_READ_AFTER = r"return out, i|print\(\"last"


def _classes(record: dict) -> set[str]:
    return {c for variant in record["variants"] for c in variant["classes"]} | set(record["problems"])


def _errors(record: dict) -> str:
    return " ".join(variant["error"] or "" for variant in record["variants"])


def _loop_variable(rule: str) -> Callable[[dict], bool]:
    def check(record: dict) -> bool:
        return (
            record["rule"] == rule
            and re.search(LOOP_VARIABLE_READ_AFTER, record["source"]) is not None
            and bool(set(record["failures"]) & {"raises", "output", "value"})
            and ("NameError" in _errors(record) or "output" in record["failures"] or "i = -1" in record["source"])
        )

    return check


#: Class label -> predicate over a logged record.
KNOWN: dict[str, Callable[[dict], bool]] = {
    "GPU105 element-free call rewritten (raises)": lambda r: (
        r["rule"] == "GPU105" and bool(re.search(ELEMENT_FREE, r["source"])) and "raises" in r["failures"]
    ),
    "GPU105 % formatting": lambda r: (
        r["rule"] == "GPU105" and bool(re.search(r'"[^"]*%[^"]*" %', r["source"])) and bool(r["failures"])
    ),
    "GPU105 identity map (result aliases the input)": lambda r: (
        r["rule"] == "GPU105" and bool(re.search(r"lambda x: x(,|\))", r["source"])) and "alias" in r["failures"]
    ),
    "GPU104 int64 overflow": lambda r: r["rule"] == "GPU104" and "overflow" in _classes(r),
    "GPU105 int64 overflow": lambda r: r["rule"] == "GPU105" and "overflow" in _classes(r),
    "bool arithmetic (GPU105)": lambda r: (
        r["rule"] == "GPU105"
        and 'dtype="bool"' in r["setup"]
        and ("value" in r["failures"] or "numpy boolean" in _errors(r))
    ),
    "bool arithmetic (any rule)": lambda r: (
        'dtype="bool"' in r["setup"] and ("value" in r["failures"] or "numpy boolean" in _errors(r))
    ),
    "** 0.5 of negatives (NaN)": lambda r: "** 0.5" in r["source"] and "nan" in r["failures"],
    "GPU205 rows of a 2-D array": lambda r: (
        r["rule"] == "GPU205"
        and bool(re.search(r"np\.array\(\[\[|np\.empty\(\(0,", r["setup"]))
        and "type" in r["failures"]
    ),
    "GPU204 max/min with NaN": lambda r: (
        r["rule"] == "GPU204" and bool(re.search(r"\b(max|min)\(", r["source"])) and "nan" in _classes(r)
    ),
    "GPU204 sum of int8/uint8": lambda r: (
        r["rule"] == "GPU204"
        and "sum(" in r["source"]
        and bool(re.search(r"u?int8", r["setup"]))
        and "overflow" in _classes(r)
    ),
    "GPU107 slice held in a variable": lambda r: (
        r["rule"] == "GPU107" and "slice(" in r["setup"] and bool(r["failures"])
    ),
    "GPU102 loop variable read after the loop": _loop_variable("GPU102"),
    "GPU103 loop variable read after the loop": _loop_variable("GPU103"),
    "GPU201 loop variable read after the loop": _loop_variable("GPU201"),
    "GPU403 user estimator/scorer in workers": lambda r: r["rule"] == "GPU403" and "worker-state" in _classes(r),
    "import bound after the rewritten code (NameError)": lambda r: (
        "imported later" in r["idiom"] and ("NameError" in _errors(r))
    ),
    "GPU305 layout of a multi-line call": lambda r: r["rule"] == "GPU305" and "layout" in r["problems"],
}


def table(records: list[dict]) -> str:
    lines = []
    for label, check in KNOWN.items():
        hits = [record for record in records if check(record)]
        failing = sum(1 for record in hits if record["failures"])
        rules = " ".join(sorted({record["rule"] for record in hits}))
        lines.append(f"    {label:<50} {len(hits):>5} programs, {failing:>5} failing  {rules}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.differential.known LOG (a file written by --log)", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as log:
            records = [json.loads(line) for line in log if line.strip()]
    except (OSError, ValueError) as error:
        print(f"error: cannot read {argv[0]}: {error}", file=sys.stderr)
        return 2
    print(f"known failure classes ({len(records)} programs):")
    print(table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
