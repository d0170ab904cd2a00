"""`gpulint bench`: choose the benchmarks and backends, run the sweep with a progress bar,
print the table, and write the results (JSON, Markdown, PNG) to the output folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tqdm import tqdm

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2
INSTALL_HINT = "pip install 'gpulint[bench]'"


def _say(line: str, err: bool = False) -> None:
    print(line, file=sys.stderr if err else sys.stdout, flush=True)


class UsageProblem(Exception):
    """A bad option value: reported as one `error:` line, exit 2."""


def select_benchmarks(keys: tuple[str, ...]) -> list:
    """The benchmarks for the given rule codes or names (all of them when none are given)."""
    from gpulint import rule_by_key

    from .harness import all_benchmarks

    benchmarks = all_benchmarks()
    if not keys:
        return list(benchmarks.values())
    chosen = []
    for key in keys:
        rule = rule_by_key(key)
        if rule is None:
            raise UsageProblem(f"unknown rule {key!r} (see `gpulint rule --all`)")
        if rule.code not in benchmarks:
            raise UsageProblem(
                f"{rule.code} has no benchmark: only rules with a fix or a documented idiom "
                f"have one (benchmarked: {', '.join(benchmarks) or 'none'})"
            )
        if benchmarks[rule.code] not in chosen:
            chosen.append(benchmarks[rule.code])
    return chosen


def select_backends(names: tuple[str, ...]) -> tuple[str, ...] | None:
    from .backends import BACKENDS, GROUPS

    if not names:
        return None
    chosen: list[str] = []
    for name in names:
        key = name.strip().lower()
        if key in GROUPS:
            chosen.extend(GROUPS[key])
        elif key in BACKENDS:
            chosen.append(key)
        else:
            known = ", ".join([*BACKENDS, *GROUPS])
            raise UsageProblem(f"unknown backend {name!r} (choose from {known})")
    return tuple(dict.fromkeys(chosen))


def run(
    rules: tuple[str, ...], backends: tuple[str, ...], max_n: int | None, quick: bool, budget: float, output: Path
) -> int:
    try:
        import numpy  # noqa: F401  (every example's data is generated with NumPy)
    except ImportError:
        _say(f"error: gpulint bench needs NumPy (and the libraries the rules are about): {INSTALL_HINT}", err=True)
        return EXIT_ERROR
    from .harness import BenchmarkError, Settings, plan, run_all

    try:
        chosen = select_benchmarks(rules)
        backend_names = select_backends(backends)
        pairs = plan(chosen, backend_names)
    except (UsageProblem, BenchmarkError) as error:
        _say(f"error: {error}", err=True)
        return EXIT_ERROR
    if not pairs:
        _say("error: no benchmark runs on the chosen backends", err=True)
        return EXIT_ERROR
    from .results import ResultsError, load

    for label in ("cpu", "gpu"):  # what the run will update must be gpulint's results
        if (output / f"{label}.json").exists():
            try:
                load(output / f"{label}.json")
            except ResultsError as error:
                _say(f"error: {output / f'{label}.json'}: {error}; nothing was run (choose another --output)", err=True)
                return EXIT_ERROR

    settings = Settings(max_n=max_n, quick=quick, budget=budget, timeout=10 * budget)
    total = sum(len(settings.sizes_for(case)) for case, _ in pairs)
    try:
        with _progress_bar(total) as bar:

            def started(case, backend) -> None:
                bar.set_postfix_str(f"{case.code} on {backend.name}")

            result = run_all(pairs, settings, step=bar.update, started=started)
    except KeyboardInterrupt:
        _say("\nerror: interrupted; nothing was written", err=True)
        return EXIT_ERROR

    from . import report

    _say(report.text_table(result))
    for note in report.notes(result):
        _say(note)
    from .results import committed

    for note in report.far_from_committed(result, [run for _, run in committed()]):
        _say(note)
    written = write(result, output)
    for line in written:
        _say(line, err=True)
    return EXIT_FAILED if any(sweep.status == "failed" for sweep in result.sweeps) else EXIT_OK


def _progress_bar(total: int) -> tqdm:
    """The sweep's progress on standard error: the steps done of all, and the rule and backend
    being measured; shown on a terminal only."""
    from tqdm import tqdm

    from gpulint.progress import is_terminal

    tqdm.monitor_interval = 0  # no monitor thread: a run may fork
    return tqdm(total=total, desc="gpulint bench", file=sys.stderr, disable=not is_terminal(sys.stderr), unit="step")


def _merged(result, path: Path):
    """`result` with the sweeps of the results file at `path` that it did not measure (another
    rule, or another backend), and how many were kept. A file that is not a results file
    stops the write: it is not gpulint's to replace."""
    from dataclasses import replace

    from .results import load

    if not path.exists():
        return result, 0
    earlier = load(path)  # ResultsError for a file that is not gpulint's results
    measured = {(sweep.code, sweep.backend) for sweep in result.sweeps}
    noted = f"measured in an earlier run ({earlier.machine_line()})"
    kept = [
        sweep
        if "measured " in sweep.message
        else replace(sweep, message="; ".join(filter(None, [sweep.message, noted])))
        for sweep in earlier.sweeps
        if (sweep.code, sweep.backend) not in measured
    ]
    if not kept:
        return result, 0
    order = {sweep.code: i for i, sweep in enumerate(earlier.sweeps)}
    sweeps = sorted([*kept, *result.sweeps], key=lambda sweep: (order.get(sweep.code, len(order)), sweep.code))
    return replace(result, sweeps=sweeps), len(kept)


def write(result, output: Path) -> list[str]:
    """Write `<label>.json`, `<label>.md` and `<label>.png` into `output`; what to tell the user.
    A run of some rules or backends updates the results already there: their other sweeps
    are kept, each noting the run that measured it."""
    from . import report

    output.mkdir(parents=True, exist_ok=True)
    label = result.label
    json_path, md_path, png_path = (output / f"{label}{suffix}" for suffix in (".json", ".md", ".png"))
    result, kept = _merged(result, json_path)
    result.write(json_path)
    lines = [f"wrote {json_path}" + (f" (kept {kept} sweeps of the earlier run there)" if kept else "")]
    plotted = report.plot(result, png_path)
    md_path.write_text(report.markdown(result, png_path.name if plotted else None), encoding="utf-8")
    lines.append(f"wrote {md_path}")
    if plotted:
        lines.append(f"wrote {png_path}")
    else:
        lines.append(f"note: no plot: matplotlib is not installed ({INSTALL_HINT})")
    return lines
