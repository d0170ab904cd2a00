"""One differential check: fix a program with its rule alone, run it before and after, judge.

The fix is computed twice with the engine API (`fix_text`, the rule alone): without unsafe
fixes (the safe edits) and with them. Each version that differs from the original runs on
a deep copy of the same inputs (`execution.run`) and is compared with the original's run
(or with the program's `reference`, what the code means to do):

- a safe fix must give identical results (value, what it printed, the inputs as the
  program left them, whether the result aliases an input);
- an unsafe fix may differ only in the classes `ALLOWED` lists for its rule, each of which
  the rule's "Fix safety" section names (`DOC_TERMS`, checked by a test);
- what the user's own code recorded while it ran (`Program.state`) must match too: a
  difference there is ``worker-state`` (the code ran in worker processes);
- raising (or hanging) where the original did not is never allowed, but for one class a
  rule may name (``empty-raises``): on inputs with no element at all, a rewrite evaluates
  once what the loop would have evaluated per element, so an expression that raises on
  every element of that dtype raises there;
- errors are behaviour too: where the original raises, the fix must raise the same
  exception type after printing the same and leaving the inputs the same (``error``:
  another exception, none at all, or one raised at another point of the run);
- a program built to exercise a difference a rule's "Fix safety" names (`Program.hazard`:
  a piece changed after it was collected, a hoisted copy whose source changes, a loop that
  runs zero times...) counts any difference of its unsafe fix as that class, which the
  rule must allow; its safe fix must still be identical;
- printing something else, a fix that
  does not parse, that changes again when fixed a second time, or that breaks the layout
  (trailing spaces, arguments at column 0 inside a call) are never allowed.

A program whose setup raises is skipped: there is nothing to run.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from functools import cache

from gpulint import all_rules, fix_text

from .compare import differences
from .execution import Run, build_inputs, run
from .programs import Program

#: Difference classes an unsafe fix of each rule may show, because its "Fix safety" section
#: names them. Changing values (``value``, ``nan``, ``type``), raising, hanging or printing
#: something else is never allowed, whatever the documentation says.
ALLOWED: dict[str, frozenset[str]] = {
    "GPU101": frozenset({"dtype", "index", "aliasing"}),
    "GPU102": frozenset({"dtype", "empty-shape", "overflow", "empty-raises", "error"}),
    "GPU103": frozenset({"dtype", "empty-shape", "overflow", "empty-raises", "error"}),
    "GPU104": frozenset({"dtype", "names", "empty-shape", "overflow", "error"}),
    "GPU105": frozenset({"dtype", "overflow", "error", "empty-raises"}),
    "GPU106": frozenset({"names", "rounding", "empty-shape", "empty-raises", "dtype", "index", "error"}),
    "GPU107": frozenset({"dtype"}),
    "GPU201": frozenset({"dtype", "rounding", "overflow", "empty-raises", "error"}),
    "GPU202": frozenset({"dtype", "aliasing", "promotion", "error-order"}),
    "GPU204": frozenset({"dtype", "rounding", "overflow", "empty-shape", "error", "empty-raises"}),
    "GPU205": frozenset({"dtype", "overflow", "empty-shape", "empty-raises", "error"}),
    "GPU302": frozenset({"stale-source", "zero-iterations"}),
    "GPU303": frozenset({"alias", "error"}),
    "GPU304": frozenset(),
    "GPU305": frozenset({"worker-state"}),
    "GPU401": frozenset(),
    "GPU403": frozenset({"worker-state"}),
    "GPU601": frozenset(),
}
#: How a "Fix safety" section names each class that may be allowed.
DOC_TERMS: dict[str, str] = {
    "dtype": r"dtype|\btype\b|scalars|an `int`",
    "index": r"\bindex\b",
    "names": r"\bnames?\b",
    "rounding": r"last digits",
    "overflow": r"overflow",
    "empty-shape": r"no rows|no group|empty",
    "alias": r"shares memory",
    "worker-state": r"(?s)\bstate\b.{0,120}\bworkers?\b",
    "empty-raises": r"(?s)(no rows|empty)[^.]{0,200}\b(rais|fail)|\b(rais|fail)[^.]{0,200}(no rows|empty)",
    "error": r"(?s)\braise[sd]?\b.{0,200}\b(returns|another (error|exception))",
    "aliasing": r"(?s)\b(changed|changes)\b.{0,120}\bafter\b",
    "promotion": r"\bpromot",
    "error-order": r"(?s)\bfail(s|ing)?\b.{0,160}\b(after the loop|at the end)",
    "stale-source": r"(?s)\b(view|alias)\b.{0,200}\b(generator|global)",
    "zero-iterations": r"(?s)\bzero times\b.{0,200}\brais",
}
NEVER_ALLOWED = frozenset({"value", "nan", "type", "raises", "timeout", "output", "parse", "idempotence", "layout"})
#: Classes a hazard program's difference is never folded into (they say the fix is broken,
#: whatever the program exercises).
NOT_FOLDED = frozenset({"timeout", "parse", "idempotence", "layout"})


@dataclass
class Variant:
    """One fixed version of a program that was executed."""

    kind: str  # "safe" or "unsafe"
    source: str
    classes: set[str] = field(default_factory=set)
    error: str | None = None  # what the fixed program raised where the original did not

    def failures(self, rule: str) -> set[str]:
        allowed = ALLOWED.get(rule, frozenset()) if self.kind == "unsafe" else frozenset()
        return self.classes - allowed


@dataclass
class Outcome:
    program: Program
    fixed: str  # the source with every fix applied (unsafe ones included)
    problems: set[str] = field(default_factory=set)  # "parse", "idempotence", "layout"
    variants: list[Variant] = field(default_factory=list)
    skipped: str | None = None  # why nothing was executed (the setup raised...)
    raised: str | None = None  # what the original raised: the fix must raise the same

    @property
    def changed(self) -> bool:
        return self.fixed != self.program.source

    def failures(self) -> set[str]:
        found = set(self.problems)
        for variant in self.variants:
            found |= variant.failures(self.program.rule)
        return found

    def describe(self) -> str:
        """A report of the program, its fix and what differs: enough to reproduce it."""
        lines = [
            f"rule {self.program.rule}, idiom: {self.program.idiom}",
            f"failing classes: {', '.join(sorted(self.failures())) or 'none'}",
        ]
        for variant in self.variants:
            lines.append(
                f"{variant.kind} fix: classes {sorted(variant.classes)}"
                + (f", raises {variant.error}" if variant.error else "")
            )
        lines += [
            "--- setup",
            self.program.setup.rstrip(),
            "--- original",
            self.program.source.rstrip(),
            "--- fixed",
            self.fixed.rstrip(),
            f"--- call\n{self.program.call}",
        ]
        if self.program.reference:
            lines += ["--- reference (what the original means)", self.program.reference.rstrip()]
        return "\n".join(lines)


@cache
def rule_class(code: str) -> type:
    return next(rule for rule in all_rules() if rule.code == code)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def _layout_breaks(original: str, fixed: str) -> bool:
    """Whether the fix leaves trailing spaces, or lines inside brackets at column 0, that
    the original did not have (a call's arguments broken out of its layout)."""
    return bool(_trailing_spaces(fixed) - _trailing_spaces(original)) or _flush_left_continuations(
        fixed
    ) > _flush_left_continuations(original)


def _trailing_spaces(source: str) -> set[str]:
    return {line.strip() for line in source.splitlines() if line != line.rstrip()}


def _flush_left_continuations(source: str) -> int:
    depth, count, line_seen = 0, 0, 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        row, col = token.start
        if row != line_seen:
            line_seen = row
            if depth > 0 and col == 0 and token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                count += 1
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
    return count


def check(program: Program) -> Outcome:  # noqa: C901
    """Fix `program` with its rule, execute the versions that changed, and classify."""
    rules = [rule_class(program.rule)]
    safe = fix_text(program.source, rules=rules, unsafe_fixes=False)
    full = fix_text(program.source, rules=rules, unsafe_fixes=True)
    outcome = Outcome(program, full)
    if full == program.source and safe == program.source:
        return outcome
    for text, unsafe in ((safe, False), (full, True)):
        if not _parses(text):
            outcome.problems.add("parse")
        elif fix_text(text, rules=rules, unsafe_fixes=unsafe) != text:
            outcome.problems.add("idempotence")
    if "parse" in outcome.problems:
        return outcome
    if _layout_breaks(program.source, full):
        outcome.problems.add("layout")
    versions = [("safe", safe)] if safe != program.source else []
    if full != safe:
        versions.append(("unsafe", full))
    try:
        inputs = build_inputs(program.setup)
    except Exception as error:  # data the library refuses to build: nothing to compare
        outcome.skipped = f"the setup raises {type(error).__name__}"
        return outcome
    original = run(program.reference or program.source, program.call, inputs, state=program.state)
    if original.timed_out:
        outcome.skipped = "the original hangs"
        return outcome
    if original.error is not None:
        outcome.raised = original.raised
    for kind, text in versions:
        after = run(text, program.call, inputs, state=program.state)
        variant = Variant(kind, text)
        if original.error is not None:
            variant.classes |= _error_differences(original, after)
            if after.error is not None:
                variant.error = f"{after.raised}: {str(after.error)[:200]}"
        elif after.error is not None and not after.timed_out and _all_empty(inputs, program.groups_by):
            # The rewrite evaluates once, on no rows, what the loop would have evaluated per
            # row: an expression that raises on every element of that dtype raises there.
            variant.classes.add("empty-raises")
            variant.error = f"{after.raised}: {str(after.error)[:200]}"
        elif after.error is not None:
            variant.classes.add(
                "timeout" if after.timed_out else "overflow" if _out_of_bounds(after.error) else "raises"
            )
            variant.error = f"{after.raised}: {str(after.error)[:200]}"
        else:
            found = differences(original.value, after.value)
            if found & {"value", "type"} and _all_empty(inputs, program.groups_by):
                # on inputs with no element, what the rewrite computes once stands for the
                # loop's result (`sum` of no rows is 0, `a.sum(axis=0)` a row of zeros)
                found = (found - {"value", "type"}) | {"empty-shape"}
            variant.classes |= found
            variant.classes |= differences(original.inputs, after.inputs)
            if after.printed != original.printed:
                variant.classes.add("output")
            if after.aliased != original.aliased:
                variant.classes.add("alias")
            if differences(original.state, after.state):
                variant.classes.add("worker-state")
        if program.hazard and kind == "unsafe" and variant.classes - NOT_FOLDED:
            variant.classes = (variant.classes & NOT_FOLDED) | {program.hazard}
        outcome.variants.append(variant)
    return outcome


def _out_of_bounds(error: BaseException) -> bool:
    """NumPy's refusal of a Python int beyond a column's int dtype: the column overflows
    where the per-element code computed with Python ints."""
    return isinstance(error, OverflowError) and "out of bounds for" in str(error)


def _error_differences(original: Run, after: Run) -> set[str]:
    """Where the original raised: ``error`` unless the fix raised the same exception type
    after printing the same and leaving the inputs the same."""
    if after.timed_out:
        return {"timeout"}
    if after.error is None or type(after.error) is not type(original.error):
        return {"error"}
    if after.printed != original.printed or differences(original.inputs, after.inputs):
        return {"error"}
    return set()


def _all_empty(inputs: dict, groups_by: str | None = None) -> bool:
    """Whether every frame, series and array among the inputs holds no element, or, for a
    program that groups by the column `groups_by`, no group (every key missing)."""
    data = [value for value in inputs.values() if hasattr(value, "shape") and hasattr(value, "size")]
    if groups_by is not None and data and all(groups_by in getattr(value, "columns", ()) for value in data):
        return all(value[groups_by].isna().all() for value in data)
    return bool(data) and all(value.size == 0 for value in data)


def documented(code: str, difference: str) -> bool:
    """Whether the rule's "Fix safety" section names the difference class."""
    text = rule_class(code).doc_sections().get("Fix safety", "")
    return re.search(DOC_TERMS[difference], text, re.IGNORECASE) is not None
