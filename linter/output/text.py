"""Human-readable output: the `concise` format (one line per finding), the summary that
ends both human formats (fix hints, what `--fix` fixed, the paths that could not be
checked) and `--statistics`. Text from outside gpulint (file names, messages, errors) is
printed without its terminal controls (`terminal.printable`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..diagnostic import Applicability, Diagnostic
from ..runner import FileResult
from .style import PLAIN, Style
from .terminal import printable

#: What the run did with fixes: only report, apply them, or show them as a diff.
MODES = ("check", "fix", "diff")


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def location(d: Diagnostic) -> str:
    """`line:col` (1-based), or `cell N:line:col` in a notebook."""
    where = f"{d.start.line}:{d.start.col + 1}"
    return where if d.cell is None else f"cell {d.cell}:{where}"


def findings(results: Sequence[FileResult], style: Style = PLAIN) -> list[str]:
    """`path:line:col: CODE [*] message` (`path:cell N:line:col: ...` in a notebook), `[*]`
    marking a fix that `--fix` would apply."""
    lines = []
    for result in results:
        for d in result.diagnostics:
            marker = " " + style.paint("[*]", "cyan") if d.fixable(result.unsafe_fixes) else ""
            lines.append(
                f"{style.paint(printable(result.display), 'bold')}:{location(d)}: "
                f"{style.paint(printable(d.code), 'bold', 'red')}{marker} {printable(d.message)}"
            )
    return lines


#: The paths that could not be checked named in the summary; more are counted.
ERRORS_LISTED = 10


def errors_line(results: Sequence[FileResult]) -> str | None:
    """ "2 files could not be checked: a.ipynb (why), b.py (why)", repeating at the end
    what was reported as it happened (which may be far above in a long run)."""
    failed = [r for r in results if r.error is not None]
    if not failed:
        return None
    # the first line of each: with `--debug` an error carries its traceback, printed once already
    named = ", ".join(
        f"{printable(r.display)} ({printable(str(r.error).splitlines()[0])})" for r in failed[:ERRORS_LISTED]
    )
    more = f", and {len(failed) - ERRORS_LISTED} more" if len(failed) > ERRORS_LISTED else ""
    return f"{_plural(len(failed), 'file')} could not be checked: {named}{more}"


def fixed_lines(results: Sequence[FileResult]) -> list[str]:
    """What the fixes changed, per file and rule (for `--show-fixes`):
    `- path:` then `    2 × GPU202 (name)`."""
    lines = []
    for result in results:
        if result.fixed is None or not result.applied:
            continue
        counts = Counter((d.code, d.name) for d in result.applied)
        lines.append(f"- {printable(result.display)}:")
        lines.extend(
            f"    {count} × {printable(code)} ({printable(name)})" for (code, name), count in sorted(counts.items())
        )
    return lines


def declined_lines(pairs: Sequence[tuple[FileResult, Diagnostic]]) -> list[str]:
    """The findings whose rule has a fixer that declined to rewrite them, with its reason
    (for `--show-fixes`): `No rewrite for 2 findings:` then `- path:line:col: CODE reason`."""
    declined = [(r, d) for r, d in pairs if d.fix is not None and d.fix.declined]
    if not declined:
        return []
    lines = [f"No rewrite for {_plural(len(declined), 'finding')} (each keeps its suggestion):"]
    lines.extend(
        f"- {printable(r.display)}:{location(d)}: {printable(d.code)} {printable(d.fix.declined)}"  # type: ignore[union-attr,arg-type]
        for r, d in declined
    )
    return lines


def summary(results: Sequence[FileResult], mode: str = "check", show_fixes: bool = False) -> list[str]:
    """The closing lines: what was fixed (per file and rule with `show_fixes`), what
    remains, the paths that could not be checked, and how to fix more."""
    assert mode in MODES
    pairs = [(r, d) for r in results for d in r.diagnostics]
    changed, applied = _fixed(results)
    errors = sum(1 for r in results if r.error is not None)
    lines = []
    if applied and mode != "check":
        verb = "Fixed" if mode == "fix" else "Would fix"
        lines.append(
            f"{verb} {_plural(applied, 'finding')} in {_plural(len(changed), 'file')}" + (":" if show_fixes else ".")
        )
        if show_fixes:
            lines.extend(fixed_lines(results))
    if pairs:
        files = len({id(r) for r, _ in pairs})
        lines.append(
            f"Found {_plural(len(pairs), 'finding')} in {_plural(files, 'file')}"
            + (" (remaining)." if applied and mode != "check" else ".")
        )
    if not pairs and not applied and not errors:
        lines.append("All checks passed.")
    if pairs:
        lines.extend(_fix_hints(pairs, mode))
    if show_fixes:
        lines.extend(declined_lines(pairs))
    if errors:  # last, where the reader of a long run looks
        lines.append(f"{errors_line(results)}.")
    return lines


def diff_summary(results: Sequence[FileResult]) -> str:
    """The one line `--diff` ends with, as ruff's: what the diff would fix, and how many
    more fixes `--unsafe-fixes` would add."""
    changed, applied = _fixed(results)
    hidden = _withheld([(r, d) for r in results for d in r.diagnostics])
    line = (
        f"Would fix {_plural(applied, 'finding')} in {_plural(len(changed), 'file')}"
        if applied
        else "No findings would be fixed"
    )
    more = f" ({_plural(hidden, 'more fix', 'more fixes')} available with `--unsafe-fixes`)" if hidden else ""
    errors = sum(1 for r in results if r.error is not None)
    return f"{line}{more}." + (f" {errors_line(results)}." if errors else "")


def _fixed(results: Sequence[FileResult]) -> tuple[list[FileResult], int]:
    """The files a fix changed, and how many findings it fixed in them."""
    changed = [r for r in results if r.fixed is not None and r.applied]
    return changed, sum(len(r.applied) for r in changed)


def _withheld(pairs: Sequence[tuple[FileResult, Diagnostic]]) -> int:
    """The unsafe fixes the run was not asked to apply: what `--unsafe-fixes` would add."""
    return sum(
        1
        for r, d in pairs
        if not r.unsafe_fixes
        and d.fix is not None
        and d.fix.applicability is Applicability.UNSAFE
        and d.fix.applies(unsafe_fixes=True)
    )


def _fix_hints(pairs: list[tuple[FileResult, Diagnostic]], mode: str) -> list[str]:
    """How to apply the fixes of the findings that remain."""
    lines = []
    fixable = [d for r, d in pairs if d.fixable(r.unsafe_fixes)]
    hidden = _withheld(pairs)
    if fixable and mode == "check":
        unsafe = any(d.fix is not None and d.fix.applicability is Applicability.UNSAFE for d in fixable)
        command = "gpulint check --fix --unsafe-fixes" if unsafe else "gpulint check --fix"
        lines.append(f"[*] {len(fixable)} fixable with `{command}`.")
    if hidden:
        lines.append(
            f"{_plural(hidden, 'more fix', 'more fixes')} available with `--unsafe-fixes` "
            "(their results may differ as each rule's Fix safety says; review them)."
        )
    return lines


def statistics(results: Sequence[FileResult]) -> list[str]:
    """A table: per code, its findings, how many of them `--fix` would fix (with the
    unsafe fixes when they are asked for) and its name, most findings first; then the
    totals."""
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    fixable: Counter[str] = Counter()
    for result in results:
        for d in result.diagnostics:
            counts[d.code] += 1
            names[d.code] = d.name
            fixable[d.code] += d.fixable(result.unsafe_fixes)
    total, total_fixable = sum(counts.values()), sum(fixable.values())
    count_width = max(len("count"), len(str(total)))
    fixable_width = max(len("fixable"), len(str(total_fixable)))
    code_width = max([len("total"), *(len(printable(code)) for code in counts)])
    rows = [("count", "code", "fixable", "name")]
    rows += [
        (str(count), printable(code), str(fixable[code]), printable(names[code]))
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    rows.append((str(total), "total", str(total_fixable), ""))
    return [
        f"{count:>{count_width}}  {code:<{code_width}}  {fixes:>{fixable_width}}  {name}".rstrip()
        for count, code, fixes, name in rows
    ]
