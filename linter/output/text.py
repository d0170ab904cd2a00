"""Human-readable output: one line per finding, then a summary with fix hints."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from ..diagnostic import Applicability, Diagnostic
from ..runner import FileResult

#: What the run did with fixes: only report, apply them, or show them as a diff.
MODES = ("check", "fix", "diff")


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def location(d: Diagnostic) -> str:
    """`line:col` (1-based), or `cell N:line:col` in a notebook."""
    where = f"{d.start.line}:{d.start.col + 1}"
    return where if d.cell is None else f"cell {d.cell}:{where}"


def findings(results: Sequence[FileResult]) -> list[str]:
    """`path:line:col: CODE [*] message` (`path:cell N:line:col: ...` in a notebook), `[*]`
    marking a fix that `--fix` would apply."""
    lines = []
    for result in results:
        for d in result.diagnostics:
            marker = " [*]" if d.fixable(result.unsafe_fixes) else ""
            lines.append(f"{result.display}:{location(d)}: {d.code}{marker} {d.message}")
    return lines


def summary(results: Sequence[FileResult], mode: str = "check") -> list[str]:
    assert mode in MODES
    pairs = [(r, d) for r in results for d in r.diagnostics]
    changed = [r for r in results if r.fixed is not None and r.applied]
    applied = sum(len(r.applied) for r in changed)
    errors = sum(1 for r in results if r.error is not None)
    lines = []
    if applied and mode != "check":
        verb = "Fixed" if mode == "fix" else "Would fix"
        lines.append(f"{verb} {_plural(applied, 'finding')} in {_plural(len(changed), 'file')}.")
    if pairs:
        files = len({id(r) for r, _ in pairs})
        lines.append(f"Found {_plural(len(pairs), 'finding')} in {_plural(files, 'file')}"
                     + (" (remaining)." if applied and mode != "check" else "."))
    if errors:
        lines.append(f"{_plural(errors, 'path')} could not be checked (see the errors above).")
    if not pairs and not applied and not errors:
        lines.append("All checks passed.")
    if not pairs:
        return lines
    fixable = [d for r, d in pairs if d.fixable(r.unsafe_fixes)]
    hidden = sum(1 for r, d in pairs if not r.unsafe_fixes and d.fix is not None and d.fix.edits
                 and d.fix.applicability is Applicability.UNSAFE)
    if fixable and mode == "check":
        unsafe = any(d.fix is not None and d.fix.applicability is Applicability.UNSAFE for d in fixable)
        command = "gpulint check --fix --unsafe-fixes" if unsafe else "gpulint check --fix"
        lines.append(f"[*] {len(fixable)} fixable with `{command}`.")
    if hidden:
        lines.append(f"{_plural(hidden, 'more fix', 'more fixes')} available with `--unsafe-fixes` "
                     "(their results may differ as each rule's Fix safety says; review them).")
    return lines


def statistics(results: Sequence[FileResult]) -> list[str]:
    """One line per code: count, code, `[*]` when some of them are fixable, name."""
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    fixable: Counter[str] = Counter()
    for result in results:
        for d in result.diagnostics:
            counts[d.code] += 1
            names[d.code] = d.name
            fixable[d.code] += d.fixable(result.unsafe_fixes)
    width = max((len(str(c)) for c in counts.values()), default=1)
    return [
        f"{count:>{width}}  {code}  {'[*]' if fixable[code] else '   '}  {names[code]}"
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
